"""Reviewing the shadow log (DESIGN 12): stats by engine version and by catalog version,
diffs between versions, replay against the current engine. Reads records; writes nothing
(the page is `router.logbook.page`'s, which pointers were followed `router.logbook.follow`'s)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import orjson

from router.base.errors import ShadowError
from router.core.shown import flat
from router.logbook import shadow
from router.logbook.report import diff_text as diff_text
from router.logbook.report import replay_text as replay_text
from router.logbook.report import stats_text as stats_text
from router.logbook.shadow import PERCENTILES, RATE_DIGITS, SKIPPED, Record

# -- review --------------------------------------------------------------------------------


def stats(records: Iterable[Record]) -> dict[str, Any]:
    """Return `{versions, by_version: {version: group}, fingerprints, by_fingerprint:
    {fingerprint: group}, all: group}`, engine versions in natural order, catalog
    fingerprints in the order they were first logged (`catalog_order`). A group: records,
    routes (routed + silent), routed, silent, skipped, injected,
    silence_rate (silent / routes), injected_rate (injected / routes), pointers_per_route
    (mean over routes, silent ones count 0), kinds and purposes offered (counts), skips (by
    reason), latency_us {p50, p90, p99, max} over routes, and meaning (`_meaning`: how the
    neighbours by meaning agree with the pointers). Rates and means are None when there is
    no route."""
    grouped: dict[str, list[Record]] = {}
    by_catalog: dict[str, list[Record]] = {}
    everything: list[Record] = []
    for record in records:
        grouped.setdefault(str(record.get("engine_version")), []).append(record)
        by_catalog.setdefault(str(record.get("catalog_fingerprint")), []).append(record)
        everything.append(record)
    versions = sorted(grouped, key=version_key)
    return {
        "versions": versions,
        "by_version": {v: _group(grouped[v]) for v in versions},
        "fingerprints": list(by_catalog),
        "by_fingerprint": {f: _group(by_catalog[f]) for f in by_catalog},
        "all": _group(everything),
    }


def catalog_order(records: Iterable[Record]) -> list[str]:
    """Return the catalog fingerprints of the records in the order they were first logged
    (the log is in time order; a fingerprint says nothing of which catalog came first)."""
    return list(dict.fromkeys(str(r.get("catalog_fingerprint")) for r in records))


def _group(records: list[Record]) -> dict[str, Any]:
    routes = [r for r in records if not _skipped(r)]
    silent = sum(1 for r in routes if r.get("silence") is not None)
    injected = sum(1 for r in routes if r.get("injected"))
    offered = [p for r in routes for p in _pointers(r)]
    latency = sorted(int(r.get("elapsed_us") or 0) for r in routes)
    return {
        "records": len(records),
        "routes": len(routes),
        "routed": len(routes) - silent,
        "silent": silent,
        "skipped": len(records) - len(routes),
        "injected": injected,
        "silence_rate": _ratio(silent, len(routes)),
        "injected_rate": _ratio(injected, len(routes)),
        "pointers_per_route": _ratio(len(offered), len(routes)),
        "kinds": dict(sorted(Counter(str(p.get("kind")) for p in offered).items())),
        "purposes": dict(sorted(Counter(str(p.get("purpose")) for p in offered).items())),
        "skips": dict(sorted(Counter(str(r.get("skip")) for r in records if _skipped(r)).items())),
        "latency_us": {
            **{f"p{p}": _percentile(latency, p) for p in PERCENTILES},
            "max": latency[-1] if latency else None,
        },
        "meaning": _meaning(routes),
    }


# How deep into the neighbours by meaning the agreement and "only meaning finds" look: the
# few a route could show.
MEANING_TOP = 3


def _meaning(routes: list[Record]) -> dict[str, Any]:
    """Return how the neighbours by meaning logged beside routes (meaning mode shadow or
    live) compare with the pointers: routes that logged some, the share of those whose best
    neighbour is among the pointers (agreement), and the entries among the first MEANING_TOP
    neighbours no pointer offered, by how often (the entries only meaning finds)."""
    logged = [r for r in routes if (r.get("meaning") or {}).get("neighbours")]
    agreed = 0
    only: Counter[str] = Counter()
    for r in logged:
        offered = {str(p.get("id")) for p in _pointers(r)}
        neighbours = [str(n) for n in r["meaning"]["neighbours"]]
        agreed += neighbours[0] in offered
        only.update(n for n in neighbours[:MEANING_TOP] if n not in offered)
    return {
        "routes": len(logged),
        "agreement": _ratio(agreed, len(logged)),
        "only_meaning": dict(sorted(only.items(), key=lambda kv: (-kv[1], kv[0]))),
    }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, RATE_DIGITS) if whole else None


def _percentile(ordered: list[int], p: int) -> int | None:
    """Nearest-rank percentile: a value that was observed, the same on every platform."""
    if not ordered:
        return None
    return ordered[max(0, math.ceil(p * len(ordered) / 100) - 1)]


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Return a sort key putting 0.9.0 before 0.10.0 (numbers compared as numbers)."""
    parts = re.findall(r"\d+|[^\d.]+", version)
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)


