"""The route ranker (DESIGN 5.1): BM25F over tier-weighted fields, and what reached each entry.

The score orders candidates and is never shown; what a pointer shows is which task words
reached it and in which field (or body section) each one did.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy

from router.core import deadline, text
from router.ranking import bm25f, codeword, stemmer, term, wordlist
from router.ranking.field import BODY, TIER_NAMES, Field, section_words
from router.ranking.index import Index
from router.ranking.posting import IMPACT_STEP
from router.ranking.term import Term

# A pasted log holds hundreds of words; the few most specific ones decide the route, and
# reading every posting of the rest would cost the whole catalog.
MAX_TERMS = 32
# A long task (a pasted log, a diff, 5,000 words) is routed on its most specific few dozen
# terms (`of_task`): the rest rule out little, and weighing each against every candidate
# costs in proportion to the task. A typed task (the judged sets hold at most 39 terms) keeps
# every term. Paths are anchors whatever this keeps.
MAX_QUERY_TERMS = 48
# A term more than half of a large catalog holds rules out little (idf under ln 2), and
# reading its posting would cost a pass over most of the index: it is left out unless the
# task has no other. Small catalogs keep every term.
COMMON_POSTING = 1000
# A term taken from a path counts for less than one the task writes out: the path already
# anchors the entries that govern it.
WEAK_TERM_WEIGHT = 0.5
# The last word of a type name no entry holds (`context` of a new `ReaderStateContext`) says
# what kind of thing the task is about, and a catalog's documents are about kinds of things;
# the name's other words (`reader`, `state`) only qualify it. Counted as two of the word.
HEAD_WEIGHT = 2.0


@dataclass(frozen=True, slots=True)
class Weighted:
    """A task term with its catalog statistics."""

    term: Term
    df: int
    idf: float
    # the head of a type name no entry holds (see HEAD_WEIGHT): it scores as more than its
    # idf, but silence judges how specific the task is by the idf alone
    head: bool = False

    @property
    def weight(self) -> float:
        """Return what one unit of the term's impact adds to a score."""
        return self.idf * HEAD_WEIGHT if self.head else self.idf


@dataclass(frozen=True, slots=True)
class Reach:
    """Which task words reached one entry, grouped by the field each reached first."""

    words: tuple[str, ...]  # task words, task order
    fields: tuple[tuple[str, tuple[str, ...]], ...]  # (field label, words), best field first
    # (task word, tier of the field it reached; the body's tier when that field holds the word
    # only inside a code identifier: what silence weighs it by)
    tiers: tuple[tuple[str, int], ...] = ()
    notes: tuple[str, ...] = ()  # ids of the curated notes a term reached, notes' order

    @property
    def field(self) -> str:
        """Return the field the most specific reach landed in (the first group)."""
        return self.fields[0][0] if self.fields else ""


def weigh(index: Index, terms: Iterable[Term]) -> tuple[Weighted, ...]:
    """Return the task's terms with their df and idf, task order kept, but for the forms no
    entry holds (`held`)."""
    n = max(index.size, 1)
    return tuple(
        Weighted(t, *_statistics(index, t, n), _head(index, t)) for t in held(index, terms)
    )


def held(index: Index, terms: Iterable[Term]) -> tuple[Term, ...]:
    """Return the terms but the forms (`Term.form`) no entry holds: a code form or a function
    word is a term only where the catalog writes it so, and elsewhere it would count as a
    word the catalog lacks."""
    return tuple(t for t in terms if not t.form or index.stem_df(t.stem))


def of_task(index: Index, task: str, limit: int = MAX_QUERY_TERMS) -> tuple[Weighted, ...]:
    """Return the weighed terms a route reads of a task: all its route terms up to `limit`,
    else the `limit` most specific (terms some entry holds first, highest idf first, task
    order on ties), in task order."""
    terms = held(index, term.of_task(task))
    if len(terms) <= limit:
        return weigh(index, terms)
    n = max(index.size, 1)
    stats = [_statistics(index, t, n) for t in terms]
    ordered = sorted(range(len(terms)), key=lambda i: (stats[i][0] == 0, -stats[i][1], i))
    return tuple(
        Weighted(terms[i], *stats[i], _head(index, terms[i])) for i in sorted(ordered[:limit])
    )


