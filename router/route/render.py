"""The forms a route is shown in (DESIGN 7): the JSON document, the text report hooks
inject (built from the route's pointers as a `Report`, which `fit` lays out in the room a
harness gives it), and seed 1's explain record."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from router.catalog.entry import Entry
from router.core.shown import EM_DASH, EVIDENCE_INDENT, dim_evidence, flat
from router.ranking import breakdown
from router.route.contract import SILENCE, Route
from router.route.pointer import Pointer

SCHEMA = "kroute.route/1"
POINTER_INDENT = "  "
CUT_NOTE = POINTER_INDENT + "(more pointers cut to keep this short)"
ELLIPSIS = "\u2026"
# Room for each part of a line once a report is too long to print whole. Long summaries are
# shortened before any pointer is dropped: a shortened pointer still leads to its document.
HEAD_ROOM = 200  # a pointer line's path and title
SUMMARY_ROOM = 300  # a pointer line's summary
MARKS_ROOM = 120  # its `[unreviewed: …]` and `[superseded by …]` markers, kept after it
LINE_ROOM = 400  # any other line: an evidence line, an orientation line
ALREADY_SHOWN = "{count} more already shown in this session"  # a session's repeats, counted
CLAIM_CEILING = (
    "A lexical, field-weighted ranking of catalog metadata (structured routing fields over "
    "free text): not embedding search, and no claim that a row answers the problem."
)
ANTI_CLAIMS = (
    "Document bodies count only as the lowest tier; no content is returned.",
    "Scores are sums of weighted term overlap, not probabilities or confidences.",
    "No row was judged relevant by a model or a person.",
)


def rounded(value: float) -> float | int:
    """Return a score rounded to 2 decimals for reports; whole numbers as integers."""
    value = round(value, 2)
    return int(value) if value.is_integer() else value


@dataclass(frozen=True, slots=True)
class PointerLines:
    """A pointer as the report shows it, every part flattened: its head (path and title),
    summary and markers (`[unreviewed: …]`, `[superseded by …]`) on its pointer line, and the
    body of the evidence line under it."""

    head: str
    summary: str
    marks: str  # "" or the markers, each opening with a space
    evidence: str

    def pointer(self, *, shortened: bool = False) -> str:
        """Return the pointer line, `  <head> — <summary><marks>`; `shortened`, with each
        long part cut to its room (the em dash and the markers stay)."""
        head, summary, marks = self.head, self.summary, self.marks
        if shortened:
            head, summary = shorten(head, HEAD_ROOM), shorten(summary, SUMMARY_ROOM)
            marks = shorten(marks, MARKS_ROOM)
        return POINTER_INDENT + f"{head} {EM_DASH} {summary}".strip() + marks

    def lines(self, *, shortened: bool = False) -> str:
        """Return the pointer line over its evidence line (`shortened`: see `pointer`; the
        evidence cut to LINE_ROOM)."""
        evidence = shorten(self.evidence, LINE_ROOM) if shortened else self.evidence
        return f"{self.pointer(shortened=shortened)}\n{EVIDENCE_INDENT}{evidence}"


@dataclass(frozen=True, slots=True)
class Line:
    """A line of a report that is no pointer's (withheld, already shown, silence, an
    orientation's): its text flattened, and its indent."""

    text: str
    indent: str = ""

    def lines(self, *, shortened: bool = False) -> str:
        """Return the line ("" when its text is empty); `shortened`, its text cut to
        LINE_ROOM."""
        if not self.text:
            return ""
        return self.indent + (shorten(self.text, LINE_ROOM) if shortened else self.text)


@dataclass(frozen=True, slots=True)
class Report:
    """A text report as parts: pointers, each with its evidence, and other lines, in order.
    `fit` lays it out in a room; `text` lays it out whole."""

    parts: tuple[PointerLines | Line, ...] = ()

    @property
    def pointed(self) -> bool:
        """Whether the report holds a pointer."""
        return any(isinstance(part, PointerLines) for part in self.parts)

    def text(self) -> str:
        """Return the report whole, one part after another. Ends without a newline."""
        return "\n".join(part.lines() for part in self.parts)