# What `diff` compares routes across: the record member, and how its error names it.
AXES = {
    "version": ("engine_version", "engine version", "Versions"),
    "fingerprint": ("catalog_fingerprint", "catalog fingerprint", "Fingerprints"),
}


def axis_of(records: Iterable[Record], value: str) -> str:
    """Return the axis (`AXES`) a `--from`/`--to` value names: "fingerprint" when some
    record's catalog fingerprint is it and no record's engine version is, else "version"."""
    versions, fingerprints = set(), set()
    for record in records:
        versions.add(record.get("engine_version"))
        fingerprints.add(record.get("catalog_fingerprint"))
    return "fingerprint" if value in fingerprints and value not in versions else "version"


def diff(
    records: Iterable[Record], from_version: str, to_version: str, by: str = "version"
) -> dict[str, Any]:
    """Return how the routes of tasks seen under both versions (or, `by="fingerprint"`, both
    catalog fingerprints) differ, comparing each side's last route of a task: `{from, to,
    by, tasks: [{task, from: side, to: side,
    changed, status, moved: [{id, from, to}], appeared: [{id, to}], vanished: [{id, from}]}],
    summary: {compared, changed, unchanged, moved, appeared, vanished, only_from, only_to}}`
    where a side is `{at, status, silence, pointers: [ids]}` and positions are 1-based.
    Tasks are sorted by text. Raises ShadowError when a side logged no route, or for an
    unknown `by`."""
    if by not in AXES:
        raise ShadowError(f"diff by {by!r} is unknown", f"Use one of {', '.join(AXES)}")
    member, label, plural = AXES[by]
    last: dict[str, dict[str, Record]] = {from_version: {}, to_version: {}}
    seen: set[str] = set()
    for record in records:
        version = str(record.get(member))
        seen.add(version)
        if version in last and not _skipped(record):
            last[version][str(record.get("task"))] = record
    for version in (from_version, to_version):
        if not last[version]:
            known = ", ".join(sorted(seen, key=version_key)) or "none"
            raise ShadowError(
                f"no route was logged under {label} {version}",
                f"{plural} in the log: {known}",
            )
    old, new = last[from_version], last[to_version]
    tasks = []
    for task in sorted(old.keys() & new.keys()):
        before, after = _side(old[task]), _side(new[task])
        changes = _changes(before, after)
        tasks.append({"task": task, "from": before, "to": after, **changes})
    changed = sum(1 for t in tasks if t["changed"])
    summary = {"compared": len(tasks), "changed": changed, "unchanged": len(tasks) - changed}
    summary |= {k: sum(len(t[k]) for t in tasks) for k in ("moved", "appeared", "vanished")}
    summary |= {"only_from": len(old.keys() - new.keys()), "only_to": len(new.keys() - old.keys())}
    return {"from": from_version, "to": to_version, "by": by, "tasks": tasks, "summary": summary}