def _head(index: Index, t: Term) -> bool:
    """Return whether a term is the head of a type name no entry holds (HEAD_WEIGHT): a
    name the catalog holds reaches its entries itself."""
    return bool(t.of_name) and not t.weak and index.stem_df(t.of_name) == 0


def _statistics(index: Index, t: Term, n: int) -> tuple[int, float]:
    """Return a term's df and idf over an index of `n` entries."""
    df = index.stem_df(t.stem)
    return df, bm25f.idf(n, df) * (WEAK_TERM_WEIGHT if t.weak else 1.0)


def scoring(weighted: Sequence[Weighted], n: int) -> tuple[Weighted, ...]:
    """Return the terms a route scores with over `n` entries: those some entry holds, but
    for the common ones of a large catalog (see COMMON_POSTING), at most MAX_TERMS of them,
    the most specific first (task order on ties)."""
    held = [w for w in weighted if w.df > 0]
    held = [w for w in held if not (w.df > COMMON_POSTING and 2 * w.df > n)] or held
    ordered = sorted(enumerate(held), key=lambda p: (-p[1].idf, p[0]))
    return tuple(w for _, w in ordered[:MAX_TERMS])


def scores(
    index: Index,
    weighted: Sequence[Weighted],
    keep: int | None = None,
    must: Iterable[int] = (),
    stop: deadline.Stop | None = None,
) -> tuple[dict[int, float], int]:
    """Return slot -> BM25F score of the entries the scoring terms reach, and how many
    entries they reach (those in `must` included). Raises deadline.AbandonedError when `stop`,
    asked before each term's posting is read, says to stop.

    With `keep`, only the best `keep` entries (and whatever ties the last of them) come
    out, beside the entries in `must`, which are scored on every term (they come out at 0
    when no term reaches them). Without it, every entry reached comes out. Action words
    only add to the entries other terms reach, unless the task has no other."""
    # An action ("add", "fix") ranks an entry the task's subject reaches (a record titled
    # "Add X" is about adding) but brings none in: in "add an llms.txt", an entry only "add"
    # reaches is no candidate. Actions come last, and from `lifting` on a term only adds to
    # the entries already reached; a task of actions alone is ranked by them.
    ordered = sorted(weighted, key=lambda w: (w.term.word in wordlist.ACTION_WORDS, -w.idf))
    lifting = sum(1 for w in ordered if w.term.word not in wordlist.ACTION_WORDS) or len(ordered)
    # Term at a time over dense arrays: a common word's posting holds tens of thousands of
    # entries, and adding it in compiled code costs a nanosecond or two an entry where a
    # dict in Python costs fifty. Each entry's sum is taken in the same order, of the same
    # products, as a loop in Python would: the scores are the same floats.
    size = index.slots_end
    totals = numpy.zeros(size)
    reached = numpy.zeros(size, dtype=bool)
    kept = numpy.fromiter(set(must), dtype=numpy.intp)
    reached[kept] = True
    for i, w in enumerate(ordered):
        deadline.check(stop)
        slots, added = _contributions(index, w)
        totals[slots] += added  # an action adds to every entry, but shows only where ...
        if i < lifting:
            reached[slots] = True  # ... a subject word reached
    hit = numpy.flatnonzero(reached)
    count = len(hit)
    if keep is not None and count > keep:
        values = totals[hit]
        floor = numpy.partition(values, count - keep)[count - keep]
        hit = numpy.union1d(hit[values >= floor], kept)
    return dict(zip(hit.tolist(), totals[hit].tolist(), strict=True)), count


