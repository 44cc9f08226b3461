"""Four-tier scoring, terms weighted by what they rule out (DESIGN 5, seed 1).

This is the explain record's arithmetic; the order of route pointers is `rank`'s. Each tier
takes the maximum over its fields of a field score: exact, else phrase at word
boundaries, else per-token weight times the summed term weights of the task tokens the field
holds. An entry's score is the sum of its tiers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from router.core import text
from router.ranking import stemmer, wordlist
from router.ranking.field import NOTES, TIER_NAMES, Field, Indexed, body_fields
from router.ranking.index import Index

# (exact, phrase, per token) for structured, family_text, open_first, notes (seed 1), and
# body, below notes on each count: a body match never outweighs the same term elsewhere.
MATCH_POINTS = (
    (120.0, 80.0, 18.0),
    (32.0, 24.0, 6.0),
    (20.0, 16.0, 4.0),
    (18.0, 12.0, 3.0),
    (10.0, 8.0, 2.0),
)
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
    tiers: tuple[float, ...]  # structured, family_text, open_first, notes, body
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
    exact, phrase, per_token = MATCH_POINTS[tier]
    if fld.normal == q.normal:
        return exact
    if q.normal in fld.normal and text.holds_phrase(fld.normal, q.normal):
        return phrase
    return per_token * sum(w for t, w in q.weights.items() if t in fld.tokens)


def of_entry(q: Query, indexed: Indexed) -> Scored:
    """Return the score of one indexed entry (every field read, the body's too)."""
    return _assemble(q, (*indexed.fields, *body_fields(indexed.entry)), indexed)


def reached(index: Index, q: Query) -> list[Scored]:
    """Return the scores of every entry that some task token reaches, score above 0 only, in
    no particular order. Candidates come from the ranker's postings (a token's stem reaches
    every entry holding any form of it, a superset) and, for function words the postings
    leave out, from a scan of the entries; each candidate is then scored on every field."""
    slots: set[int] = set()
    scan: list[str] = []
    for token in q.tokens:
        if wordlist.is_function_word(token):
            scan.append(token)
        else:
            slots.update(index.postings(stemmer.stem(token))[0])
    if scan:
        for indexed in index:
            slot = index.slot_of(indexed.entry.id)
            if slot not in slots and _holds_any(indexed, scan):
                slots.add(slot)
    out = []
    for slot in slots:
        scored = of_entry(q, index.slot(slot))
        if scored.total > 0:
            out.append(scored)
    return out


def _holds_any(indexed: Indexed, tokens: list[str]) -> bool:
    if any(t in f.tokens for f in indexed.fields for t in tokens):
        return True
    return any(t in f.tokens for f in body_fields(indexed.entry) for t in tokens)


def _assemble(q: Query, fields: Sequence[Field], indexed: Indexed) -> Scored:
    tiers = [0.0] * len(TIER_NAMES)
    best_field = [""] * len(TIER_NAMES)
    note_best: dict[str, float] = {}
    for fld in fields:
        value = field_score(q, fld, fld.tier)
        if value > tiers[fld.tier]:
            tiers[fld.tier] = value
            best_field[fld.tier] = fld.name
        if fld.note is not None and value > note_best.get(fld.note, 0.0):
            note_best[fld.note] = value
    matched = tuple(n.id for n in indexed.entry.notes if n.id in note_best)[:MAX_NOTE_IDS]
    top = max(range(len(tiers)), key=lambda i: (tiers[i], -i))
    return Scored(
        indexed=indexed,
        total=sum(tiers),
        tiers=tuple(tiers),
        field=best_field[top] if tiers[top] > 0 else "",
        notes=matched if tiers[NOTES] > 0 else (),
        terms=frozenset(t for t in q.tokens if any(t in f.tokens for f in fields)),
    )
