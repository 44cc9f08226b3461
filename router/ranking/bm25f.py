"""The route ranker's weights: BM25F over tier-weighted fields (DESIGN 5.1).

An entry's text is read tier by tier (structured routing fields, family text, open_first,
notes, body). A term's pseudo-frequency in an entry is the sum over tiers of the tier's
weight times the term's count there, each tier's count normalized by the tier's length; it
saturates as BM25 does. Length is measured against fixed reference lengths rather than the
catalog's average, so an entry's impact depends on that entry alone: an index updated one
file at a time ranks exactly as one loaded cold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TypeVar

import numpy

T = TypeVar("T", float, numpy.ndarray)

# Per tier: structured, family_text, open_first, notes, body. A body match never outweighs
# the same term in a title or summary, and routing fields weigh most (DESIGN 5.1).
TIER_WEIGHTS = (4.0, 3.0, 1.5, 1.5, 0.7)
# Typical lengths (terms) of each tier's text; a tier longer than this counts each of its
# occurrences for less.
REFERENCE_LENGTHS = (12.0, 30.0, 20.0, 20.0, 400.0)
# Saturation. At BM25's usual 1.2 a word's count saturated so fast that where it stood hardly
# mattered: two common words a long body mentions once outranked the title naming the
# task's subject. 2.0 raised hit@1 and MRR on every judged set (README); 3 cost first places.
K1 = 2.0
# Per tier, how far a tier's length discounts its counts. Fields are short and their length
# says little; a body's length says how much else it is about (BM25's usual 0.75).
B = (0.3, 0.3, 0.3, 0.3, 0.75)
# What one occurrence in a field counts, as a share of the tier's weight, where not 1. An id
# or a file path mostly repeats the title's words (slug ids, file names): counted in full,
# a slug's title would count three times against a numbered record's once.
FIELD_SHARES = {"id": 0.25, "path": 0.25}


def share(field: str) -> float:
    """Return what one occurrence of a term in `field` counts within its tier."""
    return FIELD_SHARES.get(field, 1.0)


def frequencies(tiers: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Return stem -> BM25F pseudo-frequency for one entry, from its per-tier stem counts
    (in TIER_WEIGHTS' order, each occurrence counted at its field's share)."""
    pseudo: dict[str, float] = {}
    held = pseudo.get
    for tier, counts in enumerate(tiers):
        if not counts:
            continue
        length = sum(counts.values())
        b = B[tier]
        norm = TIER_WEIGHTS[tier] / (1 - b + b * length / REFERENCE_LENGTHS[tier])
        # each stem's sum in tier order, as a loop adding to `pseudo` would make it; a
        # stem first met here keeps its place after those met in earlier tiers
        pseudo.update({stem: held(stem, 0.0) + n * norm for stem, n in counts.items()})
    return pseudo


def saturated(tf: T) -> T:
    """Return BM25's saturation of a pseudo-frequency (a float or an array of them, the
    same operations in the same order either way): below K1 + 1, 1 at tf = 1."""
    return tf * (K1 + 1) / (tf + K1)


def idf(n: int, df: int) -> float:
    """Return BM25's idf, ln(1 + (N - df + 0.5) / (df + 0.5)): never negative."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))
