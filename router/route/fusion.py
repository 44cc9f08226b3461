"""Fusing the words' ranking with neighbours by meaning (the `meaning` extra, mode `live`).

The rule is a weighted sum of standardised scores over the union of candidates: the entries
the task's words reach (their best DEPTH) and meaning's DEPTH nearest. Within the route, each
view's scores over that union are turned into z-scores (less their mean, over their standard
deviation), and an entry's fused score is WORDS_WEIGHT times its words' z-score plus the rest
of one times its meaning z-score. An entry no word reaches has a words score of 0; every entry
of the union has its similarity. Rank fusion would read places only, and throw away how far
apart the candidates are; z-scores keep it, whatever scale a model's similarities have.

Ties keep the words' order first, then meaning's. One rule on top, which the suite keeps:
the words' first entry stays first when meaning's AGREEING nearest hold it too. Pure: a
function of the scores it is given.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

# How deep each view is read: the words' best and meaning's nearest that make the union.
# 20, 30 and 50 were measured (README, Meaning); 50 gave the best held-out hit@5.
DEPTH = 50
# The words' first stays first when meaning's AGREEING nearest hold it: both views then say
# it bears on the task. Without it, fusion cost headwater two first places of 35 and adr one
# (README, Meaning), at every weight measured.
AGREEING = 20
# The words' share of the fused score, meaning's the rest (chosen on the suite, leaving each
# catalog out in turn: README, Meaning).
WORDS_WEIGHT = 0.5
# The weights `kroute eval --suite --meaning` chooses among, each catalog left out in turn.
WEIGHTS = tuple(round(0.1 * i, 1) for i in range(11))
EVEN = 1e-9  # a spread this small beside the values' size is rounding, not a difference
SHOWN = 10  # the neighbours a route's answer lists (what the shadow log compares)


@dataclass(frozen=True, slots=True)
class Neighbour:
    """An entry near the task by meaning: its id, the part of it the model read that is
    named in its evidence (`near`), and its similarity to the task (never shown)."""

    id: str
    near: str
    similarity: float = 0.0


@dataclass(frozen=True, slots=True)
class Nearness:
    """What meaning says of one task: its nearest entries, best first, and the similarity
    of any entry of the catalog to it (`similarity(id)`)."""

    nearest: tuple[Neighbour, ...]
    similarity: Callable[[str], float]

    def first(self, k: int) -> Nearness:
        """Return this nearness with only the first k nearest entries."""
        return Nearness(self.nearest[:k], self.similarity)


def standard(values: Sequence[float]) -> list[float]:
    """Return the z-scores of `values`: each less their mean, over their (population)
    standard deviation; all 0 when they are all equal (but for rounding: EVEN)."""
    if not values:
        return []
    mean = math.fsum(values) / len(values)
    spread = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
    if spread <= EVEN * max(abs(mean), 1.0):  # equal but for rounding: nothing to tell apart
        return [0.0] * len(values)
    return [(v - mean) / spread for v in values]


def scored(
    ids: Sequence[str],
    words: Mapping[str, float],
    similarity: Mapping[str, float],
    weight: float = WORDS_WEIGHT,
) -> list[tuple[str, float]]:
    """Return (id, fused score) of `ids` (the union, in tie order: the words' order, then
    meaning's), best first: `weight` times the z-score of their words score (0 for an id
    `words` lacks) plus 1 - weight times the z-score of their similarity; ties keep the
    order given."""
    lexical = standard([words.get(i, 0.0) for i in ids])
    meaning = standard([similarity[i] for i in ids])
    score = [weight * w + (1.0 - weight) * m for w, m in zip(lexical, meaning, strict=True)]
    order = sorted(range(len(ids)), key=lambda i: (-score[i], i))
    return [(ids[i], score[i]) for i in order]


def fused(
    ids: Sequence[str],
    words: Mapping[str, float],
    similarity: Mapping[str, float],
    weight: float = WORDS_WEIGHT,
    lead: str | None = None,
) -> list[str]:
    """Return `ids` best first by their fused score (`scored`), `lead` first whatever its
    score: the words' first, when meaning's AGREEING nearest hold it too."""
    order = [i for i, _ in scored(ids, words, similarity, weight)]
    if lead is not None and lead in order:
        order.remove(lead)
        order.insert(0, lead)
    return order
