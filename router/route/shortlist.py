"""A route's candidates (DESIGN 6 steps 5-7): the admitted entries the task's words, its
triggers and the paths it names reach, with meaning's neighbours fused in, best first; in
the score order, only those close enough to the best."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from router.catalog.entry import Entry
from router.core import deadline
from router.ranking import bm25f, rank, silence, term, wordlist
from router.ranking.index import Index
from router.route import fusion, imperative
from router.route.contract import Request
from router.route.pointer import Candidate

# A skill-rules.json trigger that fires is its author saying "this prompt is for me": it counts
# as two of the rarest words, so that it outweighs one document sharing a couple of the words.
TRIGGER_WORDS = 2
# An entry governing a path the task names, that the task's words also reach, is one its
# author said applies to that file: that counts as one of the rarest words, so that it comes
# before an entry the same words reach that governs nothing named.
GOVERNS_WORDS = 1
# In the score order, a candidate scoring under this share of the first one's score matched
# the task marginally (a word or two, in a body): it is withheld rather than shown, so that
# such matches do not fill the budget after the few documents the task is about. The purpose
# orders offer each purpose's best however far below the first it is: that is what they are
# asked for.
RELATIVE_FLOOR = 0.5


@dataclass(frozen=True, slots=True)
class Ranking:
    """What the task's words and triggers reach among the admitted entries."""

    scoring: tuple[rank.Weighted, ...]
    fired: dict[int, list[tuple[str, str]]]  # slot -> triggers, admitted entries only
    candidates: tuple[Candidate, ...]  # best first
    reached: int  # how many entries were reached, of which the candidates are the best
    lacking: tuple[str, ...] | None  # set when the words were too weak to route on
    # candidates among meaning's nearest: slot -> (the neighbour, its place in its order)
    by_meaning: dict[int, tuple[fusion.Neighbour, int]] = field(default_factory=dict)
    unworded: frozenset[int] = frozenset()  # the candidates only meaning reached


def draw(
    index: Index,
    request: Request,
    weighted: Sequence[rank.Weighted],
    scoring: tuple[rank.Weighted, ...],
    admitted: Callable[[Entry], bool],
    fired: dict[int, list[tuple[str, str]]],
    anchored: int,
    governing: frozenset[int] = frozenset(),
    stop: deadline.Stop | None = None,
) -> Ranking:
    """Return the ranking of the admitted entries the words or a trigger reach. When no
    trigger fired and the words are too weak (`silence.lacking`), it reaches nothing and
    names the words no entry holds: the silence gate judges the route, not each entry.
    Raises deadline.AbandonedError when `stop` says to stop."""
    fired = {slot: hits for slot, hits in fired.items() if admitted(index.slot(slot).entry)}
    # Only the top of the score order is shown: score just enough of it, unless the focus
    # filter or an order by purpose needs to see every candidate.
    keep = None
    if request.order == "score" and request.focus is None and not request.filtering():
        keep = request.budget + anchored + silence.LOOK
        if request.meaning is not None:
            keep = max(keep, fusion.DEPTH)
    ranked, reached = _ranked(index, scoring, admitted, fired, keep, governing, stop)
    if fired:
        if request.meaning is not None:
            whole = Ranking(scoring, fired, tuple(ranked), reached, None)
            return _with_meaning(index, admitted, whole, request, {*fired, *governing})
        kept = close(ranked, {*fired, *governing}) if request.order == "score" else ranked
        return Ranking(scoring, fired, tuple(kept), reached, None)
    top = [c.slot for c in ranked[: silence.LOOK]]
    asked = imperative.asked(request.task)
    lacking = silence.lacking(
        index,
        weighted,
        top,
        lambda s: rank.reach(index, s, scoring, False),
        anchored > 0,
        [rank.weigh(index, term.of_task(word)) for word in asked.split()] if asked else (),
    )
    if lacking is not None:
        return Ranking(scoring, fired, (), 0, lacking)
    if request.meaning is not None:
        whole = Ranking(scoring, fired, tuple(ranked), reached, None)
        return _with_meaning(index, admitted, whole, request, governing)
    if request.order == "score":
        ranked = close(ranked, governing)
    return Ranking(scoring, fired, tuple(ranked), reached, None)


def close(
    ranked: Sequence[Candidate], kept: Iterable[int] = (), spared: Iterable[int] = ()
) -> list[Candidate]:
    """Return the candidates of a score order (best first) scoring at least RELATIVE_FLOOR of
    the best of them the words alone placed, and those whose slots are `kept` (an anchored
    entry, a fired trigger: an author's word, whose bonus is no measure of the others) or
    `spared` (near the task by meaning: the words' score is not all that placed them)."""
    always = set(kept)
    worded = [c.total for c in ranked if c.slot not in always]
    if not worded:
        return list(ranked)
    least = max(worded) * RELATIVE_FLOOR
    always.update(spared)
    return [c for c in ranked if c.total >= least or c.slot in always]