def versions(records: Iterable[Record], by: str) -> list[dict[str, Any]]:
    """Return the values of an axis (`AXES`) that logged a route, in the order of their last
    route (the most recent last): `[{value, routes, first, last}]`, `first` and `last` the
    times of their first and last route. Raises ShadowError for an unknown axis."""
    if by not in AXES:
        raise ShadowError(f"diff by {by!r} is unknown", f"Use one of {', '.join(AXES)}")
    member = AXES[by][0]
    seen: dict[str, dict[str, Any]] = {}
    for record in records:
        if _skipped(record):
            continue
        value = str(record.get(member))
        found = seen.pop(value, None) or {"value": value, "routes": 0, "first": record.get("at")}
        found["routes"] += 1
        found["last"] = record.get("at")
        seen[value] = found  # now the most recently routed
    return list(seen.values())


def latest_pair(records: Iterable[Record], by: str | None = None) -> tuple[str, str, str]:
    """Return `(axis, from, to)`: the last two values of an axis that logged routes, the one
    routed last as `to`. Without `by`, the axis whose value changed last: the catalog after
    a catalog edit, the engine after an upgrade (the engine when both changed at once).
    Raises ShadowError when no axis has two values with routes."""
    kept = [r for r in records if not _skipped(r)]
    axes = [by] if by else list(AXES)
    changed: dict[str, int] = {}
    for axis in axes:
        member = AXES[axis][0]
        values = [str(r.get(member)) for r in kept]
        last_change = max(
            (i for i in range(1, len(values)) if values[i] != values[i - 1]), default=-1
        )
        changed[axis] = last_change
    axis = max(axes, key=lambda a: (changed[a], a == "version"))
    listed = versions(kept, axis)
    if changed[axis] < 0 or len(listed) < 2:
        known = "; ".join(
            f"{AXES[a][2].lower()}: {', '.join(v['value'] for v in versions(kept, a)) or 'none'}"
            for a in AXES
        )
        raise ShadowError(
            "the log holds no two engine versions or catalog fingerprints to compare"
            if by is None
            else f"the log holds fewer than two {AXES[axis][2].lower()} with routes",
            f"Route again after an upgrade or a catalog edit ({known})",
        )
    return axis, listed[-2]["value"], listed[-1]["value"]


