"""Why an entry was, or was not, offered for a task (`kroute why-not`, `/v1/why-not`).

Read from the route itself, never from a second scorer: the route is assembled as asked,
then again with a budget that holds the whole score order, and the entry's place, what it
holds (`rank.reach`) and which step withheld it (filter, silence, focus, budget) are read
off the two. Pure: a function of the index, the taxonomy and the request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from router.base.errors import RequestError
from router.catalog.entry import Entry
from router.catalog.formats import trigger
from router.catalog.taxonomy import Taxonomy
from router.ranking import rank
from router.ranking.index import Index
from router.route import admission, assembly, contract, render
from router.route.pointer import Pointer

# What withheld an entry, in the order the route applies them: a filter admits it first,
# silence judges the route, the focus file keeps what is about it, the budget cuts the rest.
FILTER, SILENCE, FOCUS, BUDGET, SUCCESSION, UNREACHED = (
    "filter",
    "silence",
    "focus",
    "budget",
    "succession",
    "unreached",
)
CHECK_HINT = "Run `kroute check` to list the catalog's entries, or name one by its id"


class UnknownEntryError(RequestError):
    """The entry a why-not request names is not in the catalog (answered as a 404)."""


@dataclass(frozen=True, slots=True)
class WhyNot:
    """Why one entry was or was not offered for one request."""

    entry: str
    path: str
    offered: bool
    withheld_by: str | None  # one of FILTER ... UNREACHED, None when offered
    reasons: tuple[str, ...]  # sentences, in the order the route's steps apply
    holds: tuple[tuple[str, tuple[str, ...]], ...]  # (field, task words), best field first
    lacks: tuple[str, ...]  # task words it does not hold, task order
    rank: int | None  # its place in the whole score order, None when not in it
    of: int  # how many entries the whole score order holds
    beaten_by: tuple[str, ...]  # ids ranked above it, the first `budget` of them
    pointer: int | None  # its 1-based place among the route's pointers when offered
    silence: str | None  # the route's silence reason, when it was silent

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON document: every member, holds as `[{field, terms}]`, and `text`."""
        return {
            "entry": self.entry,
            "path": self.path,
            "offered": self.offered,
            "withheld_by": self.withheld_by,
            "reasons": list(self.reasons),
            "holds": [{"field": f, "terms": list(ws)} for f, ws in self.holds],
            "lacks": list(self.lacks),
            "rank": self.rank,
            "of": self.of,
            "beaten_by": list(self.beaten_by),
            "pointer": self.pointer,
            "silence": self.silence,
            "text": self.text(),
        }

    def text(self) -> str:
        """Return the readable answer: a head line, one line per reason, then what it holds
        and lacks. Ends without a newline."""
        verdict = "offered" if self.offered else "not offered"
        lines = [f"{self.entry} ({self.path}): {verdict}"]
        lines += [f"  {reason}" for reason in self.reasons]
        held = "; ".join(f"{', '.join(ws)} in {field}" for field, ws in self.holds)
        lines.append(f"  holds: {held or 'no task term'}")
        lines.append(f"  lacks: {', '.join(self.lacks) or 'nothing'}")
        return "\n".join(lines)


def find(index: Index, reference: str) -> Entry:
    """Return the entry an id, the stem of a qualified id, or a repository-relative path
    names. Raises UnknownEntryError when none does, RequestError when a stem was qualified for
    several entries or the path holds several (a JSON catalog's rows)."""
    named = index.named(reference)
    if len(named) == 1:
        return named[0]
    if named:
        ids = ", ".join(f"`{e.id}`" for e in named)
        raise RequestError(
            f"`{reference}` is the stem of {len(named)} entries ({ids})", "Name one by its id"
        )
    clean = reference.removeprefix("./")
    at_path = [e for e in index.entries() if e.path == clean or e.file == clean]
    if len(at_path) == 1:
        return at_path[0]
    if at_path:
        ids = ", ".join(e.id for e in at_path)
        raise RequestError(f"{reference} holds {len(at_path)} entries ({ids})", "Name one by id")
    raise UnknownEntryError(f"no entry `{reference}` in the catalog", CHECK_HINT)


def explain(index: Index, taxonomy: Taxonomy, request: contract.Request, reference: str) -> WhyNot:
    """Return why the entry `reference` names was or was not offered for `request`. Raises
    UnknownEntryError (or RequestError) as `find` does, and RequestError for a bad request."""
    contract.check(request)
    e = find(index, reference)
    slot = index.slot_of(e.id)
    routed = assembly.assemble(index, taxonomy, request)
    whole_request = _whole(index, request)
    whole = assembly.assemble(index, taxonomy, whole_request)
    order = _order(whole)
    place = order.index(e.id) + 1 if e.id in order else None
    above = order[: (place - 1 if place else len(order))]
    weighted = rank.of_task(index, request.task)
    # the terms the route scores with, in its order, so that what it holds reads as a
    # pointer's evidence would
    reached = rank.reach(index, slot, rank.scoring(weighted, index.size))
    groups: dict[str, list[str]] = {}
    for name, hit in trigger.fired(index.with_triggers(), request.task).get(slot, ()):
        groups.setdefault(name, []).append(hit)
    holds = tuple((name, tuple(hits)) for name, hits in groups.items()) + reached.fields
    held = set(reached.words)
    lacks = tuple(dict.fromkeys(w for w in routed.terms if w not in held))
    offered = [i for i, p in enumerate(routed.pointers, start=1) if p.entry.id == e.id]
    base = WhyNot(
        e.id,
        e.path,
        bool(offered),
        None,
        (),
        holds,
        lacks,
        place,
        len(order),
        tuple(above[: request.budget]),
        offered[0] if offered else None,
        routed.silence,
    )
    if offered:
        pointer = routed.pointers[offered[0] - 1]
        return replace(base, reasons=(_offered(pointer, offered[0], len(routed.pointers), base),))
    withheld_by, reasons = _withheld(index, taxonomy, request, routed, whole_request, e, base)
    return replace(base, withheld_by=withheld_by, reasons=reasons)


