"""Code-shaped words (router.ranking.codeword): identifiers' parts, flags, operators, quantities
and keywords written as code."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from router.ranking import codeword, stemmer, term


def test_the_parts_of_a_texts_code_identifiers() -> None:
    assert codeword.parts("call useEffect, then HTTPServer and createAsyncThunk") == (
        "use effect http server create async thunk"
    )
    assert codeword.parts("plain words, snake_case and UPPER stay whole") == ""


# letters of both cases, digits, `_`, separators, and letters and digits beyond ASCII
IDENTIFIER_TEXT = st.text(alphabet="aAbBzZ09_ -./`()\u00e9\u00c9\u0663\u00b2\u2019\n", max_size=60)


@given(IDENTIFIER_TEXT)
def test_identifiers_are_the_words_the_identifier_pattern_finds(raw: str) -> None:
    assert codeword.identifiers(raw) == codeword._IDENTIFIER.findall(raw)


def test_an_acronyms_plural_is_one_word_not_an_identifier() -> None:
    # "URLs" is not `UR` + `Ls`: those would reach any entry naming a `urLs`-like identifier
    assert codeword.parts("fetch the URLs of the APIs listed in (ADRs), then useEffect") == (
        "use effect"
    )
    words = [t.word for t in term.of_task("fetch 500 URLs with at most 10 requests")]
    assert "ur" not in words and "ls" not in words and "urls" in words


@pytest.mark.parametrize("shape", ["a" * 200_000, "aA" * 100_000, "A" * 200_000, "ab " * 70_000])
def test_finding_identifiers_stays_linear_on_hostile_text(shape: str) -> None:
    # a backtracking pattern would take minutes here; the deadline only catches a hang
    started = time.monotonic()
    codeword.parts(shape)
    assert time.monotonic() - started < 5


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
    assert codeword.forms("an e-mail - a re-run of the top-5 list") == ()


def test_operators_and_sigils_keep_their_form() -> None:
    assert "println!" in forms_of("why does println! panic")
    assert "?" in forms_of("what does the ? operator return") & forms_of("let x = f()?;")
    assert "++" in forms_of("i++ in a loop")
    assert "::" in forms_of("call std::mem::take")
    assert "..." in forms_of("go test ./...")
    # prose punctuation is no operator
    assert codeword.forms("Why? It works. Thanks!") == ()


@pytest.mark.parametrize("code", ["E0123", "SA1019", "TS2345"])
def test_an_error_code_is_one_term(code: str) -> None:
    assert [t.stem for t in term.of_task(f"the compiler says {code}:")] == [
        "compiler",
        "say",
        code.lower(),
    ]
    assert codeword.parts(f"error[{code}]: mismatched types") == ""


def test_a_number_glued_to_its_unit_gives_the_number_and_the_unit() -> None:
    assert {"10", "ms"} <= forms_of("a 10ms timeout")
    assert codeword.parts("timers fire every 10ms or 400px") == "10 ms 400 px"


def test_a_function_word_is_a_form_only_where_code_writes_it() -> None:
    # the task's function words are forms the ranker asks the catalog for ...
    assert codeword.coded("any") in forms_of("can any be compared")
    # ... a contraction's stub is not one of the task's words
    assert codeword.coded("re") not in forms_of("we're stuck")
    # ... and a document holds one only written as code on its own
    assert codeword.parts("### The `any` constraint") == codeword.coded("any")
    assert codeword.parts("any of `it was there`") == ""


CODE_TEXT = st.text(alphabet="abXY01 -=`!?:.+()'_", max_size=40)


@given(CODE_TEXT)
def test_every_form_of_a_text_holds_its_probe(raw: str) -> None:
    # the ranker reads a body section for a stem only when the section holds its probe
    for form in codeword.forms(raw):
        assert stemmer.probe(stemmer.stem(form)) in raw.lower()


# values without a vowel: never a stopword or a function word, which a flag does not take
@given(st.sampled_from("XDWlo"), st.text(alphabet="bcdfghkm", min_size=2, max_size=8))
def test_a_flag_glued_or_apart_shares_its_form(letter: str, value: str) -> None:
    assert set(codeword.forms(f"-{letter}{value}")) & set(codeword.forms(f"-{letter} {value}"))


@pytest.mark.parametrize(
    ("fast", "plain"),
    [
        (codeword._SYMBOLS, re.compile(r"[-+*%=!?:.<>&|^~]{2,}")),
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
    found: list[tuple[str, str]] = []
    for match in re.finditer(r"(\d+)([a-z]{1,5})\b", raw):
        start = match.start()
        if not (start and (raw[start - 1].isalnum() or raw[start - 1] == "_")):
            found.append((match[1], match[2]))
    return found


@given(st.text(alphabet="a1\u0663 _zv-\u00e9", max_size=40))
def test_quantities_are_found_as_first_written(raw: str) -> None:
    assert codeword._QUANTITY.findall(raw) == quantities_skipping_names(raw)
