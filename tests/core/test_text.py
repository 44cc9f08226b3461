"""Text normalization, tokens, phrases and path readings (router.core.text, DESIGN 4.3 and 6.2)."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import router.core.text
from router.core.shown import EM_DASH, clean, flat, scrubbed
from router.core.text import (
    MIN_TOKEN_CHARS,
    STOPWORDS,
    holds_phrase,
    looks_like_path,
    may_be_path,
    normalize,
    path_readings,
    tokens,
)

# --- normalize -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Rate Limit", "rate limit"),
        # `_` and `/` runs become one space each
        ("provider__rate_limit", "provider rate limit"),
        ("src//ingest///pipeline", "src ingest pipeline"),
        ("a_/_b", "a b"),
        # `-` becomes a space (a run of them collapses afterwards)
        ("rate-limit", "rate limit"),
        ("a--b", "a b"),
        # every other non-word, non-space character becomes a space
        ("retry: backoff!", "retry backoff"),
        ("src/ingest/pipeline.py", "src ingest pipeline py"),
        ("don't", "don t"),
        ("(a) [b] {c} <d>", "a b c d"),
        ("HW-DR-0070", "hw dr 0070"),
        # whitespace of any kind collapses, surrounding space goes
        ("  many \t spaces\n\nhere  ", "many spaces here"),
        # unicode word characters are kept, lowercased
        ("Café Über_Straße", "café über straße"),
        ("naïve—résumé", "naïve résumé"),
        ("数据 管道", "数据 管道"),
        ("", ""),
        ("---", ""),
        ("...", ""),
    ],
)
def test_normalize(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


def test_normalize_keeps_digits_and_has_single_spaces() -> None:
    out = normalize("v2.0 -- OAuth2   tokens")
    assert out == "v2 0 oauth2 tokens"
    assert "  " not in out


@given(st.text())
def test_normalize_is_idempotent(s: str) -> None:
    once = normalize(s)
    assert normalize(once) == once


@given(st.text())
def test_normalize_output_shape(s: str) -> None:
    out = normalize(s)
    assert out == out.strip()
    assert "  " not in out
    assert "_" not in out and "/" not in out and "-" not in out
    assert out == out.lower()


# --- tokens ----------------------------------------------------------------------------


def test_stopwords_are_seed_ones_list_exactly() -> None:
    expected = (
        "a an and are as at be by for from in into is it of on or that the this to use with"
    ).split()
    assert sorted(STOPWORDS) == sorted(expected)
    assert len(STOPWORDS) == 23


def test_tokens_drop_stopwords_and_short_words() -> None:
    assert tokens("Use the API for a rate limit in x") == ("api", "rate", "limit")
    assert MIN_TOKEN_CHARS == 2


def test_tokens_keep_two_character_words() -> None:
    assert tokens("go db x y io") == ("go", "db", "io")


def test_tokens_deduplicate_keeping_first_occurrence() -> None:
    assert tokens("Retry backoff RETRY retry_backoff limit backoff") == (
        "retry",
        "backoff",
        "limit",
    )


def test_tokens_split_like_normalize() -> None:
    assert tokens("provider_rate-limit/backoff.py") == (
        "provider",
        "rate",
        "limit",
        "backoff",
        "py",
    )


def test_stopwords_only_or_empty_give_no_tokens() -> None:
    assert tokens("") == ()
    assert tokens("it is the one to use with this") == ("one",)
    assert tokens("a an the of") == ()


def test_tokens_are_whole_words_api_never_rapid() -> None:
    assert "api" not in tokens("rapid prototyping")
    assert tokens("rapid api") == ("rapid", "api")
    assert "limit" not in tokens("limitation")


@given(st.text())
def test_tokens_are_a_subset_of_normalized_words(s: str) -> None:
    words = normalize(s).split()
    toks = tokens(s)
    assert set(toks) <= set(words)
    assert len(toks) == len(set(toks))
    assert all(len(t) >= 2 and t not in STOPWORDS for t in toks)
    # first-occurrence order
    assert list(toks) == sorted(toks, key=words.index)


# --- holds_phrase ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "query", "expected"),
    [
        ("the rate limit backoff", "rate limit", True),
        ("the rate limit backoff", "ate limit", False),
        ("the rate limit backoff", "rate lim", False),
        ("the rate limit backoff", "the rate limit backoff", True),
        ("the rate limit backoff", "backoff", True),
        ("the rate limit backoff", "the", True),
        ("rapid api", "api", True),
        ("rapid", "api", False),
        ("rate limit", "rate limit backoff", False),
        ("anything", "", False),
    ],
)
def test_holds_phrase_at_word_boundaries(field: str, query: str, expected: bool) -> None:
    assert holds_phrase(field, query) is expected


def test_holds_phrase_works_on_normalized_text() -> None:
    field = normalize("Provider_Rate-Limit: backoff")
    assert holds_phrase(field, normalize("rate limit"))
    assert holds_phrase(field, normalize("RATE_LIMIT"))
    assert not holds_phrase(field, normalize("provider backoff"))


# --- path_readings ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("src/ingest/pipeline.py", ("src/ingest/pipeline.py",)),
        # trailing dots (end of a sentence)
        ("README.md.", ("README.md.", "README.md")),
        ("docs/a.md...", ("docs/a.md...", "docs/a.md")),
        # possessive 's, straight and curly apostrophe
        ("router.py's", ("router.py's", "router.py")),
        ("router.py\u2019s", ("router.py\u2019s", "router.py")),
        # line numbers: everything from the first `:`
        ("src/a.py:12", ("src/a.py:12", "src/a.py")),
        ("src/a.py:12:3", ("src/a.py:12:3", "src/a.py")),
        # each step applies to the previous one, in DESIGN 6 step 2's order
        (
            "src/ingest/pipeline.py:12.",
            ("src/ingest/pipeline.py:12.", "src/ingest/pipeline.py:12", "src/ingest/pipeline.py"),
        ),
        ("a.py...:12..", ("a.py...:12..", "a.py...:12", "a.py...", "a.py")),
        ("docs/a.md's.", ("docs/a.md's.", "docs/a.md's", "docs/a.md")),
        # surrounding punctuation stripped before anything else
        ("(docs/a.md),", ("docs/a.md",)),
        ('"src/x.py"', ("src/x.py",)),
        ("`src/x.py`", ("src/x.py",)),
        ("'src/x.py:4',", ("src/x.py:4", "src/x.py")),
        # `_` survives at the edges: file names start with it
        ("__init__.py", ("__init__.py",)),
        ("docs/", ("docs/",)),
        ("api", ("api",)),
    ],
)
def test_path_readings(word: str, expected: tuple[str, ...]) -> None:
    assert path_readings(word) == expected


@pytest.mark.parametrize(
    "url", ["https://example.com/src/a.py", "http://x/y.md", "file:///etc/hosts", "(https://a/b)."]
)
def test_path_readings_skip_urls(url: str) -> None:
    assert path_readings(url) == ()


@pytest.mark.parametrize("word", ["", "-", "()", "—", "!?"])
def test_path_readings_of_pure_punctuation_are_empty(word: str) -> None:
    assert path_readings(word) == ()


@given(st.text(max_size=40))
def test_path_readings_are_distinct_and_non_empty(word: str) -> None:
    readings = path_readings(word)
    assert len(readings) == len(set(readings))
    assert all(readings)


# --- looks_like_path -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reading", "expected"),
    [
        ("src/ingest", True),
        ("docs/", True),
        ("a.py", True),
        ("README.md", True),
        ("pipeline.test.ts", True),
        ("src/a.py", True),
        # bare words are never anchors
        ("docs", False),
        ("api", False),
        # nothing but separators and dots
        ("/", False),
        ("./", False),
        ("..", False),
        ("...", False),
        # a dot with nothing on one side is not an extension
        ("a.", False),
        (".", False),
    ],
)
def test_looks_like_path(reading: str, expected: bool) -> None:
    assert looks_like_path(reading) is expected


# --- flat (defect 1: what an agent or a terminal is shown) -------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("plain text, kept as is", "plain text, kept as is"),
        ("\x1b[31mred\x1b[0m", "[31mred[0m"),  # ESC goes; what is left is inert text
        ("\x1b]0;title\x07after", "]0;titleafter"),  # OSC title sequence and its BEL
        ("\x1b[2Jcleared", "[2Jcleared"),
        ("back\x08\x08space", "backspace"),
        ("zero\u200bwidth\u200djoin\u2060word", "zerowidthjoinword"),
        ("\u202eevil\u202c", "evil"),  # bidi override and pop
        ("\ufeffbom\u00adsoft", "bomsoft"),
        ("c1 \x9b31m and \x85 next", "c1 31m and next"),  # CSI dropped, NEL is a space
        ("one\ntwo\r\nthree\tfour\x0bfive\u2028six", "one two three four five six"),
        ("  padded  \n", "padded"),
        (f"a {EM_DASH} b", "a - b"),  # only the pointer separator carries an em dash
        ("\x1b \x1b", ""),
    ],
)
def test_flat_drops_controls_and_format_characters(raw: str, expected: str) -> None:
    assert flat(raw) == expected


@given(st.text())
def test_flat_leaves_one_clean_line(raw: str) -> None:
    out = flat(raw)
    assert not any(unicodedata.category(c) in ("Cc", "Cf") for c in out)
    assert EM_DASH not in out and "  " not in out and out == out.strip()
    assert out.split() == out.split(" ") or out == ""
    assert flat(out) == out


@given(st.text())
def test_clean_keeps_lines_and_tabs_only_when_asked_and_nothing_hidden(raw: str) -> None:
    hidden = ("Cc", "Cf", "Cs")
    one, many = clean(raw), clean(raw, lines=True)
    assert not any(unicodedata.category(c) in hidden or c.isspace() != (c == " ") for c in one)
    assert not any(unicodedata.category(c) in hidden for c in many if c not in "\n\t")
    assert many.replace("\n", " ").replace("\t", " ") == one
    assert clean(one) == one and clean(many, lines=True) == many


def test_scrubbed_cleans_every_string_and_keeps_the_lines_of_text_alone() -> None:
    hostile = "a\u202eb\nFAKE.md \u2014 injected\x1b[2J"
    document = {"title": hostile, "text": hostile, hostile: [hostile, 1, None, {"x": hostile}]}
    assert scrubbed(document) == {
        "title": "ab FAKE.md \u2014 injected[2J",
        "text": "ab\nFAKE.md \u2014 injected[2J",
        "ab FAKE.md \u2014 injected[2J": [
            "ab FAKE.md \u2014 injected[2J",
            1,
            None,
            {"x": "ab FAKE.md \u2014 injected[2J"},
        ],
    }


@given(st.text(alphabet=st.sampled_from("ab:/._'\u2019s-,;()[]1"), max_size=12))
def test_a_word_that_may_not_be_a_path_has_no_path_reading(word: str) -> None:
    if not may_be_path(word):
        assert not any(looks_like_path(r) for r in path_readings(word))
    assert may_be_path("src/a.py") and may_be_path(".env") and not may_be_path("webhook")


@settings(max_examples=500)
@given(st.text(alphabet=st.characters(max_codepoint=0x2FF)) | st.text())
def test_normalize_is_the_separator_rule_on_any_text(raw: str) -> None:
    # ASCII takes a faster path than the regular expression; both must read alike
    assert normalize(raw) == re.sub(r"[\W_]+", " ", raw.lower()).strip()


@given(st.text(max_size=40))
def test_separators_are_found_as_the_plainer_pattern_finds_them(raw: str) -> None:
    assert router.core.text._SEPARATORS.sub(" ", raw) == re.sub(r"[\W_]+", " ", raw)


@given(st.text(max_size=60))
def test_normalize_is_the_separators_substitution(raw: str) -> None:
    lower = raw.lower()
    assert normalize(raw) == router.core.text._SEPARATORS.sub(" ", lower).strip()