def _whole(index: Index, request: contract.Request) -> contract.Request:
    """Return the request whose route holds the whole score order: a budget every candidate
    fits in beside every anchor, score order, and no succession followed."""
    return replace(request, budget=2 * index.size + 1, order="score", strategy=None)


def _order(whole: contract.Route) -> list[str]:
    """Return the ids of a whole-order route's ranked pointers, best first (their evidence
    holds their rank: successors are moved in front of what they supersede)."""
    ranked = [
        (int(str(p.evidence["rank"])), p.entry.id) for p in whole.pointers if "rank" in p.evidence
    ]
    return [entry_id for _, entry_id in sorted(ranked)]


def _offered(pointer: Pointer, at: int, of: int, base: WhyNot) -> str:
    """Return the sentence saying where an offered entry stands and what put it there."""
    where = f"It was offered as pointer {at} of {of}"
    by = pointer.evidence.get("by")
    if by == "anchor":
        anchors = pointer.evidence.get("anchors")
        named = ", ".join(anchors) if isinstance(anchors, list) else ""
        return f"{where}: the task names {named}, which it governs."
    if by == "succession":
        return f"{where}: it supersedes {pointer.evidence.get('from')}, which ranked."
    return f"{where}, rank {base.rank} of {base.of} in the score order."


def _withheld(
    index: Index,
    taxonomy: Taxonomy,
    request: contract.Request,
    routed: contract.Route,
    whole_request: contract.Request,
    e: Entry,
    base: WhyNot,
) -> tuple[str, tuple[str, ...]]:
    """Return which step withheld an entry that was not offered, and the sentences saying
    why (the first names that step; later ones add what also held it back)."""
    reasons: list[str] = []
    refused = _refusing_filters(taxonomy, request, e)
    if refused:
        reasons += refused
    if routed.silence is not None:
        says = render.silence_sentence(routed)
        reasons.append(f"The route stayed silent ({routed.silence}): {says}")
    if reasons:
        return (FILTER if refused else SILENCE), tuple(reasons)
    if request.focus is not None and base.rank is None:
        unfocused = assembly.assemble(index, taxonomy, replace(whole_request, focus=None))
        if e.id in _order(unfocused) or any(p.entry.id == e.id for p in unfocused.pointers):
            path = request.focus.path
            return FOCUS, (f"The focus filter dropped it: it is not about what {path} defines.",)
    if base.rank is None:
        if base.holds:
            said = "Only task terms too common to score reach it."
        else:
            said = "No task term reaches it."
        return UNREACHED, (said,)
    successor = index.successor(e.id)
    if request.strategy == "multi-hop" and successor is not None:
        return SUCCESSION, (f"It is superseded by {successor}, offered in its place.",)
    where = f"It ranked {base.rank} of {base.of} in the score order"
    if base.rank <= request.budget and request.order != "score":
        return BUDGET, (f"{where}; the {request.order} order gave its place to other purposes.",)
    return BUDGET, (f"{where}, below the budget of {request.budget}.",)


def _refusing_filters(taxonomy: Taxonomy, request: contract.Request, e: Entry) -> list[str]:
    """Return one sentence per filter of the request that leaves the entry out."""
    out = []
    for name, value in request.filters().items():
        if value is None:
            continue
        alone = contract.Request(
            task="",
            domain=value if name == "domain" else None,
            cluster=value if name == "cluster" else None,
            kind=value if name == "kind" else None,
            purpose=value if name == "purpose" else None,
        )
        if admission.of(taxonomy, alone)(e):
            continue
        out.append(f"The {name} filter ({value}) leaves it out: {_its(taxonomy, name, e)}.")
    return out


def _its(taxonomy: Taxonomy, name: str, e: Entry) -> str:
    """Return what the entry holds for one filter, as the end of a sentence."""
    if name == "kind":
        return f"its kind is {e.kind}"
    if name == "purpose":
        return f"its kind {e.kind} serves {taxonomy.purpose_of(e.kind) or 'no purpose'}"
    values: Sequence[str] = e.routing.domains if name == "domain" else e.routing.clusters
    return f"its {name}s are {', '.join(values)}" if values else f"it names no {name}"