def documents(records: Iterable[Record], catalog: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Return the per-document view of the log's routes: `{routes, offered: [{id, path,
    offered, first}], never: [{id, path, kind}]}`: how often each id was offered (and offered
    first), most offered first (id on ties), and the `catalog` entries (`Engine.listing`'s
    `{id, path, kind}` rows) no logged route offered, in the catalog's order. Skipped
    records are not routes."""
    routes = 0
    offered: Counter[str] = Counter()
    first: Counter[str] = Counter()
    paths: dict[str, str] = {}
    for record in records:
        if _skipped(record):
            continue
        routes += 1
        pointers = _pointers(record)
        for place, pointer in enumerate(pointers):
            entry_id = str(pointer.get("id"))
            offered[entry_id] += 1
            first[entry_id] += place == 0
            paths.setdefault(entry_id, str(pointer.get("path")))
    ranked = sorted(offered, key=lambda i: (-offered[i], i))
    return {
        "routes": routes,
        "offered": [
            {"id": i, "path": paths[i], "offered": offered[i], "first": first[i]} for i in ranked
        ],
        "never": [
            {"id": e["id"], "path": e["path"], "kind": e["kind"]}
            for e in catalog
            if e["id"] not in offered
        ],
    }


def documents_text(view: Mapping[str, Any]) -> str:
    """Return the per-document view as text: the offered ids, most offered first, then the
    entries never offered. Ends without a newline."""
    lines = [f"{view['routes']} routes; {len(view['offered'])} documents offered"]
    lines += [
        f"  {d['offered']:>6} ({d['first']} first)  {flat(str(d['id']))}  {flat(str(d['path']))}"
        for d in view["offered"]
    ]
    lines.append(f"never offered: {len(view['never'])}")
    lines += [
        f"  {flat(str(d['id']))}  {flat(str(d['path']))} ({flat(str(d['kind']))})"
        for d in view["never"]
    ]
    return "\n".join(lines)


def replay(
    records: Iterable[Record],
    route: Callable[[str, dict[str, Any]], Mapping[str, Any]],
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Re-route each logged task with `route(task, request)` (which returns a route
    document) and report, Scientist-style, where the candidate differs from the control
    (the logged route). Tasks are deduplicated by task and request (the last record wins),
    in order of first appearance; skipped records are not replayed. A `route` that raises
    marks its task errored and replay goes on. `progress(done, total)` follows each task.

    Returns `{tasks: [{task, request, at, match, control: side, candidate: side | None,
    status, moved, appeared, vanished, error}], summary: {tasks, matched, mismatched,
    errored}, redacted}` (a side as in `diff`; match means same status, silence and pointer
    ids in the same order; `redacted` counts the routes logged redacted, which are skipped:
    their task is a digest)."""
    latest: dict[bytes, Record] = {}
    redacted = 0
    for record in records:
        if shadow.is_redacted(record) and not _skipped(record):
            redacted += 1  # its task is a digest: there is nothing to re-ask
        elif not _skipped(record):
            key = orjson.dumps(
                [record.get("task"), record.get("request")], option=orjson.OPT_SORT_KEYS
            )
            latest[key] = record
    results = []
    for done, record in enumerate(latest.values(), start=1):
        task, request = str(record.get("task")), dict(record.get("request") or {})
        control, error, candidate = _side(record), None, None
        try:
            candidate = _side(route(task, dict(request)))  # a copy: the report keeps its own
        except Exception as exc:  # replay never stops: a failing task is reported, not raised
            error = f"{type(exc).__name__}: {exc}"
        # an errored task is compared with itself: nothing moved, and it is no match
        changes = _changes(control, candidate or control)
        match = error is None and not changes["changed"]
        out = {"task": task, "request": request, "at": record.get("at"), "match": match}
        results.append({**out, "control": control, "candidate": candidate, **changes})
        results[-1]["error"] = error
        if progress is not None:
            progress(done, len(latest))
    errored = sum(1 for r in results if r["error"] is not None)
    matched = sum(1 for r in results if r["match"])
    summary = {"tasks": len(results), "matched": matched, "errored": errored}
    return {
        "tasks": results,
        "summary": {**summary, "mismatched": len(results) - matched - errored},
        "redacted": redacted,
    }


def _side(record: Mapping[str, Any]) -> dict[str, Any]:
    """Return what is compared of one route: its status, silence reason and pointer ids."""
    silence = record.get("silence")
    return {
        "at": record.get("at"),
        "status": record.get("status"),
        "silence": silence.get("reason") if isinstance(silence, Mapping) else None,
        "pointers": [str(p.get("id")) for p in _pointers(record)],
    }


def _changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """Return the pointer moves between two sides, and whether anything compared differs."""
    old, new = before["pointers"], after["pointers"]
    where_old = {p: i for i, p in enumerate(old, start=1)}
    where_new = {p: i for i, p in enumerate(new, start=1)}
    moved = [
        {"id": p, "from": where_old[p], "to": where_new[p]}
        for p in new
        if p in where_old and where_old[p] != where_new[p]
    ]
    appeared = [{"id": p, "to": where_new[p]} for p in new if p not in where_old]
    vanished = [{"id": p, "from": where_old[p]} for p in old if p not in where_new]
    status = None
    if (before["status"], before["silence"]) != (after["status"], after["silence"]):
        status = {"from": before["status"], "to": after["status"]}
        status |= {"from_silence": before["silence"], "to_silence": after["silence"]}
    return {
        "changed": old != new or status is not None,
        "status": status,
        "moved": moved,
        "appeared": appeared,
        "vanished": vanished,
    }


def _skipped(record: Mapping[str, Any]) -> bool:
    return record.get("status") == SKIPPED


def _pointers(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Return a record's pointers, ignoring anything in the list that is not an object."""
    found = record.get("pointers")
    return [p for p in found if isinstance(p, Mapping)] if isinstance(found, list) else []
