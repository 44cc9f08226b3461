"""What a route is asked and what it answers (DESIGN 6): the request, already validated, and
the route, with the reasons a route is silent."""

from __future__ import annotations

from dataclasses import dataclass

from router.base.errors import RequestError
from router.catalog.config import DEFAULT_ORDER
from router.filters import relevance
from router.route import fusion
from router.route.pointer import Pointer

ORDERS = ("diverse", "turns", "score")
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

    def filtering(self) -> bool:
        """Return whether any filter is set."""
        return any(v is not None for v in self.filters().values())


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
