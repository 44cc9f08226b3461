"""Fusing the lexical ranking with neighbours by meaning (the `meaning` extra, mode `live`).

The rule is reciprocal rank fusion: an entry scores 1 / (RRF_K + its rank) in each list that
holds it, and the sums order the fused list. It reads ranks, never similarity values, so a
similarity scale that differs from one model to the next cannot tilt it, and an entry both
lists hold rises above one only a list holds. Ties keep the lexical order first, then the
meaning order: an entry the task's words reach is never put behind an equal one only meaning
finds. Pure: a function of the two orders.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# The usual constant of reciprocal rank fusion: large enough that the first few places of
# either list weigh about alike, so one list's first place does not drown the other's.
RRF_K = 60


@dataclass(frozen=True, slots=True)
class Neighbour:
    """An entry near the task by meaning: its id, and the part of it the model read that
    is named in its evidence (`near`)."""

    id: str
    near: str


def fused(lexical: Sequence[str], meaning: Sequence[str]) -> list[str]:
    """Return the ids of both orders (each best first, no repeats) in fused order: by
    reciprocal rank fusion, ties in lexical order, then in meaning order."""
    score: dict[str, float] = {}
    for order in (lexical, meaning):
        for place, entry_id in enumerate(order, start=1):
            score[entry_id] = score.get(entry_id, 0.0) + 1.0 / (RRF_K + place)
    first = {entry_id: i for i, entry_id in enumerate(lexical)}
    later = {entry_id: i for i, entry_id in enumerate(meaning)}
    return sorted(
        score,
        key=lambda e: (-score[e], first.get(e, len(first)), later.get(e, len(later))),
    )
