"""Silence for the route as a whole (DESIGN 5.1, 6 step 10): does the catalog cover the task?

A wrong pointer costs more than a missing one, so a route speaks only when one of its best
candidates holds enough of what is specific in the task: the task's own words (not those
of a path it names, nor the actions every request carries), each counted by how much of
the catalog it rules out and by how strong a field it reached. Specificity comes from the
catalog itself, not from a word list of English: what is rare here is what routes here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from router.core import rank, term, weight
from router.core.index import Index

LOOK = 3  # the candidates whose evidence decides: the top of what the agent would be shown
# How much a reach counts, by the tier of the field it reached (structured, family_text,
# open_first, notes, body): a title or summary says what a document is about; a body
# mention says less.
FIELD_STRENGTH = (1.0, 1.0, 0.6, 0.6, 0.35)
# The least evidence a route speaks on, in units of the idf of a term one entry holds:
# three quarters of one such term in a title, or two rarer ones in a body.
EVIDENCE_FLOOR = 0.75
# A task with this few specific words is too short to judge by coverage: it speaks when
# anything reaches it (a terse "why Rust over Go?").
FEW_WORDS = 2
# When a request asks to make or change something no entry names ("an Alexa skill", "AWS
# WAF": `imperative.asked`), the words it shares with an entry are incidental unless they
# add up: the least evidence it speaks on is two terms one entry holds, in a title.
UNKNOWN_ASKED_FLOOR = 2.0


def subject(weighted: Sequence[rank.Weighted]) -> list[rank.Weighted]:
    """Return the terms that say what the task is about: written out by the task (not only
    in a path) and not an action word."""
    return [w for w in weighted if not w.term.weak and w.term.word not in term.ACTION_WORDS]


def evidence(index: Index, reach: rank.Reach, specific: Sequence[rank.Weighted]) -> float:
    """Return how much of the task's subject (`specific`, see `subject`) an entry holds,
    from what reached it: the sum over the subject terms it holds of idf times the strength
    of the field reached, in units of the idf of a term one entry holds."""
    reached = dict(reach.tiers)
    unit = weight.idf(max(index.size, 1), 1)
    total = sum(
        w.idf * FIELD_STRENGTH[reached[w.term.word]] for w in specific if w.term.word in reached
    )
    return total / unit


def lacking(
    index: Index,
    weighted: Sequence[rank.Weighted],
    top: Sequence[int],
    reach: Callable[[int], rank.Reach],
    anchored: bool = False,
    asked: Sequence[rank.Weighted] = (),
) -> tuple[str, ...] | None:
    """Return None when the route speaks, else the task words no entry holds (possibly
    none: the catalog holds the task's words, but no entry holds enough of them).

    When the task names a governed path (`anchored`), its path words have done their work:
    only the task's own words can add ranked pointers to the anchored ones. `asked` are the
    terms of what a change request asks for (`imperative.asked`); when one of them is a word
    no entry holds, the route needs UNKNOWN_ASKED_FLOOR of evidence to speak."""
    specific = subject(weighted)
    unknown = {w.term.stem for w in asked if w.df == 0 and w.term.word not in term.ACTION_WORDS}
    named = unknown | {w.term.stem for w in specific}
    missing = tuple(w.term.word for w in weighted if w.df == 0 and w.term.stem in named)
    if not top:
        return missing
    if unknown:
        best = max((evidence(index, reach(slot), specific) for slot in top[:LOOK]), default=0.0)
        if best < UNKNOWN_ASKED_FLOOR:
            return missing
    if not specific:
        # nothing but actions and path words: a path word must reach something
        path_words = [] if anchored else [w for w in weighted if w.term.weak]
        return None if any(w.df > 0 for w in path_words) else missing
    if len(specific) <= FEW_WORDS:
        held = any(rank.holds(index, s, w.term.stem) for s in top[:LOOK] for w in specific)
        return None if held else missing
    best = max(evidence(index, reach(slot), specific) for slot in top[:LOOK])
    return None if best >= EVIDENCE_FLOOR else missing
