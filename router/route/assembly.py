"""Route assembly (DESIGN 6): anchors, filters, purposes, gate, order, turns, budget,
succession and silence. Pure: a function of the index, the taxonomy and the request."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from router.base.errors import RequestError
from router.catalog.config import DEFAULT_ORDER
from router.catalog.entry import Entry
from router.catalog.formats import trigger
from router.catalog.taxonomy import Taxonomy
from router.core import deadline, text
from router.filters import relevance
from router.ranking import bm25f, rank, silence, term
from router.ranking.index import Index
from router.route import anchor, fusion, imperative, pointer, purpose
from router.route.pointer import Candidate, Pointer

ORDERS = ("diverse", "turns", "score")
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
# The relevance reason that marks a document as being about code the focus file imports.
IMPORT_REASON = "import_penalty"
SILENCE = {
    "no_terms": "The task carries no term to route on.",
    "no_purpose_matched": "No entry of the catalog serves the purpose the filter names.",
    "no_document_reached": "No document covers enough of what is specific in the task.",
    "filtered": "The filters left no entry to route over.",
    "deadline": "The route ran out of time (its client's deadline passed, or it left).",
}


@dataclass(frozen=True, slots=True)
class Request:
    """What a route is asked: DESIGN 6's request fields, already validated."""

    task: str
    budget: int = 5
    order: str = DEFAULT_ORDER
    domain: str | None = None
    cluster: str | None = None
    kind: str | None = None
    purpose: str | None = None
    paths: tuple[str, ...] = ()
    strategy: str | None = None
    root: str = ""  # absolute repository root, to make absolute task paths relative
    focus: relevance.Focus | None = None  # the file an agent is about to touch (DESIGN 8)
    threshold: float = relevance.DEFAULT_THRESHOLD
    # what meaning says of the task (the meaning extra in mode live): its nearest entries
    # and every entry's similarity, fused with the words' order (`fusion`); None without it
    meaning: fusion.Nearness | None = None
    words_weight: float = fusion.WORDS_WEIGHT  # the words' share of a fused score

    def filters(self) -> dict[str, str | None]:
        """Return the filters by name."""
        return {
            "domain": self.domain,
            "cluster": self.cluster,
            "kind": self.kind,
            "purpose": self.purpose,
        }


@dataclass(frozen=True, slots=True)
class Route:
    """The answer to one task."""

    request: Request
    terms: tuple[str, ...]
    distinctive: tuple[str, ...]
    anchors: tuple[str, ...]
    matched: tuple[tuple[str, int], ...]
    pointers: tuple[Pointer, ...]
    withheld: int
    silence: str | None
    filtered_by_focus: int = 0
    lacking: tuple[str, ...] = ()  # task words no entry holds, named when silent

    @property
    def status(self) -> str:
        """ "routed" when some pointer was offered, else "no_match"."""
        return "routed" if self.pointers else "no_match"


def check(request: Request) -> Request:
    """Return the request, or raise RequestError naming the bad member."""
    if request.budget < 1:
        raise RequestError(f"budget is {request.budget}", "Ask for a budget of at least 1")
    if request.order not in ORDERS:
        raise RequestError(f"order is {request.order!r}", f"Use one of {', '.join(ORDERS)}")
    return request


def abandoned(request: Request) -> Route:
    """Return the route of a request stopped before it was read: silence, `deadline`."""
    return Route(request, (), (), (), (), (), 0, "deadline")


def assemble(
    index: Index, taxonomy: Taxonomy, request: Request, stop: deadline.Stop | None = None
) -> Route:
    """Return the route of `request` over the index (DESIGN 6 steps 1-10). When `stop` says
    to stop (asked between steps and inside the long ones), the route is silence with reason
    `deadline`, holding the terms read by then."""
    check(request)
    if stop is not None and stop():
        return abandoned(request)
    weighted = rank.of_task(index, request.task)
    scoring = rank.scoring(weighted, index.size)
    words = tuple(w.term.word for w in weighted)
    chosen = set(scoring)
    specific = tuple(w.term.word for w in weighted if w in chosen)
    base = Route(request, words, specific, (), (), (), 0, None)
    try:
        return _assemble(index, taxonomy, request, stop, base, weighted, scoring)
    except deadline.AbandonedError:
        return replace(base, silence="deadline")


