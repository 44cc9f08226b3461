"""Route terms (router.ranking.term): function words, path syntax, stems of plurals and
inflections."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from router.ranking import term


@pytest.mark.parametrize(
    ("forms", "same"),
    [
        (("retry", "retries"), True),
        (("rotation", "rotations"), True),
        (("cache", "caches"), True),
        (("match", "matches"), True),
        (("status", "statuses"), True),
        (("index", "indexes"), True),
        (("doc", "docs"), True),
        (("class", "classes"), True),
        (("cause", "causes"), True),
        (("mode", "modes"), True),
        (("mode", "mod"), False),
        (("redis", "redi"), False),
    ],
)
def test_plurals_fold_onto_one_stem(forms: tuple[str, str], same: bool) -> None:
    assert (term.stem(forms[0]) == term.stem(forms[1])) is same


@pytest.mark.parametrize(
    ("forms", "same"),
    [
        (("backtest", "backtesting"), True),
        (("replay", "replaying"), True),
        (("retry", "retried", "retrying"), True),
        (("cache", "cached", "caching"), True),
        (("route", "routed", "routing"), True),
        (("embed", "embedded", "embedding"), True),
        (("commit", "committed"), True),
        (("install", "installed"), True),
        (("deploy", "deployed", "deployments"), False),  # a derivation is another word
        (("string", "str"), False),  # what is left must be a stem
        (("speed", "sp"), False),
    ],
)
def test_inflections_fold_onto_one_stem(forms: tuple[str, ...], same: bool) -> None:
    assert (len({term.stem(f) for f in forms}) == 1) is same


@pytest.mark.parametrize(
    "pair",
    [
        ("colour", "color"),
        ("behaviours", "behaviors"),
        ("licence", "license"),
        ("defence", "defense"),
        ("catalogue", "catalog"),
        ("serialiser", "serializer"),
        ("organisation", "organization"),
        ("quantised", "quantized"),
        ("analyse", "analyze"),
        ("centred", "centered"),
        ("cancelled", "canceled"),
        ("modelling", "modeling"),
    ],
)
def test_british_and_american_spellings_fold_together(pair: tuple[str, str]) -> None:
    assert term.stem(pair[0]) == term.stem(pair[1])


@pytest.mark.parametrize(
    ("word", "other"), [("hour", "hor"), ("spelled", "speled"), ("raise", "raize")]
)
def test_short_words_that_only_end_alike_keep_their_spelling(word: str, other: str) -> None:
    assert term.stem(word) != term.stem(other)


# Endings that fold rewrites or cuts, the British ones included: a word of any stem ending in
# one of these must still hold its stem's probe, or the ranker would skip the body section
# that holds it.
FOLDED_ENDINGS = (
    "", "s", "es", "ies", "ied", "ed", "ing", "e", "y", "ss", "us", "uses", "sses",
    "our", "ours", "oured", "ouring", "ourite", "ourites", "ourable", "ourful",
    "ise", "ised", "ises", "iser", "isers", "ising", "isation", "isations",
    "yse", "ysed", "ysing", "ence", "ences", "enced", "ogue", "ogues",
    "tre", "tres", "tred", "bre", "elled", "elling", "eller", "ellers", "tted", "tting",
)  # fmt: skip


@given(st.text(alphabet="abcdeilnorstuyz", min_size=0, max_size=9), st.sampled_from(FOLDED_ENDINGS))
def test_every_word_of_a_stem_holds_its_probe(start: str, ending: str) -> None:
    word = start + ending
    assert word.startswith(term.probe(term.stem(word)))


@pytest.mark.parametrize(
    "word",
    ["retried", "colourful", "favourites", "licences", "catalogues", "serialisations",
     "centres", "travellers", "committed", "analysing", "flies", "statuses"],
)  # fmt: skip
def test_a_probe_is_in_every_form_that_folds_onto_its_stem(word: str) -> None:
    probe = term.probe(term.stem(word))
    assert probe and word.startswith(probe)


def test_the_parts_of_a_texts_code_identifiers() -> None:
    assert term.parts("call useEffect, then HTTPServer and createAsyncThunk") == (
        "use effect http server create async thunk"
    )
    assert term.parts("plain words, snake_case and UPPER stay whole") == ""


# letters of both cases, digits, `_`, separators, and letters and digits beyond ASCII
IDENTIFIER_TEXT = st.text(alphabet="aAbBzZ09_ -./`()\u00e9\u00c9\u0663\u00b2\u2019\n", max_size=60)


@given(IDENTIFIER_TEXT)
def test_identifiers_are_the_words_the_identifier_pattern_finds(raw: str) -> None:
    assert term.identifiers(raw) == term._IDENTIFIER.findall(raw)


def test_an_acronyms_plural_is_one_word_not_an_identifier() -> None:
    # "URLs" is not `UR` + `Ls`: those would reach any entry naming a `urLs`-like identifier
    assert term.parts("fetch the URLs of the APIs listed in (ADRs), then useEffect") == (
        "use effect"
    )
    words = [t.word for t in term.of_task("fetch 500 URLs with at most 10 requests")]
    assert "ur" not in words and "ls" not in words and "urls" in words


@pytest.mark.parametrize("shape", ["a" * 200_000, "aA" * 100_000, "A" * 200_000, "ab " * 70_000])
def test_finding_identifiers_stays_linear_on_hostile_text(shape: str) -> None:
    # a backtracking pattern would take minutes here; the deadline only catches a hang
    started = time.monotonic()
    term.parts(shape)
    assert time.monotonic() - started < 5


def test_short_words_and_words_with_digits_stay() -> None:
    assert [term.stem(w) for w in ("aws", "ios", "s3", "v2s", "k8s")] == [
        "aws",
        "ios",
        "s3",
        "v2s",
        "k8s",
    ]


def test_conversational_words_are_not_terms() -> None:
    terms = term.of_task("Why do we store money as integer cents? Can you please check")
    assert [t.word for t in terms if not t.form] == ["store", "money", "integer", "cents", "check"]
    # ... but forms the ranker reads only where an entry writes them as code
    assert all(t.stem == term.coded(t.word) for t in terms if t.form)


def test_path_words_give_weak_terms_without_their_syntax() -> None:
    terms = term.of_task("add type hints to src/api/payments.py")
    assert [(t.word, t.weak) for t in terms] == [
        ("add", False),
        ("type", False),
        ("hints", False),
        ("api", True),
        ("payments", True),
    ]


def test_a_dotted_name_without_a_slash_gives_strong_terms_without_its_syntax() -> None:
    terms = term.of_task("add moment.js to format dates, as React.FC and CITATION.cff do")
    assert [
        (t.word, t.weak) for t in terms if t.word not in ("add", "format", "dates") and not t.form
    ] == [
        ("moment", False),
        ("react", False),
        ("fc", False),
        ("citation", False),
        ("cff", False),
    ]


def test_a_word_the_task_also_writes_out_is_a_strong_term() -> None:
    terms = {t.word: t.weak for t in term.of_task("the payments module in src/payments/api.py")}
    assert terms["payments"] is False and terms["api"] is True


def test_counts_skip_stopwords_function_words_and_fold_plurals() -> None:
    stems, tokens = term.read("we retry the retries and we wait")
    assert stems == {"retry": 2, "wait": 1}
    assert tokens == {"we", "retry", "retries", "wait"}  # function words are tokens still


def test_a_flood_of_new_words_reads_the_same_once_the_cache_starts_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "we retry the retries and we wait for the waiting queue " * 3
    fresh = term.read(text)
    monkeypatch.setattr(term, "MAX_CACHED_STEMS", 4)  # every read now overflows the cache
    for flood in ("alpha beta gamma delta epsilon", text, "zeta eta theta iota kappa"):
        term.read(flood)
    assert term.read(text) == fresh


@given(st.text())
def test_of_task_never_raises_and_is_deterministic(task: str) -> None:
    assert term.of_task(task) == term.of_task(task)


def test_a_code_identifier_adds_its_words() -> None:
    words = [t.word for t in term.of_task("the ReaderStateContext holds HTTPServer state")]
    assert words == [
        "readerstatecontext",
        "reader",
        "state",
        "context",
        "holds",
        "httpserver",
        "http",
        "server",
    ]
    # snake_case is split by normalizing already; an all-lower word has no parts
    assert [t.word for t in term.of_task("parse_args quietly")] == ["parse", "args", "quietly"]


def test_the_head_of_a_type_name_knows_the_name() -> None:
    terms = {
        t.word: t.of_name
        for t in term.of_task(
            "a ReaderStateContext, an HTTPServer, useEffect, getContent, "
            "WeatherPlugin_GetForecast, URLs and a context"
        )
    }
    # a PascalCase name ends in the kind of thing it names ...
    assert terms["context"] == "readerstatecontext"
    assert terms["server"] == "httpserver"
    assert terms["reader"] == terms["state"] == terms["http"] == ""
    # ... a function's name opens with its verb, an underscored name may end in one, and an
    # acronym's plural is one word
    assert terms["effect"] == terms["content"] == terms["forecast"] == ""
    assert "ur" not in terms and terms["urls"] == ""


# --- code-shaped words -------------------------------------------------------------------------


def forms_of(task: str) -> set[str]:
    return {t.stem for t in term.of_task(task) if t.form}


def test_a_flag_meets_its_value_written_apart_or_glued() -> None:
    # `-Xfoo` and `-X foo` are one flag and one value, however a page spells them
    assert "-xfoo" in forms_of("link with -Xfoo") & forms_of("link with -X foo")
    assert "-lpthread" in forms_of("gcc -lpthread") & forms_of("gcc -l pthread")
    # a capital (or a digit) shows where a glued value starts: the bare flag and the value too
    assert {"-x", "foo"} <= forms_of("link with -Xfoo")
    assert "-o" in forms_of("build with -O2")
    # the one-letter flag after `=` is not lost with its dash
    assert "-m" in forms_of("go build -gcflags=-m") & forms_of("go build -gcflags -m")


def test_a_dash_inside_a_word_or_before_a_space_is_no_flag() -> None:
    assert term.forms("an e-mail - a re-run of the top-5 list") == ()


def test_operators_and_sigils_keep_their_form() -> None:
    assert "println!" in forms_of("why does println! panic")
    assert "?" in forms_of("what does the ? operator return") & forms_of("let x = f()?;")
    assert "++" in forms_of("i++ in a loop")
    assert "::" in forms_of("call std::mem::take")
    assert "..." in forms_of("go test ./...")
    # prose punctuation is no operator
    assert term.forms("Why? It works. Thanks!") == ()


@pytest.mark.parametrize("code", ["E0123", "SA1019", "TS2345"])
def test_an_error_code_is_one_term(code: str) -> None:
    assert [t.stem for t in term.of_task(f"the compiler says {code}:")] == [
        "compiler",
        "say",
        code.lower(),
    ]
    assert term.parts(f"error[{code}]: mismatched types") == ""


def test_a_number_glued_to_its_unit_gives_the_number_and_the_unit() -> None:
    assert {"10", "ms"} <= forms_of("a 10ms timeout")
    assert term.parts("timers fire every 10ms or 400px") == "10 ms 400 px"


def test_a_function_word_is_a_form_only_where_code_writes_it() -> None:
    # the task's function words are forms the ranker asks the catalog for ...
    assert term.coded("any") in forms_of("can any be compared")
    # ... a contraction's stub is not one of the task's words
    assert term.coded("re") not in forms_of("we're stuck")
    # ... and a document holds one only written as code on its own
    assert term.parts("### The `any` constraint") == term.coded("any")
    assert term.parts("any of `it was there`") == ""


CODE_TEXT = st.text(alphabet="abXY01 -=`!?:.+()'_", max_size=40)


@given(CODE_TEXT)
def test_every_form_of_a_text_holds_its_probe(raw: str) -> None:
    # the ranker reads a body section for a stem only when the section holds its probe
    for form in term.forms(raw):
        assert term.probe(term.stem(form)) in raw.lower()


# values without a vowel: never a stopword or a function word, which a flag does not take
@given(st.sampled_from("XDWlo"), st.text(alphabet="bcdfghkm", min_size=2, max_size=8))
def test_a_flag_glued_or_apart_shares_its_form(letter: str, value: str) -> None:
    assert set(term.forms(f"-{letter}{value}")) & set(term.forms(f"-{letter} {value}"))


@pytest.mark.parametrize(
    ("fast", "plain"),
    [
        (term._SYMBOLS, re.compile(r"[-+*%=!?:.<>&|^~]{2,}")),
    ],
)
@given(raw=st.text(alphabet="a1\u0663-+*%=!?:.<>&|^~ _z", max_size=40))
def test_the_scans_find_what_their_plainer_spellings_find(
    fast: re.Pattern[str], plain: re.Pattern[str], raw: str
) -> None:
    assert fast.findall(raw) == plain.findall(raw)


def quantities_skipping_names(raw: str) -> list[tuple[str, str]]:
    """The quantities of `raw` as found first: every `(\\d+)([a-z]{1,5})\\b`, those after a
    letter, digit or `_` (a name's) skipped."""
    found = []
    for match in re.finditer(r"(\d+)([a-z]{1,5})\b", raw):
        start = match.start()
        if not (start and (raw[start - 1].isalnum() or raw[start - 1] == "_")):
            found.append(match.groups())
    return found


@given(st.text(alphabet="a1\u0663 _zv-\u00e9", max_size=40))
def test_quantities_are_found_as_first_written(raw: str) -> None:
    assert term._QUANTITY.findall(raw) == quantities_skipping_names(raw)
