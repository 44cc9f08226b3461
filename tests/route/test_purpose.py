"""Purposes: what a task's words point at, and the order the budget takes candidates in."""

from __future__ import annotations

from dataclasses import dataclass

from router.catalog.entry import Entry
from router.catalog.taxonomy import Purpose, Taxonomy
from router.route import purpose

TAXONOMY = Taxonomy(
    purposes=(
        Purpose("rationale", "explain why a choice was made", ("why is it this way",)),
        Purpose("procedure", "walk through the steps of a task", ("how do I do this",)),
    ),
    kinds=(("decision", "rationale"), ("how_to", "procedure"), ("runbook", "procedure")),
)


@dataclass(frozen=True)
class Ranked:
    entry: Entry


def ranked(*kinds: str) -> list[Ranked]:
    return [
        Ranked(Entry(id=f"{k}{i}", kind=k, path=f"{i}.md", file=f"{i}.md"))
        for i, k in enumerate(kinds)
    ]


def test_answer_words_outscore_intent_words_and_shared_words_score_nothing() -> None:
    assert purpose.matched(TAXONOMY, ["steps", "why"]) == (
        ("rationale", purpose.ANSWER_POINTS),
        ("procedure", purpose.INTENT_POINTS),
    )
    assert purpose.matched(TAXONOMY, ["task"]) == (("procedure", purpose.INTENT_POINTS),)
    assert purpose.matched(Taxonomy(), ["why"]) == ()


def test_score_order_takes_the_first_and_turns_put_the_matched_purpose_first() -> None:
    cands = ranked("how_to", "runbook", "how_to", "decision")
    assert [c.entry.id for c in purpose.turns(cands, TAXONOMY, (), "score", 3)] == [
        "how_to0",
        "runbook1",
        "how_to2",
    ]
    turns = purpose.turns(cands, TAXONOMY, (("rationale", 3),), "turns", 3)
    assert [c.entry.id for c in turns] == ["decision3", "how_to0", "runbook1"]
    diverse = purpose.turns(cands, TAXONOMY, (("rationale", 3),), "diverse", 3)
    assert [c.entry.id for c in diverse] == ["how_to0", "decision3", "runbook1"]
