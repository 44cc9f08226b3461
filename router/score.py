"""Four-tier scoring, terms weighted by what they rule out (DESIGN 5, seed 1).

Each tier takes the maximum over its fields of a field score: exact, else phrase at word
boundaries, else per-token weight times the summed term weights of the task tokens the field
holds. An entry's score is the sum of its tiers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from router import text
from router.index import NOTES, TIER_NAMES, Field, Index, Indexed, positions

# (exact, phrase, per token) for structured, family_text, open_first, notes.
TIER_WEIGHTS = ((120.0, 80.0, 18.0), (32.0, 24.0, 6.0), (20.0, 16.0, 4.0), (18.0, 12.0, 3.0))
MAX_NOTE_IDS = 8


@dataclass(frozen=True, slots=True)
class Query:
    """A task as scoring reads it."""

    normal: str
    tokens: tuple[str, ...]
    weights: dict[str, float]


@dataclass(frozen=True, slots=True)
class Scored:
    """One entry's score, its breakdown and what reached it."""

    indexed: Indexed
    total: float
    tiers: tuple[float, float, float, float]
    field: str  # the field that gave the highest tier
    notes: tuple[str, ...]  # matched note ids, at most 8, notes' order
    terms: frozenset[str]  # task tokens the entry's fields hold

    def breakdown(self) -> dict[str, float]:
        """Return the tier scores by tier name, unrounded."""
        return dict(zip(TIER_NAMES, self.tiers, strict=True))


def query(index: Index, task: str) -> Query:
    """Return the query of a task against the index's current term weights."""
    normal = text.normalize(task)
    tokens = text.tokens_of_normal(normal)
    return Query(normal, tokens, {t: index.weight(t) for t in tokens})


def field_score(q: Query, fld: Field, tier: int) -> float:
    """Return one field's score for the query: exact, phrase, or per token."""
    exact, phrase, per_token = TIER_WEIGHTS[tier]
    if fld.normal == q.normal:
        return exact
    if q.normal in fld.normal and text.holds_phrase(fld.normal, q.normal):
        return phrase
    return per_token * sum(w for t, w in q.weights.items() if t in fld.tokens)


def entry(q: Query, indexed: Indexed) -> Scored:
    """Return the score of one indexed entry (every field read)."""
    return _assemble(q, indexed, range(len(indexed.fields)))


def reached(index: Index, q: Query, slots: Iterable[int] | None = None) -> list[Scored]:
    """Return the scores of every entry that some task token reaches (or of `slots` only),
    score above 0 only, in no particular order. Only the fields that hold a task token are
    scored: any other field scores 0, since exact and phrase matches need every task token."""
    touched: dict[int, int] = {}
    if slots is None:
        for token in q.tokens:
            for slot, held in index.postings(token).items():
                touched[slot] = touched.get(slot, 0) | held
    else:
        postings = [index.postings(token) for token in q.tokens]
        for slot in slots:
            mask = 0
            for posting in postings:
                mask |= posting.get(slot, 0)
            touched[slot] = mask
    out = []
    for slot, mask in touched.items():
        scored = _assemble(q, index.slot(slot), positions(mask))
        if scored.total > 0:
            out.append(scored)
    return out


def totals(index: Index, q: Query, slots: Iterable[int] | None = None) -> list[tuple[float, int]]:
    """Return (score, slot) for every entry some task token reaches (or `slots` only) whose
    score is above 0: the same score `entry` gives, without its breakdown. Routes score every
    candidate this way and build the breakdown only for the pointers they offer."""
    postings = [(index.postings(t), w) for t, w in q.weights.items()]
    if slots is None:
        slots = {slot for posting, _ in postings for slot in posting}
    out = []
    for slot in slots:
        sums: dict[int, float] = {}
        for posting, weight in postings:
            mask = posting.get(slot, 0)
            while mask:
                low = mask & -mask
                position = low.bit_length() - 1
                mask ^= low
                sums[position] = sums.get(position, 0.0) + weight
        fields = index.slot(slot).fields
        tiers = [0.0, 0.0, 0.0, 0.0]
        for position, weighted in sums.items():
            fld = fields[position]
            exact, phrase, per_token = TIER_WEIGHTS[fld.tier]
            if fld.normal == q.normal:
                value = exact
            elif q.normal in fld.normal and text.holds_phrase(fld.normal, q.normal):
                value = phrase
            else:
                value = per_token * weighted
            if value > tiers[fld.tier]:
                tiers[fld.tier] = value
        total = tiers[0] + tiers[1] + tiers[2] + tiers[3]
        if total > 0:
            out.append((total, slot))
    return out


def _assemble(q: Query, indexed: Indexed, positions: Iterable[int]) -> Scored:
    tiers = [0.0, 0.0, 0.0, 0.0]
    best_field = ["", "", "", ""]
    note_best: dict[str, float] = {}
    fields = indexed.fields
    for position in positions:
        fld = fields[position]
        value = field_score(q, fld, fld.tier)
        if value > tiers[fld.tier]:
            tiers[fld.tier] = value
            best_field[fld.tier] = fld.name
        if fld.note is not None and value > note_best.get(fld.note, 0.0):
            note_best[fld.note] = value
    matched = tuple(n.id for n in indexed.entry.notes if n.id in note_best)[:MAX_NOTE_IDS]
    top = max(range(4), key=lambda i: (tiers[i], -i))
    return Scored(
        indexed=indexed,
        total=sum(tiers),
        tiers=(tiers[0], tiers[1], tiers[2], tiers[3]),
        field=best_field[top] if tiers[top] > 0 else "",
        notes=matched if tiers[NOTES] > 0 else (),
        terms=frozenset(t for t in q.tokens if any(t in f.tokens for f in indexed.fields)),
    )
