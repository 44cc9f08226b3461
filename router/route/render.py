"""The forms a route is shown in (DESIGN 7): the JSON document, the text report hooks
inject, and seed 1's explain record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from router.catalog.entry import Entry
from router.core.shown import EM_DASH, EVIDENCE_INDENT, dim_evidence, flat
from router.ranking import breakdown
from router.route.contract import SILENCE, Route
from router.route.pointer import Pointer

SCHEMA = "kroute.route/1"
POINTER_INDENT = "  "
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
