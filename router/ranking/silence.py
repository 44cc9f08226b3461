"""Silence for the route as a whole (DESIGN 5.1, 6 step 10): does the catalog cover the task?

A route speaks when one of its best candidates holds a word of the task's subject: the task's
own words, not those of a path it names, nor the actions every request carries. A request
for something no entry names needs more: the words it shares with the catalog must add up,
each counted by how much of the catalog it rules out and by how strong a field it reached.
Specificity comes from the catalog itself, not from a word list of English: what is rare
here is what routes here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from router.ranking import bm25f, rank, wordlist
from router.ranking.field import FAMILY_TEXT
from router.ranking.index import Index

LOOK = 3  # the candidates whose evidence decides: the top of what the agent would be shown
# How much a reach counts, by the tier of the field it reached (structured, family_text,
# open_first, notes, body): a title or summary says what a document is about; a body
# mention says less.
FIELD_STRENGTH = (1.0, 1.0, 0.6, 0.6, 0.35)
# When a request asks to make or change something no entry names ("an Alexa skill", "AWS
# WAF": `imperative.asked`), the words it shares with an entry are incidental unless they
# add up: the least evidence it speaks on is two terms one entry holds, in a title.
UNKNOWN_ASKED_FLOOR = 2.0
# ... unless the thing's words the catalog does know name a candidate's subject: this many of
# them in its title or summary ("Chrome extension" for "a Chrome extension popup").
KIND_WORDS = 2


def subject(weighted: Sequence[rank.Weighted]) -> list[rank.Weighted]:
    """Return the terms that say what the task is about: written out by the task (not only
    in a path) and not an action word."""
    return [w for w in weighted if not w.term.weak and w.term.word not in wordlist.ACTION_WORDS]


def evidence(index: Index, reach: rank.Reach, specific: Sequence[rank.Weighted]) -> float:
    """Return how much of the task's subject (`specific`, see `subject`) an entry holds,
    from what reached it: the sum over the subject terms it holds of idf times the strength
    of the field reached, in units of the idf of a term one entry holds."""
    reached = dict(reach.tiers)
    unit = bm25f.idf(max(index.size, 1), 1)
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
    asked: Sequence[Sequence[rank.Weighted]] = (),
) -> tuple[str, ...] | None:
    """Return None when the route speaks, else the task words no entry holds (possibly
    none: the catalog holds the task's words, but its best entries hold none of them, or
    too little beside a thing no entry names).

    When the task names a governed path (`anchored`), its path words have done their work:
    only the task's own words can add ranked pointers to the anchored ones. `asked` holds,
    word by word, the terms of what a change request asks for (`imperative.asked`): when
    one of them is a word no entry holds, the route speaks only on UNKNOWN_ASKED_FLOOR of
    evidence, or when a candidate's title holds KIND_WORDS of the thing's known words ("a
    Chrome extension popup" where an entry is about Chrome extensions)."""
    specific = subject(weighted)
    unknown = {w.term.stem for word in asked for w in word if w.df == 0 and not _action(w)}
    named = unknown | {w.term.stem for w in specific}
    missing = tuple(w.term.word for w in weighted if w.df == 0 and w.term.stem in named)
    if not top:
        return missing
    looked: list[rank.Reach] = []  # the top candidates' reaches, made once when first asked

    def reaches() -> list[rank.Reach]:
        if not looked:
            looked.extend(reach(slot) for slot in top[:LOOK])
        return looked

    if unknown:
        # a word the catalog lacks is unknown whole: the parts of `LiveView` name no kind
        kind = {w.term.stem for word in asked if all(w.df for w in word) for w in word}
        kind -= {w.term.stem for word in asked for w in word if _action(w)}
        stems = {w.term.word: w.term.stem for w in weighted}
        best = max(evidence(index, r, specific) for r in reaches())
        titled = max(_titled(r, kind, stems) for r in reaches())
        if best < UNKNOWN_ASKED_FLOOR and titled < KIND_WORDS:
            return missing
    if not specific:
        # nothing but actions and path words: a path word must reach something
        path_words = [] if anchored else [w for w in weighted if w.term.weak]
        return None if any(w.df > 0 for w in path_words) else missing
    # A catalog whose documents share one domain's words (a vendor's skills, a product's
    # manuals) holds the tasks it answers at low idf, where any floor on their sum silences
    # them: a best candidate holding a word of the subject is enough.
    held = any(rank.holds(index, s, w.term.stem) for s in top[:LOOK] for w in specific)
    return None if held else missing


def _action(w: rank.Weighted) -> bool:
    return w.term.word in wordlist.ACTION_WORDS


def _titled(reach: rank.Reach, kind: set[str], stems: dict[str, str]) -> int:
    """Return how many of the `kind` stems reached the entry in a title-strength field."""
    return sum(1 for word, tier in reach.tiers if tier <= FAMILY_TEXT and stems.get(word) in kind)