def _assemble(
    index: Index,
    taxonomy: Taxonomy,
    request: Request,
    stop: deadline.Stop | None,
    base: Route,
    weighted: tuple[rank.Weighted, ...],
    scoring: tuple[rank.Weighted, ...],
) -> Route:
    """Return the route `assemble` answers, from the task's terms on (`base` holds them).
    Raises deadline.AbandonedError when `stop` says to stop."""
    words = [*request.task.split(), *request.paths]
    # A rule for every file of a language (`**/*.py`) anchors a route of files alone (before
    # an edit, at a commit). A task with words of its own says what it is about, and such a
    # rule competes on those words like any other: anchored, a catalog's many language rules
    # came before the document the task was about.
    anchors, anchored, governed = anchor.named(
        index, words, request.root, stop, languages=not weighted
    )
    base = replace(base, anchors=anchors)
    # a pattern may fire on function words alone
    fired = trigger.fired(index.with_triggers(), request.task, stop)
    if not weighted and not anchors and not fired:
        return replace(base, silence="no_terms")
    admitted = admission(taxonomy, request)
    if request.purpose is not None and not any(
        taxonomy.purpose_of(i.entry.kind) == request.purpose for i in index
    ):
        return replace(base, silence="no_purpose_matched")
    anchored = [e for e in anchored if admitted(e)]
    matched = purpose.matched(taxonomy, text.tokens(request.task))
    deadline.check(stop)
    governing = _governing(index, anchored, scoring)
    ranking = _rank(
        index, request, weighted, scoring, admitted, fired, len(anchored), governing, stop
    )
    deadline.check(stop)
    anchored, ranking, dropped = _focused(index, request, anchored, ranking)
    base = replace(base, matched=matched, filtered_by_focus=dropped)
    if not ranking.candidates and not anchored:
        if dropped or (_filtering(request) and not any(admitted(i.entry) for i in index)):
            return replace(base, silence="filtered")
        return replace(base, silence="no_document_reached", lacking=ranking.lacking or ())
    pointers, withheld = _offer(index, taxonomy, request, matched, anchored, governed, ranking)
    return replace(base, pointers=pointers, withheld=withheld)


@dataclass(frozen=True, slots=True)
class _Ranking:
    """What the task's words and triggers reach among the admitted entries."""

    scoring: tuple[rank.Weighted, ...]
    fired: dict[int, list[tuple[str, str]]]  # slot -> triggers, admitted entries only
    candidates: tuple[Candidate, ...]  # best first
    reached: int  # how many entries were reached, of which the candidates are the best
    lacking: tuple[str, ...] | None  # set when the words were too weak to route on
    # candidates among meaning's nearest: slot -> (the neighbour, its place in its order)
    by_meaning: dict[int, tuple[fusion.Neighbour, int]] = field(default_factory=dict)
    unworded: frozenset[int] = frozenset()  # the candidates only meaning reached


def _rank(
    index: Index,
    request: Request,
    weighted: Sequence[rank.Weighted],
    scoring: tuple[rank.Weighted, ...],
    admitted: Callable[[Entry], bool],
    fired: dict[int, list[tuple[str, str]]],
    anchored: int,
    governing: frozenset[int] = frozenset(),
    stop: deadline.Stop | None = None,
) -> _Ranking:
    """Return the ranking of the admitted entries the words or a trigger reach. When no
    trigger fired and the words are too weak (`silence.lacking`), it reaches nothing and
    names the words no entry holds: the silence gate judges the route, not each entry.
    Raises deadline.AbandonedError when `stop` says to stop."""
    fired = {slot: hits for slot, hits in fired.items() if admitted(index.slot(slot).entry)}
    # Only the top of the score order is shown: score just enough of it, unless the focus
    # filter or an order by purpose needs to see every candidate.
    keep = None
    if request.order == "score" and request.focus is None and not _filtering(request):
        keep = request.budget + anchored + silence.LOOK
        if request.meaning is not None:
            keep = max(keep, fusion.DEPTH)
    ranked, reached = _ranked(index, scoring, admitted, fired, keep, governing, stop)
    if fired:
        if request.meaning is not None:
            whole = _Ranking(scoring, fired, tuple(ranked), reached, None)
            return _with_meaning(index, admitted, whole, request, {*fired, *governing})
        kept = close(ranked, {*fired, *governing}) if request.order == "score" else ranked
        return _Ranking(scoring, fired, tuple(kept), reached, None)
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
        return _Ranking(scoring, fired, (), 0, lacking)
    if request.meaning is not None:
        whole = _Ranking(scoring, fired, tuple(ranked), reached, None)
        return _with_meaning(index, admitted, whole, request, governing)
    if request.order == "score":
        ranked = close(ranked, governing)
    return _Ranking(scoring, fired, tuple(ranked), reached, None)


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
    ranking: _Ranking,
    request: Request,
    kept: Iterable[int] = (),
) -> _Ranking:
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


