"""Which entries a request admits (DESIGN 6 step 3 and 8): its filters, and the focus file's
relevance filter over what the words reached."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from router.catalog.entry import Entry
from router.catalog.taxonomy import Taxonomy
from router.core import text
from router.filters import relevance
from router.ranking.index import Index
from router.route import anchor
from router.route.contract import Request
from router.route.shortlist import Ranking

# The relevance reason that marks a document as being about code the focus file imports.
IMPORT_REASON = "import_penalty"


def of(taxonomy: Taxonomy, request: Request) -> Callable[[Entry], bool]:
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


def focused(
    index: Index, request: Request, anchored: list[Entry], ranking: Ranking
) -> tuple[list[Entry], Ranking, int]:
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
