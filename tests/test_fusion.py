"""Fusing the lexical order with neighbours by meaning: the rule, and a route that uses it."""

from __future__ import annotations

from router.core import fusion, render, route
from router.core.entry import Entry
from router.core.index import Index
from router.core.taxonomy import Taxonomy

N = fusion.Neighbour


def test_an_entry_both_orders_hold_rises_and_ties_keep_the_words_first() -> None:
    assert fusion.fused(["a", "b", "c"], ["c", "x"]) == ["c", "a", "b", "x"]  # b ties x
    assert fusion.fused(["a"], ["x"]) == ["a", "x"]  # one first place each: words first
    assert fusion.fused([], ["x", "y"]) == ["x", "y"]
    assert fusion.fused(["a", "b"], []) == ["a", "b"]


def test_the_words_first_stays_first_when_meaning_also_holds_it() -> None:
    # fusion alone would lift `c` (both lists hold it) above `a`
    assert fusion.fused(["a", "b", "c"], ["c", "x", "a"]) == ["a", "c", "b", "x"]
    # held beyond the fused neighbours, but within AGREEING: it still leads
    far = [f"m{i}" for i in range(fusion.AGREEING - 1)] + ["a"]
    order = fusion.fused(["a", "m0"], far)
    assert order[0] == "a" and set(order) == {"a", *far[: fusion.FUSED]}
    # out of meaning's AGREEING nearest: fusion decides alone
    assert fusion.fused(["a", "m0"], [*far[:-1], "z", "a"])[0] == "m0"


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


def routed(**request: object) -> route.Route:
    return route.assemble(INDEX, Taxonomy(), route.Request(task=TASK, **request))  # type: ignore[arg-type]


def test_without_neighbours_the_route_is_the_lexical_one() -> None:
    assert routed() == routed(neighbours=())


def test_a_neighbour_no_word_reaches_is_offered_with_evidence_by_meaning() -> None:
    lexical = [p.entry.id for p in routed().pointers]
    answer = routed(neighbours=(N("onboarding", "summary"), N("webhooks", "summary")))
    ids = [p.entry.id for p in answer.pointers]
    assert ids[0] == "webhooks" and "onboarding" in ids and set(lexical) <= set(ids)
    found = next(p for p in answer.pointers if p.entry.id == "onboarding")
    assert found.evidence == {"by": "meaning", "near": "summary", "rank": 1, "of": 4}
    line = render.evidence_line(found.evidence)
    assert "near the task in meaning (its summary), rank 1 of 4" in line
    assert "0." not in line  # no similarity value is shown


def test_filters_apply_to_neighbours_and_unknown_ids_are_ignored() -> None:
    answer = routed(kind="doc", neighbours=(N("onboarding", "summary"), N("gone", "summary")))
    assert "onboarding" not in [p.entry.id for p in answer.pointers]


def test_meaning_never_breaks_the_silence_of_the_words() -> None:
    quiet = route.assemble(
        INDEX,
        Taxonomy(),
        route.Request(task="add a CITATION.cff file", neighbours=(N("onboarding", "summary"),)),
    )
    assert quiet.pointers == () and quiet.silence is not None
