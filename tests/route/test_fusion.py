"""Fusing the words' order with neighbours by meaning: the rule (z-scores summed with one
weight over the union of candidates), and a route that uses it."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from router.catalog.entry import Entry
from router.catalog.taxonomy import Taxonomy
from router.ranking.index import Index
from router.route import assembly, contract, fusion, render

N = fusion.Neighbour


def test_z_scores_have_mean_zero_and_unit_spread_and_equal_values_give_zeros() -> None:
    z = fusion.standard([1.0, 2.0, 3.0])
    assert math.isclose(sum(z), 0.0, abs_tol=1e-12)
    assert math.isclose(sum(v * v for v in z) / 3, 1.0)
    assert fusion.standard([4.0, 4.0]) == [0.0, 0.0]
    assert fusion.standard([]) == []


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=40), st.floats(0.01, 100))
def test_a_z_score_does_not_see_the_scale_or_the_offset(values: list[float], scale: float) -> None:
    # values a hair apart beside the offset are equal but for rounding once moved (EVEN):
    # only spreads that floats keep apart after the move say anything
    width = (max(values) - min(values)) * scale
    assume(width == 0 or width > 1e-6 * (7.0 + max(abs(v) for v in values) * scale))
    moved = fusion.standard([v * scale + 7.0 for v in values])
    for a, b in zip(fusion.standard(values), moved, strict=True):
        assert math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)


def test_the_weight_moves_the_order_from_meaning_to_the_words() -> None:
    ids = ["a", "b", "x"]
    words = {"a": 9.0, "b": 8.0}  # x: no word reaches it
    similarity = {"a": 0.2, "b": 0.5, "x": 0.9}
    assert fusion.fused(ids, words, similarity, 1.0) == ["a", "b", "x"]
    assert fusion.fused(ids, words, similarity, 0.0) == ["x", "b", "a"]
    # half and half: b is near the top of both, a leads the words only, x meaning only
    assert fusion.fused(ids, words, similarity, 0.5)[0] == "b"


def test_how_far_apart_the_scores_are_counts_not_only_their_order() -> None:
    # the same words order and the same meaning order; only the gaps differ
    ids = ["a", "b", "c"]
    similarity = {"a": 0.50, "b": 0.60, "c": 0.10}
    close_words = {"a": 10.0, "b": 9.9, "c": 1.0}  # a barely ahead: meaning decides
    far_words = {"a": 10.0, "b": 5.5, "c": 1.0}  # a well ahead: it stays first
    assert fusion.fused(ids, close_words, similarity, 0.5)[0] == "b"
    assert fusion.fused(ids, far_words, similarity, 0.5)[0] == "a"


def test_the_lead_comes_first_whatever_its_score() -> None:
    ids = ["a", "b", "x"]
    words = {"a": 9.0, "b": 8.0}
    similarity = {"a": 0.2, "b": 0.5, "x": 0.9}
    assert fusion.fused(ids, words, similarity, 0.0, lead="a") == ["a", "x", "b"]
    assert fusion.fused(ids, words, similarity, 0.0, lead=None)[0] == "x"


def test_the_words_first_leads_when_meaning_agrees_and_only_then() -> None:
    # meaning prefers onboarding by far, and holds the words' first (webhooks) as well
    agreeing = near("onboarding", "webhooks")
    assert routed(meaning=agreeing, words_weight=0.0).pointers[0].entry.id == "webhooks"
    # meaning does not hold the words' first among its nearest: the fused order decides
    similar = {**SIMILAR, "webhooks": 0.1}
    far = fusion.Nearness((N("onboarding", "title and summary", 0.75),), similar.__getitem__)
    assert routed(meaning=far, words_weight=0.0).pointers[0].entry.id == "onboarding"


def test_ties_keep_the_order_given() -> None:
    ids = ["b", "a", "c"]
    assert fusion.fused(ids, {}, dict.fromkeys(ids, 0.3)) == ids


def doc(ident: str, summary: str, kind: str = "doc") -> Entry:
    path = f"docs/{ident}.md"
    return Entry(id=ident, kind=kind, path=path, file=path, title=ident, summary=summary)


INDEX = Index(
    [
        doc("webhooks", "retry a failed webhook delivery with backoff"),
        doc("signing", "rotate the webhook signing secret"),
        doc("onboarding", "your first governed corpus, step by step", kind="tutorial"),
        doc("unrelated", "colour of the masthead banner"),
    ]
)
TASK = "retry a failed webhook delivery"
SIMILAR = {"webhooks": 0.8, "signing": 0.3, "onboarding": 0.75, "unrelated": 0.1}


def near(*ids: str) -> fusion.Nearness:
    nearest = tuple(N(i, "title and summary", SIMILAR[i]) for i in ids)
    return fusion.Nearness(nearest, SIMILAR.__getitem__)


def routed(**request: Any) -> contract.Route:
    return assembly.assemble(INDEX, Taxonomy(), contract.Request(task=TASK, **request))


def test_without_meaning_the_route_is_the_lexical_one() -> None:
    assert routed() == routed(meaning=None)


def test_a_neighbour_no_word_reaches_is_offered_with_evidence_by_meaning() -> None:
    lexical = [p.entry.id for p in routed().pointers]
    answer = routed(meaning=near("webhooks", "onboarding"))
    ids = [p.entry.id for p in answer.pointers]
    assert ids[0] == "webhooks" and "onboarding" in ids and set(lexical) <= set(ids)
    found = next(p for p in answer.pointers if p.entry.id == "onboarding")
    assert found.evidence == {"by": "meaning", "near": "title and summary", "rank": 2, "of": 4}
    line = render.evidence_line(found.evidence)
    assert "no task word reached it; near the task in meaning (its title and summary)" in line
    assert "rank 2 of 4 by meaning" in line
    assert "0." not in line  # no similarity value is shown


def test_a_pointer_both_reach_says_both() -> None:
    answer = routed(meaning=near("webhooks", "onboarding"))
    first = answer.pointers[0]
    assert first.entry.id == "webhooks" and first.evidence["by"] == "terms"
    assert first.evidence["meaning"] == {"near": "title and summary", "rank": 1, "of": 4}
    line = render.evidence_line(first.evidence)
    assert line.strip().startswith("matched ")
    assert "also near the task in meaning (its title and summary), rank 1 of 4" in line
    # the words alone: nothing about meaning
    assert "meaning" not in routed().pointers[0].evidence


def test_filters_apply_to_neighbours_and_unknown_ids_are_ignored() -> None:
    nearest = (N("onboarding", "summary", 0.9), N("gone", "summary", 0.8))
    meaning = fusion.Nearness(nearest, lambda i: SIMILAR.get(i, 0.0))
    answer = routed(kind="doc", meaning=meaning)
    assert "onboarding" not in [p.entry.id for p in answer.pointers]


def test_meaning_never_breaks_the_silence_of_the_words() -> None:
    quiet = assembly.assemble(
        INDEX,
        Taxonomy(),
        contract.Request(task="add a CITATION.cff file", meaning=near("onboarding")),
    )
    assert quiet.pointers == () and quiet.silence is not None


def test_the_shown_route_is_the_head_of_the_whole_fused_order() -> None:
    meaning = near("onboarding", "webhooks", "signing", "unrelated")
    whole = routed(meaning=meaning, budget=100)
    shown = routed(meaning=meaning, budget=2)
    assert [p.entry.id for p in shown.pointers] == [p.entry.id for p in whole.pointers][:2]
