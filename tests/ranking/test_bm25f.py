"""BM25F weights (router.ranking.bm25f): tiers, saturation, fixed reference lengths, idf."""

from __future__ import annotations

import math
from collections import Counter

from router.ranking import bm25f
from router.ranking.field import BODY, FAMILY_TEXT, STRUCTURED, TIER_NAMES


def tiers(**by_tier: Counter[str]) -> list[Counter[str]]:
    out = [Counter[str]() for _ in TIER_NAMES]
    for name, counts in by_tier.items():
        out[TIER_NAMES.index(name)] = counts
    return out


def impacts(counts: list[Counter[str]]) -> dict[str, float]:
    """Return stem -> saturated pseudo-frequency, what the index keeps (in steps) per entry."""
    return {stem: bm25f.saturated(tf) for stem, tf in bm25f.frequencies(counts).items()}


def test_a_body_match_never_outweighs_the_same_word_in_a_title_or_routing_field() -> None:
    body = impacts(tiers(body=Counter({"rotation": 1})))["rotation"]
    # a realistic body (three mentions in 300 words) still counts less than one title word
    in_prose = impacts(tiers(body=Counter({"rotation": 3, "other": 297})))["rotation"]
    title = impacts(tiers(family_text=Counter({"rotation": 1})))["rotation"]
    routing = impacts(tiers(structured=Counter({"rotation": 1})))["rotation"]
    assert body < title < routing and in_prose < title
    assert bm25f.TIER_WEIGHTS[STRUCTURED] > bm25f.TIER_WEIGHTS[FAMILY_TEXT]
    assert bm25f.TIER_WEIGHTS[BODY] == min(bm25f.TIER_WEIGHTS)


def test_impacts_saturate_below_k1_plus_one() -> None:
    many = impacts(tiers(structured=Counter({"x": 1000})))["x"]
    assert many < bm25f.K1 + 1
    one = impacts(tiers(structured=Counter({"x": 1})))["x"]
    assert one < many


def test_a_long_tier_counts_each_occurrence_for_less() -> None:
    short = impacts(tiers(body=Counter({"x": 1, "y": 10})))["x"]
    long = impacts(tiers(body=Counter({"x": 1, "y": 2000})))["x"]
    assert long < short


def test_impacts_depend_on_the_entry_alone() -> None:
    # no catalog statistic enters: the same entry gives the same impacts anywhere
    counts = tiers(family_text=Counter({"a": 1}), body=Counter({"a": 2, "b": 1}))
    assert impacts(counts) == impacts(counts)


def test_idf_is_bm25s_and_never_negative() -> None:
    assert bm25f.idf(10, 10) == math.log(1 + 0.5 / 10.5)
    assert bm25f.idf(10, 1) > bm25f.idf(10, 5) > bm25f.idf(10, 10) > 0