def totals_of(index: Index, weighted: Sequence[Weighted], slots: Iterable[int]) -> dict[int, float]:
    """Return slot -> BM25F score, the same float `scores` gives, of those of `slots` that a
    scoring term reaches (an action only where the task has no other word, as in `scores`);
    the others are left out."""
    ordered = sorted(weighted, key=lambda w: (w.term.word in wordlist.ACTION_WORDS, -w.idf))
    lifting = sum(1 for w in ordered if w.term.word not in wordlist.ACTION_WORDS) or len(ordered)
    wanted = numpy.array(sorted(set(slots)), dtype=numpy.intp)
    totals = numpy.zeros(len(wanted))
    reached = numpy.zeros(len(wanted), dtype=bool)
    for i, w in enumerate(ordered):
        held, impacts = index.postings(w.term.stem)
        if not len(held):
            continue
        posted = numpy.asarray(held, dtype=numpy.int32)
        at = numpy.minimum(numpy.searchsorted(posted, wanted), len(posted) - 1)
        found = posted[at] == wanted
        steps = numpy.asarray(impacts, dtype=numpy.uint8)[at[found]]
        totals[found] += numpy.asarray(steps, dtype=numpy.float64) * (w.weight * IMPACT_STEP)
        if i < lifting:
            reached |= found
    return {int(s): float(t) for s, t, r in zip(wanted, totals, reached, strict=True) if r}


def _contributions(index: Index, w: Weighted) -> tuple[Any, Any]:
    """Return a term's posting as arrays: the slots (a copy) and what the term adds to each.

    Neither result shares memory with the index: a view of an array in the index would
    keep it from growing (an append to an exported array raises) for as long as it lived,
    say in the traceback of an abandoned route."""
    slots, impacts = index.postings(w.term.stem)
    added = numpy.asarray(impacts) * (w.weight * IMPACT_STEP)
    return numpy.array(slots, dtype=numpy.intp), added


def reach(index: Index, slot: int, weighted: Sequence[Weighted], sections: bool = True) -> Reach:
    """Return which of the terms reached the entry in `slot`, each in its best field: the
    highest tier holding it, the first such field of that tier.

    Without `sections`, a term only the body holds is reported as reaching `body`, read
    from the postings instead of the text (what silence needs, at a fraction of the cost).
    Function words are not read as reaching anything: the index leaves them out too."""
    indexed = index.slot(slot)
    wanted = {w.term.stem for w in weighted}
    stem = stemmer.stem
    fields: list[Field] = list(indexed.fields)
    function = wordlist.FUNCTION_WORDS
    stems_of: list[set[str]] = []
    only_parts: list[set[str]] = []  # held only inside a code identifier: less than its tier
    probe_of = _probes(frozenset(wanted))
    # a word folding onto a stem starts with its probe: only those are stemmed
    starts = tuple(set(probe_of.values()))
    for f in fields:
        held = {stem(x) for x in f.tokens if x.startswith(starts) and x not in function}
        held &= wanted
        inside = {stem(x) for x in f.parts.split() if x.startswith(starts) and x not in function}
        inside &= wanted
        inside -= held
        stems_of.append(held | inside)
        only_parts.append(inside)
    found = set().union(*stems_of)
    if indexed.entry.body and not wanted <= found and not sections:
        in_body = {s for s in wanted - found if holds(index, slot, s)}
        fields.append(Field(BODY, "body", "", ()))
        stems_of.append(in_body)
        only_parts.append(set())
    elif indexed.entry.body and not wanted <= found:
        # the body is read only for what the fields above it did not hold, and a section word
        # by word only when its letters hold one of those stems' probes (a C-level search:
        # most sections of a long body hold none); a section's heading counts as its words
        # (the ranker indexes it so)
        # A stem the entry's postings lack is in no section either (they are read from the
        # same words), and is not looked for: most of a shown entry's body then goes unread.
        # Only the stems of words the index drops (stopwords, one character) may be in a
        # section and not in the postings.
        todo = {
            s: probe_of[s]
            for s in wanted - found
            if s in _UNPOSTED or len(s) == 1 or holds(index, slot, s)
        }
        for section in indexed.entry.body:
            if not todo:
                break
            raw = section_words(section)
            probes = tuple(todo.values())
            lower = None
            if raw.isascii():  # lowercasing a part alone can differ elsewhere (final sigma)
                lower = raw.lower()
                if not any(p in lower for p in probes):
                    continue
            normal = text.normalize(raw)
            # a word folding onto a stem starts with its probe: only those are stemmed, and
            # they are found by one search of the section's words, not a loop over them
            held = _words_starting(normal, probes) - function
            reached = {stem(x) for x in held} & todo.keys()
            # the words inside its identifiers and its code forms (`codeword.parts`, a dozen
            # searches of the section) only for the stems its words did not reach, and
            # only when the section's letters hold one of their probes
            left = tuple(p for s, p in todo.items() if s not in reached)
            if left and (lower is None or any(p in lower for p in left)):
                held = _words_starting(codeword.parts(raw), left) - function
                reached |= {stem(x) for x in held} & todo.keys()
            if reached:
                fields.append(Field(BODY, "body", normal, (), None, section.label))
                stems_of.append(reached)
                only_parts.append(set())
                for s in reached:
                    del todo[s]
                if not todo:
                    break
    groups: dict[str, list[str]] = {}
    tiers: list[tuple[str, int]] = []
    noted: set[str] = set()
    words: list[str] = []
    for w in sorted(weighted, key=lambda w: -w.idf):
        at = next((i for i, held in enumerate(stems_of) if w.term.stem in held), None)
        if at is None:
            continue
        best = fields[at]
        words.append(w.term.word)
        tiers.append((w.term.word, BODY if w.term.stem in only_parts[at] else best.tier))
        if best.note is not None:
            noted.add(best.note)
        groups.setdefault(best.label, []).append(w.term.word)
    order = {w.term.word: place for place, w in enumerate(weighted)}
    ranked_groups = sorted(
        groups.items(), key=lambda g: (_tier_of(g[0], fields), min(order[x] for x in g[1]))
    )
    return Reach(
        tuple(sorted(words, key=order.__getitem__)),
        tuple((label, tuple(sorted(ws, key=order.__getitem__))) for label, ws in ranked_groups),
        tuple(sorted(tiers, key=lambda p: order[p[0]])),
        tuple(n.id for n in indexed.entry.notes if n.id in noted),
    )


