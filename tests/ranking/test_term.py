"""Route terms (router.ranking.term): function words, path syntax, stems of plurals and
inflections."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from router.core import text
from router.ranking import codeword, stemmer, term
from router.ranking.wordlist import FUNCTION_WORDS, PATH_SYNTAX


def test_conversational_words_are_not_terms() -> None:
    terms = term.of_task("Why do we store money as integer cents? Can you please check")
    assert [t.word for t in terms if not t.form] == ["store", "money", "integer", "cents", "check"]
    # ... but forms the ranker reads only where an entry writes them as code
    assert all(t.stem == codeword.coded(t.word) for t in terms if t.form)


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


def _read_whole(task: str) -> list[tuple[str, str, bool, str]]:
    """Return (stem, word, weak, of_name) of a task's tokens read from the task as a whole,
    as `of_task` read them before it read a task word by word (function words as code and
    code forms aside)."""
    words = list(dict.fromkeys(task.split()))
    paths = [w for w in words if term._reads_as_path(w)]
    prose = [w for w in words if w not in paths]
    names = [w for w in paths if "/" not in w]
    paths = [w for w in paths if "/" in w]
    heads = codeword.heads(prose + names)
    seen: dict[str, tuple[str, str, bool, str]] = {}
    groups = ((codeword.with_parts(prose), False, False), (codeword.with_parts(names), False, True))
    for group, weak, syntax in (*groups, (paths, True, True)):
        for token in text.tokens(" ".join(group)):
            if token in FUNCTION_WORDS or (syntax and token in PATH_SYNTAX):
                continue
            key = stemmer.stem(token)
            seen.setdefault(key, (key, token, weak, heads.get(key, "")))
    return list(seen.values())


WORDS = st.lists(
    st.sampled_from(
        ["ΟΔΟΣ", "Σ.", "ReaderStateContext", "URLs", "src/a.py", "React.FC", "we're", "any"]
    )
    | st.text(),
    max_size=8,
)


@given(WORDS, WORDS)
def test_a_task_read_word_by_word_reads_as_the_whole_task_whatever_came_before(
    before: list[str], words: list[str]
) -> None:
    task = " ".join(words)
    term.of_task(" ".join(before))  # words kept from an earlier task
    read = [(t.stem, t.word, t.weak, t.of_name) for t in term.of_task(task) if not t.form]
    assert read == [t for t in _read_whole(task) if not t[0].startswith("`")]


def test_the_words_kept_between_tasks_start_afresh_past_their_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    task = "the ReaderStateContext retries src/a.py any"
    fresh = term.of_task(task)
    monkeypatch.setattr(term, "MAX_TASK_WORDS", 2)
    # words no other test writes: a word read before is not read again, so it adds nothing
    for flood in ("floodalpha floodbeta floodgamma", task, "flooddelta floodepsilon"):
        term.of_task(flood)
    assert len(term._TASK_WORDS) <= 2
    assert term.of_task(task) == fresh


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
