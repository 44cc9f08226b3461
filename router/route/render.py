"""The forms a route is shown in (DESIGN 7): the JSON document, the text report hooks
inject (and that report fitted to the room a harness gives it), and seed 1's explain
record."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
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
_MARKS = re.compile(r"(?: \[(?:unreviewed: |superseded by )[^\]]*\])+\Z")
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


def pointer_line(entry: Entry, superseded_by: str | None = None) -> str:
    """Return the pointer line: `  <path> (<title>) — <summary>` plus markers, every field
    flattened (a field left empty by flattening leaves no gap)."""
    title = flat(entry.title)
    head = " ".join(part for part in (flat(entry.path), f"({title})" if title else "") if part)
    line = POINTER_INDENT + f"{head} {EM_DASH} {flat(entry.summary)}".strip()
    if entry.unwarranted:
        line += f" [unreviewed: {flat(entry.unreviewed_reason)}]"
    if superseded_by:
        line += f" [superseded by {flat(superseded_by)}]"
    return line


def evidence_line(evidence: Mapping[str, Any]) -> str:
    """Return the one evidence line under a pointer, flattened (it never holds an em dash)."""
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
    return EVIDENCE_INDENT + flat(body)


def text_report(route: Route, *, color: bool = False) -> str:
    """Return the text report: pointer and evidence lines, the withheld line, or the one
    silence sentence. Ends without a newline."""
    if route.silence is not None:
        return POINTER_INDENT + silence_sentence(route)
    lines = []
    for pointer in route.pointers:
        lines.append(pointer_line(pointer.entry, pointer.superseded_by))
        lines.append(evidence_line(pointer.evidence))
    if route.withheld:
        lines.append(f"{POINTER_INDENT}withheld {route.withheld} more")
    report = "\n".join(lines)
    return dim_evidence(report) if color else report


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


def fit(text: str, room: int, cost: Callable[[str], int]) -> str:
    """Return a text report (or an orientation) that takes at most `room` as `cost` measures
    it, read as `text_report` lays it out.

    Every line is flattened again, its indent kept, so that nothing but a pointer line
    carries an em dash. Text that fits is returned whole. Otherwise every long line is
    shortened, and if that is not enough, whole units are kept from the start (a pointer line
    with its evidence line, or any other line) and the rest is replaced by CUT_NOTE."""
    units = _units([_clean(line) for line in text.split("\n")])
    whole = "\n".join("\n".join(unit) for unit in units)
    if cost(whole) <= room:
        return whole
    blocks = ["\n".join(_shorten_line(line) for line in unit) for unit in units]
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


def _clean(line: str) -> str:
    """Return one report line flattened: a line holding an em dash is a pointer line (its
    first em dash the separator, any other a plain dash); any other keeps its indent."""
    if EM_DASH in line:
        head, _, tail = line.partition(EM_DASH)
        return POINTER_INDENT + f"{flat(head)} {EM_DASH} {flat(tail)}".strip()
    body = flat(line)
    return line[: len(line) - len(line.lstrip(" "))] + body if body else ""


def _units(lines: list[str]) -> list[tuple[str, ...]]:
    """Return clean lines grouped into what may be cut: a pointer line with the evidence line
    under it, or any other line alone. A pointer line with no evidence line is dropped."""
    units: list[tuple[str, ...]] = []
    pointer: str | None = None
    for line in lines:
        if pointer is not None and line.startswith(EVIDENCE_INDENT) and EM_DASH not in line:
            units.append((pointer, line))
            pointer = None
            continue
        pointer = None
        if EM_DASH in line:
            pointer = line
        else:
            units.append((line,))
    return units


def _shorten_line(line: str) -> str:
    """Return a clean line with each long part shortened: a pointer line's path and title,
    its summary and its markers apart (the em dash and the markers stay); any other line
    as a whole."""
    if EM_DASH not in line:
        indent = line[: len(line) - len(line.lstrip(" "))]
        return indent + shorten(line[len(indent) :], LINE_ROOM)
    head, _, tail = line.partition(EM_DASH)
    marks = _MARKS.search(tail)
    start = marks.start() if marks else len(tail)
    summary = shorten(tail[:start].strip(), SUMMARY_ROOM)
    shown = f"{shorten(head.strip(), HEAD_ROOM)} {EM_DASH} {summary}".strip()
    return POINTER_INDENT + shown + shorten(tail[start:], MARKS_ROOM)


def shorten(text: str, room: int, *, keep_end: bool = False) -> str:
    """Return `text`, or when it is longer than `room` characters its start (its end when
    `keep_end`) with an ellipsis where the rest was, `room` characters in all."""
    if len(text) <= room:
        return text
    if keep_end:
        return ELLIPSIS + text[len(text) - room + 1 :]
    return text[: room - 1] + ELLIPSIS