def _offer(
    index: Index,
    taxonomy: Taxonomy,
    request: Request,
    matched: tuple[tuple[str, int], ...],
    anchored: Sequence[Entry],
    governed: dict[str, list[str]],
    ranking: _Ranking,
) -> tuple[tuple[Pointer, ...], int]:
    """Return the pointers offered, the anchored block before the ranked one, and how many
    entries the words reached are withheld (not shown: an anchored one is shown anyway)."""
    # An anchored entry the task's words also reach competes in the ranked order (evidence
    # says both); only the anchored entries words do not reach take budget off the top.
    worded: set[str] = set()
    if ranking.lacking is None:  # words too weak to route on reach no anchored entry either
        worded = _worded(index, anchored, ranking.scoring, ranking.fired)
    slots = max(0, request.budget - sum(e.id not in worded for e in anchored))
    order = purpose.turns(ranking.candidates, taxonomy, matched, request.order, slots)
    taken = {c.entry.id for c in order}
    anchor_block = [
        Pointer(e, taxonomy.purpose_of(e.kind), {"by": "anchor", "anchors": governed[e.id]})
        for e in sorted(anchored, key=lambda e: e.path)
        if e.id not in taken
    ]
    rank_of = {c.entry.id: place for place, c in enumerate(ranking.candidates, start=1)}
    ranked_block = [
        pointer.by_meaning(taxonomy, c, ranking.by_meaning[c.slot], index.size)
        if c.slot in ranking.unworded
        else pointer.ranked(
            taxonomy,
            c,
            rank.reach(index, c.slot, ranking.scoring),
            (rank_of[c.entry.id], ranking.reached),
            governed,
            ranking.fired,
            ranking.by_meaning.get(c.slot),
            index.size,
        )
        for c in order
    ]
    follow = request.strategy == "multi-hop"
    pointers = pointer.succession(index, anchor_block, follow) + pointer.succession(
        index, ranked_block, follow
    )
    withheld = max(0, ranking.reached - len(taken) - len(worded - taken))
    return tuple(pointers), withheld


def _worded(
    index: Index,
    anchored: Sequence[Entry],
    scoring: Sequence[rank.Weighted],
    fired: dict[int, list[tuple[str, str]]],
) -> set[str]:
    """Return the ids of the anchored entries a scoring term or a trigger also reaches."""
    reached = _held(index, anchored, scoring).union(fired)
    return {e.id for e in anchored if index.slot_of(e.id) in reached}


def _governing(
    index: Index, anchored: Sequence[Entry], scoring: Sequence[rank.Weighted]
) -> frozenset[int]:
    """Return the slots of the anchored entries a scoring term other than an action reaches:
    they compete in the ranked order, where governing the named path counts for them."""
    subject = [w for w in scoring if w.term.word not in term.ACTION_WORDS]
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


def _filtering(request: Request) -> bool:
    return any(v is not None for v in request.filters().values())


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


def _focused(
    index: Index, request: Request, anchored: list[Entry], ranking: _Ranking
) -> tuple[list[Entry], _Ranking, int]:
    """Return the anchored entries and the ranking the focus file keeps (all of them without
    one), and how many it drops. What it keeps is what counts as reached: with a focus every
    candidate was scored, so the kept candidates are all the reached ones.

    The anchored entries and every entry governing the focus file (by glob, directory or
    exact path) are always kept: a governs target is its author saying the document applies
    to that file, which `_about`'s path and prefix signals cannot read off a glob."""
    focus = request.focus
    if focus is None:
        return anchored, ranking, 0
    governing = {e.id for e in anchor.governing(index, focus.path, request.root)}
    governing.update(e.id for e in anchored)

    def kept_by_focus(e: Entry) -> bool:
        return e.id in governing or _about(focus, e, request.threshold)

    kept = tuple(c for c in ranking.candidates if kept_by_focus(c.entry))
    dropped = len(ranking.candidates) - len(kept)
    return anchored, replace(ranking, candidates=kept, reached=len(kept)), dropped


def _about(focus: relevance.Focus, e: Entry, threshold: float) -> bool:
    """Return whether an entry the task reached stays beside the focus file: unless it is
    merely about what the file imports. The entry is read as a chunk (source: its governs
    targets and path; text: title, summary and routing fields); it is dropped when the
    import penalty fired and it scores under the threshold.

    A catalog document is not a chunk of code: most say nothing the relevance signals can
    read (no path of the focus package, no symbol), and the task's own words already chose
    it. Dropping every such document would drop decisions and specs the task is about; what
    the filter is for is the adjacency pollution of documents about imported code."""
    routing = e.routing
    words = [e.title, e.summary, *routing.problem_spaces, *routing.capabilities]
    words += [*routing.domains, *routing.clusters]
    chunk = relevance.Chunk(" ".join([*e.governs, e.path]), e.id, " ".join(w for w in words if w))
    _, dropped = relevance.split(focus, [chunk], threshold)
    return not any(
        reason.startswith(IMPORT_REASON) for scored in dropped for reason in scored.reasons
    )


def admission(taxonomy: Taxonomy, request: Request) -> Callable[[Entry], bool]:
    """Return a predicate: does an entry pass the request's filters (DESIGN 6 step 3)?"""
    domain = text.normalize(request.domain) if request.domain else None
    cluster = text.normalize(request.cluster) if request.cluster else None
    kind = text.normalize(request.kind) if request.kind else None
    purpose = request.purpose

    def admitted(e: Entry) -> bool:
        if domain is not None and domain not in {text.normalize(d) for d in e.routing.domains}:
            return False
        if cluster is not None and cluster not in {text.normalize(c) for c in e.routing.clusters}:
            return False
        if kind is not None and text.normalize(e.kind) != kind:
            return False
        return purpose is None or taxonomy.purpose_of(e.kind) == purpose

    return admitted