def line(text: str, indent: str = "") -> Line:
    """Return a report line of `text`, flattened, under `indent`."""
    return Line(flat(text), indent)


def pointer_line(entry: Entry, superseded_by: str | None = None) -> str:
    """Return the pointer line: `  <path> (<title>) — <summary>` plus markers, every field
    flattened (a field left empty by flattening leaves no gap)."""
    return _pointed(entry, superseded_by, "").pointer()


def _pointed(entry: Entry, superseded_by: str | None, evidence: str) -> PointerLines:
    """Return the report's part for a pointer to `entry` over the evidence line `evidence`,
    every field flattened."""
    title = flat(entry.title)
    head = " ".join(part for part in (flat(entry.path), f"({title})" if title else "") if part)
    marks = ""
    if entry.unwarranted:
        marks += f" [unreviewed: {flat(entry.unreviewed_reason)}]"
    if superseded_by:
        marks += f" [superseded by {flat(superseded_by)}]"
    return PointerLines(head, flat(entry.summary), marks, evidence)


def evidence_line(evidence: Mapping[str, Any]) -> str:
    """Return the one evidence line under a pointer, flattened (it never holds an em dash)."""
    return EVIDENCE_INDENT + _evidence(evidence)


def _evidence(evidence: Mapping[str, Any]) -> str:
    """Return the body of a pointer's evidence line, flattened."""
    by = evidence.get("by")
    if by == "anchor":
        body = "governs " + ", ".join(evidence.get("anchors", []))
    elif by == "succession":
        body = f"successor of {evidence.get('from')}"
    elif by == "meaning":
        # no word of the task reached it: say what the model read, and where it stood
        body = (
            f"no task word reached it; near the task in meaning (its {evidence.get('near')}), "
            f"rank {evidence.get('rank')} of {evidence.get('of')} by meaning"
        )
    else:
        groups = evidence.get("fields") or [
            {"field": evidence.get("field"), "terms": evidence.get("terms", [])}
        ]
        reached = ", ".join(
            f"{', '.join(g.get('terms', [])) or 'only common terms'} in {g.get('field')}"
            for g in groups
        )
        body = f"matched {reached}, rank {evidence.get('rank')} of {evidence.get('of')}"
        if evidence.get("anchors"):
            body += "; governs " + ", ".join(evidence["anchors"])
        near = evidence.get("meaning")
        if isinstance(near, Mapping):
            # the words reached it and so did meaning: say both
            body += (
                f"; also near the task in meaning (its {near.get('near')}), "
                f"rank {near.get('rank')} of {near.get('of')} by meaning"
            )
    return flat(body)


def report(route: Route, *, already_shown: int = 0) -> Report:
    """Return the text report of a route as parts: its pointers with their evidence, the
    withheld line, and the line counting the `already_shown` pointers a session was given
    before (taken out of the route); or the one silence sentence."""
    if route.silence is not None:
        return Report((Line(silence_sentence(route), POINTER_INDENT),))
    parts: list[PointerLines | Line] = [
        _pointed(p.entry, p.superseded_by, _evidence(p.evidence)) for p in route.pointers
    ]
    if route.withheld:
        parts.append(Line(f"withheld {route.withheld} more", POINTER_INDENT))
    if already_shown:
        parts.append(Line(ALREADY_SHOWN.format(count=already_shown), POINTER_INDENT))
    return Report(tuple(parts))


def text_report(route: Route, *, color: bool = False) -> str:
    """Return the text report: pointer and evidence lines, the withheld line, or the one
    silence sentence. Ends without a newline."""
    text = report(route).text()
    return dim_evidence(text) if color else text


def silence_sentence(route: Route) -> str:
    """Return the one sentence of a silent route, naming the task words no entry holds
    (each flattened)."""
    says = SILENCE[route.silence or "no_document_reached"]
    if route.silence == "no_document_reached" and route.lacking:
        says += " No entry holds " + ", ".join(f"`{flat(w)}`" for w in route.lacking) + "."
    return says