# the stems of the words the index drops however often a body says them (`term.read`)
_UNPOSTED = frozenset(stemmer.stem(word) for word in text.STOPWORDS)


@functools.lru_cache(maxsize=1024)
def _probes(stems: frozenset[str]) -> dict[str, str]:
    """Return each stem's probe (`stemmer.probe`): a route's pointers all ask for the same."""
    return {s: stemmer.probe(s) for s in stems}


# Up to this many probes, a section's words that start with one are found by one search;
# a pattern of more (a long task's) costs more to make and to run than a look at each word.
FEW_PROBES = 8


def _words_starting(words: str, probes: tuple[str, ...]) -> set[str]:
    """Return the space-separated words of `words` that start with one of `probes`."""
    if len(probes) > FEW_PROBES:
        return {x for x in words.split() if x.startswith(probes)}
    return set(_starting(tuple(sorted(probes))).findall(f" {words}"))


@functools.lru_cache(maxsize=4096)
def _starting(probes: tuple[str, ...]) -> re.Pattern[str]:
    """Return the pattern finding, in a text of space-separated words opened by a space, the
    words that start with one of `probes` (each whole, as `str.split` cuts them). Opening
    with a space, it is tried at the spaces alone."""
    either = "|".join(re.escape(p) for p in sorted(probes, key=len, reverse=True))
    return re.compile(rf" ((?:{either})\S*)")


def _tier_of(label: str, fields: Sequence[Field]) -> int:
    return next((f.tier for f in fields if f.label == label), len(TIER_NAMES))


def holds(index: Index, slot: int, stem: str) -> bool:
    """Return whether the entry in `slot` holds `stem` (a binary search of its posting)."""
    slots, _ = index.postings(stem)
    at = bisect_left(slots, slot)
    return at < len(slots) and slots[at] == slot
