"""Stems (router.ranking.stemmer): plurals, inflections and British spellings fold onto one
stem, and every word of a stem holds its probe."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from router.ranking import stemmer


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
    assert (stemmer.stem(forms[0]) == stemmer.stem(forms[1])) is same


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
    assert (len({stemmer.stem(f) for f in forms}) == 1) is same


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
    assert stemmer.stem(pair[0]) == stemmer.stem(pair[1])


@pytest.mark.parametrize(
    ("word", "other"), [("hour", "hor"), ("spelled", "speled"), ("raise", "raize")]
)
def test_short_words_that_only_end_alike_keep_their_spelling(word: str, other: str) -> None:
    assert stemmer.stem(word) != stemmer.stem(other)


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
    assert word.startswith(stemmer.probe(stemmer.stem(word)))


@pytest.mark.parametrize(
    "word",
    ["retried", "colourful", "favourites", "licences", "catalogues", "serialisations",
     "centres", "travellers", "committed", "analysing", "flies", "statuses"],
)  # fmt: skip
def test_a_probe_is_in_every_form_that_folds_onto_its_stem(word: str) -> None:
    probe = stemmer.probe(stemmer.stem(word))
    assert probe and word.startswith(probe)


def test_short_words_and_words_with_digits_stay() -> None:
    assert [stemmer.stem(w) for w in ("aws", "ios", "s3", "v2s", "k8s")] == [
        "aws",
        "ios",
        "s3",
        "v2s",
        "k8s",
    ]