def pointer_json(pointer: Pointer) -> dict[str, Any]:
    """Return a pointer's JSON members (none is or implies a score)."""
    e = pointer.entry
    out: dict[str, Any] = {
        "id": e.id,
        "kind": e.kind,
        "purpose": pointer.purpose,
        "title": e.title,
        "path": e.path,
        "summary": e.summary,
        "unwarranted": e.unwarranted,
        "evidence": pointer.evidence,
    }
    if pointer.superseded_by:
        out["superseded_by"] = pointer.superseded_by
    return out


def route_json(
    route: Route,
    *,
    version: str,
    fingerprint: str,
    entries: int,
    stale: int,
    intent: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Return the route document of DESIGN 7 (serialize with sorted keys)."""
    silence: dict[str, object] | None = None
    if route.silence is not None:
        silence = {"reason": route.silence, "says": silence_sentence(route)}
        if route.lacking:
            silence["lacking"] = list(route.lacking)
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "status": route.status,
        "task": route.request.task,
        "filters": route.request.filters(),
        "terms": list(route.terms),
        "distinctive": list(route.distinctive),
        "anchors": list(route.anchors),
        "matched": [{"purpose": p, "score": s} for p, s in route.matched],
        "intent": dict(intent) if intent is not None else None,
        "pointers": [pointer_json(p) for p in route.pointers],
        "withheld": route.withheld,
        "silence": silence,
        "text": text_report(route),
        "engine": {"version": version},
        "catalog": {"fingerprint": fingerprint, "entries": entries, "stale": stale},
    }
    if extra:
        doc.update(extra)
    return doc


def explain(
    rows: Sequence[breakdown.Scored],
    *,
    problem: str,
    domain: str | None,
    cluster: str | None,
    limit: int | None,
    sources: Sequence[str],
    no_terms: bool,
) -> dict[str, Any]:
    """Return seed 1's explain record: every row above 0 by score desc then slug."""
    ordered = sorted(rows, key=lambda s: (-s.total, s.indexed.entry.id))
    if limit is not None:
        ordered = ordered[:limit]
    out_rows = []
    for s in ordered:
        e = s.indexed.entry
        out_rows.append(
            {
                "slug": e.id,
                "display_name": e.title,
                "score": rounded(s.total),
                "match_breakdown": {k: rounded(v) for k, v in s.breakdown().items()},
                "matched_note_ids": list(s.notes),
                "routing_summary": e.routing.as_dict(),
                "description": e.summary,
                "tags": list(e.tags),
                "source_kind": e.source_kind,
            }
        )
    return {
        "status": "routed" if out_rows and not no_terms else "no_match",
        "row_count": len(out_rows),
        "problem": problem,
        "domain_filter": domain,
        "cluster_filter": cluster,
        "rows": out_rows,
        "source_refs": list(sources),
        "claim_ceiling": CLAIM_CEILING,
        "anti_claims": list(ANTI_CLAIMS),
    }


# -- fitting a report to the room a harness gives it -------------------------------------------


def fit(report: Report, room: int, cost: Callable[[str], int]) -> str:
    """Return the report laid out in at most `room` as `cost` measures it.

    A report that fits is returned whole. Otherwise every long part is shortened (a
    pointer's head, summary and markers apart, its evidence, any other line), and if that is
    not enough, whole parts are kept from the start (a pointer line never without its
    evidence line) and the rest is replaced by CUT_NOTE."""
    whole = report.text()
    if cost(whole) <= room:
        return whole
    blocks = [part.lines(shortened=True) for part in report.parts]
    whole = "\n".join(blocks)
    if cost(whole) <= room:
        return whole
    kept: list[str] = []
    used = cost(CUT_NOTE)
    for block in blocks:
        used += cost(block) + cost("\n")
        if used > room:
            break
        kept.append(block)
    return "\n".join([*kept, CUT_NOTE])


def shorten(text: str, room: int, *, keep_end: bool = False) -> str:
    """Return `text`, or when it is longer than `room` characters its start (its end when
    `keep_end`) with an ellipsis where the rest was, `room` characters in all."""
    if len(text) <= room:
        return text
    if keep_end:
        return ELLIPSIS + text[len(text) - room + 1 :]
    return text[: room - 1] + ELLIPSIS