def _with_meaning(
    index: Index,
    admitted: Callable[[Entry], bool],
    ranking: Ranking,
    request: Request,
    kept: Iterable[int] = (),
) -> Ranking:
    """Return the ranking with the admitted neighbours by meaning fused in (`fusion`): the
    words' best fusion.DEPTH and meaning's nearest fusion.DEPTH in fused order (the words'
    first leading when meaning's fusion.AGREEING nearest hold it), then the rest of the
    words' order. The words' rule has judged the route worth answering; meaning reorders
    and adds. In the score order, `close` then withholds what the words reached marginally
    and meaning did not reach (`kept`: as in `close`)."""
    assert request.meaning is not None
    near: dict[str, tuple[fusion.Neighbour, int]] = {}
    for place, n in enumerate(request.meaning.nearest[: fusion.DEPTH], start=1):
        item = index.get(n.id)
        if item is not None and item.id == n.id and admitted(item) and n.id not in near:
            near[n.id] = (n, place)
    head = {c.entry.id: c for c in ranking.candidates[: fusion.DEPTH]}
    later = {c.entry.id: c for c in ranking.candidates[fusion.DEPTH :]}
    ids = [*head, *(i for i in near if i not in head)]
    # the words' scores of the neighbours their best did not hold, as `rank.scores` gives them
    outside = [index.slot_of(i) for i in ids if i not in head and i not in later]
    worded = rank.totals_of(index, ranking.scoring, outside)
    candidates: dict[str, Candidate] = {**head}
    unworded: set[int] = set()
    for entry_id in ids[len(head) :]:
        found = later.get(entry_id)
        if found is None:
            slot = index.slot_of(entry_id)
            found = Candidate(worded.get(slot, 0.0), index.slot(slot).entry, slot)
            if slot not in worded:
                unworded.add(slot)
        candidates[entry_id] = found
    similarity = {
        i: near[i][0].similarity if i in near else request.meaning.similarity(i) for i in ids
    }
    words = {i: c.total for i, c in candidates.items()}
    first = ranking.candidates[0].entry.id if ranking.candidates else None
    lead = first if first in near and near[first][1] <= fusion.AGREEING else None
    order = fusion.fused(ids, words, similarity, request.words_weight, lead)
    fused = [candidates[i] for i in order] + [c for i, c in later.items() if i not in near]
    by_meaning = {index.slot_of(i): found for i, found in near.items()}
    if request.order == "score":
        fused = close(fused, kept, by_meaning)
    reached = ranking.reached + sum(1 for c in fused if c.slot in unworded)
    return replace(
        ranking,
        candidates=tuple(fused),
        reached=reached,
        by_meaning=by_meaning,
        unworded=frozenset(unworded),
    )


def anchored_worded(
    index: Index,
    anchored: Sequence[Entry],
    scoring: Sequence[rank.Weighted],
    fired: dict[int, list[tuple[str, str]]],
) -> set[str]:
    """Return the ids of the anchored entries a scoring term or a trigger also reaches."""
    reached = _held(index, anchored, scoring).union(fired)
    return {e.id for e in anchored if index.slot_of(e.id) in reached}


def anchored_governing(
    index: Index, anchored: Sequence[Entry], scoring: Sequence[rank.Weighted]
) -> frozenset[int]:
    """Return the slots of the anchored entries a scoring term other than an action reaches:
    they compete in the ranked order, where governing the named path counts for them."""
    subject = [w for w in scoring if w.term.word not in wordlist.ACTION_WORDS]
    return _held(index, anchored, subject)


def _held(
    index: Index, anchored: Sequence[Entry], terms: Sequence[rank.Weighted]
) -> frozenset[int]:
    """Return the slots of the anchored entries one of `terms` reaches."""
    return frozenset(
        slot
        for slot in (index.slot_of(e.id) for e in anchored)
        if any(rank.holds(index, slot, w.term.stem) for w in terms)
    )


def _ranked(
    index: Index,
    scoring: Sequence[rank.Weighted],
    admitted: Callable[[Entry], bool],
    fired: dict[int, list[tuple[str, str]]],
    keep: int | None = None,
    governing: frozenset[int] = frozenset(),
    stop: deadline.Stop | None = None,
) -> tuple[list[Candidate], int]:
    """Return the admitted entries the scoring terms or a trigger reach, best first (path on
    ties), only the first `keep` when given, and how many were reached. Each trigger that
    fired adds TRIGGER_WORDS times the idf of a term one entry holds, on top of its words'
    own matches, and so does governing a path the task names (`governing`: entries the
    words reach too) add GOVERNS_WORDS times it. Raises deadline.AbandonedError when `stop` says
    to stop."""
    # fired and governing entries are scored on every term, whatever the top-k keeps
    must = {*fired, *governing}
    pruned = None if keep is None else keep + len(must)
    totals, scored = rank.scores(index, scoring, pruned, must, stop)
    unit = bm25f.idf(max(index.size, 1), 1)
    for slot, hits in fired.items():
        totals[slot] = totals.get(slot, 0.0) + TRIGGER_WORDS * unit * len(hits)
    for slot in governing:
        totals[slot] = totals.get(slot, 0.0) + GOVERNS_WORDS * unit
    if keep is not None and len(totals) > keep:
        # the best `keep` by score, and whatever ties the last of them (path breaks ties)
        floor = heapq.nlargest(keep, totals.values())[-1]
        chosen = {slot: total for slot, total in totals.items() if total >= floor}
    else:
        chosen = totals
    order = [(-total, index.slot(slot).entry.path, slot) for slot, total in chosen.items()]
    best = sorted(order)[:keep] if keep is not None else sorted(order)
    out = []
    for negative, _, slot in best:
        e = index.slot(slot).entry
        if admitted(e):
            out.append(Candidate(-negative, e, slot))
    return out, len(out) if keep is None else scored
