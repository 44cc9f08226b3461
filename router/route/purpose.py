"""Purposes (DESIGN 6 steps 4 and 7): which purposes of the taxonomy a task's words point
at, and the order in which the budget takes candidates by purpose and kind (`turns`,
`diverse`). Pure: a function of the taxonomy and its arguments."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Protocol, TypeVar

from router.catalog.entry import Entry
from router.catalog.taxonomy import Taxonomy, declaration_tokens
from router.core import text

ANSWER_POINTS = 3  # a separating term the purpose's answers hold
INTENT_POINTS = 1  # a separating term only its intent holds


class Ranked(Protocol):
    """A ranked candidate: what `turns` reads of one."""

    @property
    def entry(self) -> Entry: ...


C = TypeVar("C", bound=Ranked)


Words = dict[str, frozenset[str]]


@functools.lru_cache(maxsize=8)
def _declarations(taxonomy: Taxonomy) -> tuple[Words, Words, Words]:
    """Return per purpose the words of its whole declaration, of its answers and of its
    intent (once per taxonomy: a route asks for them every time)."""
    purposes = taxonomy.purposes
    declared = {p.name: declaration_tokens(p) for p in purposes}
    answers = {p.name: frozenset(text.normalize(" ".join(p.answers)).split()) for p in purposes}
    intents = {p.name: frozenset(text.normalize(p.intent).split()) for p in purposes}
    return declared, answers, intents


@functools.lru_cache(maxsize=8)
def _points(taxonomy: Taxonomy) -> dict[str, tuple[tuple[str, int], ...]]:
    """Return per word what it scores for each purpose (DESIGN 6 step 4): ANSWER_POINTS for
    a purpose whose answers hold it, else INTENT_POINTS for one whose intent does; none for
    a word every purpose's declaration holds (it separates none). Once per taxonomy: a long
    task's every word is looked up."""
    declared, answers, intents = _declarations(taxonomy)
    table: dict[str, tuple[tuple[str, int], ...]] = {}
    for token in set().union(*answers.values(), *intents.values()):
        if all(token in words for words in declared.values()):
            continue
        hits = []
        for name in declared:
            if token in answers[name]:
                hits.append((name, ANSWER_POINTS))
            elif token in intents[name]:
                hits.append((name, INTENT_POINTS))
        table[token] = tuple(hits)
    return table


def matched(taxonomy: Taxonomy, tokens: Sequence[str]) -> tuple[tuple[str, int], ...]:
    """Return the matched purposes with their scores, best first (DESIGN 6 step 4)."""
    if len(taxonomy.purposes) < 2:
        return ()
    points = _points(taxonomy)
    scores = dict.fromkeys(_declarations(taxonomy)[0], 0)
    for token in tokens:
        for name, score in points.get(token, ()):
            scores[name] += score
    ranked = sorted(((n, s) for n, s in scores.items() if s > 0), key=lambda p: (-p[1], p[0]))
    return tuple(ranked)


def turns(
    ranked: Sequence[C],
    taxonomy: Taxonomy,
    matched: tuple[tuple[str, int], ...],
    order: str,
    limit: int,
) -> list[C]:
    """Return the first `limit` candidates in the order the budget takes them (DESIGN 6
    step 7)."""
    if order == "score":
        return list(ranked[:limit])
    by_purpose: dict[str, dict[str, list[C]]] = {}
    for c in ranked:  # dicts keep insertion order: groups come out by their best candidate
        kind = c.entry.kind
        by_purpose.setdefault(taxonomy.purpose_of(kind), {}).setdefault(kind, []).append(c)
    sequences = {
        name: _round_robin(list(kinds.values()), limit) for name, kinds in by_purpose.items()
    }
    names = list(sequences)
    if order == "turns":
        scored = [name for name, _ in matched if name in sequences]
        names = scored + [n for n in names if n not in scored]
    return _round_robin([sequences[n] for n in names], limit)


def _round_robin(groups: list[list[C]], limit: int) -> list[C]:
    """Return the first `limit` of the groups' items taken one from each group in turn,
    groups in order."""
    out: list[C] = []
    depth, total = 0, min(limit, sum(len(g) for g in groups))
    while len(out) < total:
        for group in groups:
            if depth < len(group):
                out.append(group[depth])
        depth += 1
    return out[:total]
