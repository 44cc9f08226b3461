"""Route assembly (DESIGN 6): anchors, filters, purposes, gate, order, turns, budget,
succession and silence, in that order (`admission` filters, `shortlist` ranks the candidates,
`contract` holds the request and the route). Pure: a function of the index, the taxonomy and
the request."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from router.catalog.entry import Entry
from router.catalog.formats import trigger
from router.catalog.taxonomy import Taxonomy
from router.core import deadline, text
from router.ranking import rank
from router.ranking.index import Index
from router.route import admission, anchor, contract, pointer, purpose, shortlist
from router.route.contract import Request, Route
from router.route.pointer import Pointer
from router.route.shortlist import Ranking


def assemble(
    index: Index, taxonomy: Taxonomy, request: Request, stop: deadline.Stop | None = None
) -> Route:
    """Return the route of `request` over the index (DESIGN 6 steps 1-10). When `stop` says
    to stop (asked between steps and inside the long ones), the route is silence with reason
    `deadline`, holding the terms read by then."""
    contract.check(request)
    if stop is not None and stop():
        return contract.abandoned(request)
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
    admitted = admission.of(taxonomy, request)
    if request.purpose is not None and not any(
        taxonomy.purpose_of(i.entry.kind) == request.purpose for i in index
    ):
        return replace(base, silence="no_purpose_matched")
    anchored = [e for e in anchored if admitted(e)]
    matched = purpose.matched(taxonomy, text.tokens(request.task))
    deadline.check(stop)
    governing = shortlist.anchored_governing(index, anchored, scoring)
    ranking = shortlist.draw(
        index, request, weighted, scoring, admitted, fired, len(anchored), governing, stop
    )
    deadline.check(stop)
    anchored, ranking, dropped = admission.focused(index, request, anchored, ranking)
    base = replace(base, matched=matched, filtered_by_focus=dropped)
    if not ranking.candidates and not anchored:
        if dropped or (request.filtering() and not any(admitted(i.entry) for i in index)):
            return replace(base, silence="filtered")
        return replace(base, silence="no_document_reached", lacking=ranking.lacking or ())
    pointers, withheld = _offer(index, taxonomy, request, matched, anchored, governed, ranking)
    return replace(base, pointers=pointers, withheld=withheld)


def _offer(
    index: Index,
    taxonomy: Taxonomy,
    request: Request,
    matched: tuple[tuple[str, int], ...],
    anchored: Sequence[Entry],
    governed: dict[str, list[str]],
    ranking: Ranking,
) -> tuple[tuple[Pointer, ...], int]:
    """Return the pointers offered, the anchored block before the ranked one, and how many
    entries the words reached are withheld (not shown: an anchored one is shown anyway)."""
    # An anchored entry the task's words also reach competes in the ranked order (evidence
    # says both); only the anchored entries words do not reach take budget off the top.
    worded: set[str] = set()
    if ranking.lacking is None:  # words too weak to route on reach no anchored entry either
        worded = shortlist.anchored_worded(index, anchored, ranking.scoring, ranking.fired)
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
