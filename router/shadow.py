"""The shadow-mode log (DESIGN 12): one JSON line per route emitted, read back for review.

Services layer: it reads and writes log files but never the clock or the environment
(callers pass `at`, paths and versions) and never prints (the CLI prints the text forms in
`router.report`). Lines are appended whole under a lock; readers skip a torn or garbled line
and count it; lines of older schemas are upgraded as they are read, never rewritten.
"""

from __future__ import annotations

import fcntl
import itertools
import math
import os
import re
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from router import report
from router.config import SHADOW_MODES
from router.errors import KrouteError
from router.report import diff_text as diff_text
from router.report import replay_text as replay_text
from router.report import stats_text as stats_text

SCHEMA = "kroute.shadow/2"
SCHEMA_V1 = "kroute.shadow/1"  # `version`, `fingerprint`; no `skip`, no `intent`
SKIPPED = "skipped"  # the status of a record whose hook did not route
POINTER_FIELDS = ("id", "path", "kind", "purpose", "evidence")
PERCENTILES = (50, 90, 99)
DIR_MODE = 0o700
FILE_MODE = 0o600  # the log holds the user's prompts
LOG_SUFFIX = ".jsonl"
DAY_NAME = re.compile(r"\d{4}-\d{2}-\d{2}")
RATE_DIGITS = 4


class ShadowError(KrouteError):
    """The shadow log cannot be written or read, or a record or request is inconsistent."""


Record = dict[str, Any]


# -- records -------------------------------------------------------------------------------


def entry(
    *,
    at: str,
    engine_version: str,
    catalog_fingerprint: str,
    config_digest: str,
    source: str,
    session: str | None,
    prompt_id: str | None,
    cwd: str | None,
    mode: str,
    injected: bool,
    task: str,
    request: Mapping[str, Any],
    document: Mapping[str, Any] | None,
    text: str,
    elapsed_us: int,
    skip: str | None = None,
) -> Record:
    """Return one log line's record (all DESIGN 12 fields, schema SCHEMA).

    `document` is the route JSON document (render.route_json); a hook that did not route
    passes None with `skip` saying why, and the record's status is "skipped". Raises
    ShadowError for an unknown mode, or when skip/document/injected contradict each other."""
    if mode not in SHADOW_MODES:
        raise ShadowError(
            f"shadow mode {mode!r} is unknown", f"Use one of {', '.join(SHADOW_MODES)}"
        )
    if (document is None) == (skip is None):
        raise ShadowError(
            "a shadow record needs exactly one of a route document and a skip reason",
            "Pass document=None with skip set when the hook did not route",
        )
    if injected and (mode != "live" or document is None):
        raise ShadowError(
            f"a record cannot be injected in mode {mode!r} without a route",
            "Only live mode injects a route",
        )
    doc: Mapping[str, Any] = document or {}
    return {
        "schema": SCHEMA,
        "at": at,
        "engine_version": engine_version,
        "catalog_fingerprint": catalog_fingerprint,
        "config_digest": config_digest,
        "source": source,
        "session": session,
        "prompt_id": prompt_id,
        "cwd": cwd,
        "mode": mode,
        "injected": injected,
        "task": task,
        "request": dict(request),
        "status": doc.get("status", SKIPPED),
        "silence": doc.get("silence"),
        "pointers": [{k: p.get(k) for k in POINTER_FIELDS} for p in doc.get("pointers") or []],
        "withheld": doc.get("withheld", 0),
        "intent": doc.get("intent"),
        "text": text,
        "elapsed_us": elapsed_us,
        "skip": skip,
    }


def body(task: str, request: Mapping[str, Any]) -> dict[str, Any]:
    """Return the engine request body (`Engine.route`) that re-asks a logged task: the
    logged filters flattened beside budget, order, strategy and paths, unset ones left out."""
    out: dict[str, Any] = {"task": task}
    filters = request.get("filters") or {}
    for name, value in [*filters.items(), *request.items()]:
        if name != "filters" and value is not None:
            out[name] = value
    return out


# -- files -----------------------------------------------------------------------------------


def log_dir(state_dir: Path, repo_id: str) -> Path:
    """Return the directory of one repository's daily logs: `<state>/shadow/<repo_id>`."""
    return state_dir / "shadow" / repo_id


def log_path(state_dir: Path, repo_id: str, day: str) -> Path:
    """Return the log file of one UTC day (`YYYY-MM-DD`). Raises ShadowError for another
    day format, so a caller's slip cannot scatter files."""
    if not DAY_NAME.fullmatch(day):
        raise ShadowError(f"{day!r} is not a YYYY-MM-DD day", "Pass the UTC date of `at`")
    return log_dir(state_dir, repo_id) / f"{day}{LOG_SUFFIX}"


def day_of(at: str) -> str:
    """Return the `YYYY-MM-DD` day of an ISO timestamp (the file it is logged in)."""
    return at[:10]


def append(path: Path, record: Mapping[str, Any]) -> None:
    """Append `record` to `path` as one line (sorted keys): a single write on an O_APPEND
    descriptor held under an exclusive flock, so concurrent writers never interleave.
    Missing parent directories are created 0700 and a new file 0600.

    Raises ShadowError when the record cannot be serialized or the log cannot be written."""
    try:
        line = orjson.dumps(record, option=orjson.OPT_SORT_KEYS) + b"\n"
    except orjson.JSONEncodeError as exc:
        raise ShadowError(f"a shadow record cannot be written as JSON: {exc}", "") from exc
    try:
        _private_parents(path.parent)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
    except OSError as exc:
        raise _unwritable(path, exc) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        # A writer killed mid-line left no newline: start afresh so only its line is lost
        # (read-write open only for this one-byte look back).
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        done = os.write(fd, line)
        while done < len(line):  # a short write (full disk, signal): finish under the lock
            done += os.write(fd, line[done:])
    except OSError as exc:
        raise _unwritable(path, exc) from exc
    finally:
        os.close(fd)  # closing releases the lock


def _private_parents(directory: Path) -> None:
    """Create `directory` and its missing ancestors 0700 (existing ones are left alone)."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        path.mkdir(mode=DIR_MODE, exist_ok=True)
        os.chmod(path, DIR_MODE)  # mkdir's mode is cut by the umask


def _unwritable(path: Path, exc: OSError) -> ShadowError:
    return ShadowError(
        f"cannot append to the shadow log {path}: {exc.strerror or exc}",
        'Check that KROUTE_HOME is writable, or set shadow.mode = "off"',
    )


@dataclass(frozen=True, slots=True)
class Skipped:
    """A line that was passed over: which file, which line (1-based), and why."""

    path: Path
    line: int
    reason: str


class Reading:
    """The records of some log files, upgraded to SCHEMA, yielded lazily in file order.

    Iterate it for the records. `skipped` lists the lines passed over (torn, not a JSON
    object, unknown schema); it is complete once an iteration has finished, and iterating
    again re-reads the files and fills it afresh."""

    def __init__(self, files: tuple[Path, ...], since: str | None) -> None:
        self.files = files
        self.since = since
        self.skipped: list[Skipped] = []

    def __iter__(self) -> Iterator[Record]:
        self.skipped = []
        for path in self.files:
            if self.since and DAY_NAME.fullmatch(path.stem) and path.stem < self.since[:10]:
                continue  # a whole day before `since`: nothing in it can pass
            yield from self._lines(path)

    def _lines(self, path: Path) -> Iterator[Record]:
        try:
            handle = path.open("rb")
        except OSError as exc:
            raise ShadowError(f"cannot read the shadow log {path}: {exc.strerror}", "") from exc
        with handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.endswith(b"\n"):
                    self.skipped.append(Skipped(path, number, "torn last line (no newline)"))
                    continue
                try:
                    record = upgrade(orjson.loads(raw))
                except (orjson.JSONDecodeError, ShadowError) as exc:
                    reason = exc.what if isinstance(exc, ShadowError) else "not a JSON object"
                    self.skipped.append(Skipped(path, number, reason))
                    continue
                at = record.get("at")
                if self.since is None or (isinstance(at, str) and at >= self.since):
                    yield record


def read(source: Path | Iterable[Path], since: str | None = None) -> Reading:
    """Return a lazy Reading of the log: a directory means all its `*.jsonl` by name.

    `since` (an ISO date or datetime prefix) keeps records whose `at` sorts at or after it.
    Raises ShadowError when a named file or directory does not exist (and, while iterating,
    when a file cannot be read)."""
    if not isinstance(source, Path):
        files = tuple(source)
    elif source.is_dir():
        files = tuple(sorted(source.glob(f"*{LOG_SUFFIX}")))
    else:
        files = (source,)
    for path in files:
        if not path.is_file():
            raise ShadowError(f"no shadow log at {path}", "Route a task first, or check the path")
    return Reading(files, since)


# -- schemas -------------------------------------------------------------------------------


def _from_v1(record: Record) -> Record:
    """kroute.shadow/1 -> /2: renamed version and fingerprint; skip and intent arrived."""
    out = {k: v for k, v in record.items() if k not in ("version", "fingerprint")}
    out["engine_version"] = record.get("version")
    out["catalog_fingerprint"] = record.get("fingerprint")
    out.setdefault("skip", None)
    out.setdefault("intent", None)
    out["schema"] = SCHEMA
    return out


# Old schema -> the function lifting a record one step; a new schema adds one entry here.
UPGRADES: dict[str, Callable[[Record], Record]] = {SCHEMA_V1: _from_v1}


def upgrade(record: object) -> Record:
    """Return `record` lifted to SCHEMA. Raises ShadowError when it is not a JSON object or
    its schema is unknown (a newer kroute wrote it, or it is not a shadow line)."""
    if not isinstance(record, dict):
        raise ShadowError("not a JSON object")
    for _ in range(len(UPGRADES) + 1):
        schema = record.get("schema")
        if schema == SCHEMA:
            return record
        step = UPGRADES.get(schema) if isinstance(schema, str) else None
        if step is None:
            raise ShadowError(f"unknown schema {schema!r}")
        record = step(record)
    raise ShadowError(f"schema upgrades loop at {record.get('schema')!r}")


def tail(records: Iterable[Record], n: int) -> list[Record]:
    """Return the last `n` records (all of them when there are fewer)."""
    return list(deque(records, maxlen=max(n, 0)))


# -- review --------------------------------------------------------------------------------


def stats(records: Iterable[Record]) -> dict[str, Any]:
    """Return `{versions, by_version: {version: group}, all: group}`, versions in natural
    order. A group: records, routes (routed + silent), routed, silent, skipped, injected,
    silence_rate (silent / routes), injected_rate (injected / routes), pointers_per_route
    (mean over routes, silent ones count 0), kinds and purposes offered (counts), skips (by
    reason), latency_us {p50, p90, p99, max} over routes. Rates and means are None when
    there is no route."""
    grouped: dict[str, list[Record]] = {}
    everything: list[Record] = []
    for record in records:
        grouped.setdefault(str(record.get("engine_version")), []).append(record)
        everything.append(record)
    versions = sorted(grouped, key=version_key)
    return {
        "versions": versions,
        "by_version": {v: _group(grouped[v]) for v in versions},
        "all": _group(everything),
    }


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


def diff(records: Iterable[Record], from_version: str, to_version: str) -> dict[str, Any]:
    """Return how the routes of tasks seen under both versions differ, comparing each
    version's last route of a task: `{from, to, tasks: [{task, from: side, to: side,
    changed, status, moved: [{id, from, to}], appeared: [{id, to}], vanished: [{id, from}]}],
    summary: {compared, changed, unchanged, moved, appeared, vanished, only_from, only_to}}`
    where a side is `{at, status, silence, pointers: [ids]}` and positions are 1-based.
    Tasks are sorted by text. Raises ShadowError when a version logged no route."""
    last: dict[str, dict[str, Record]] = {from_version: {}, to_version: {}}
    seen: set[str] = set()
    for record in records:
        version = str(record.get("engine_version"))
        seen.add(version)
        if version in last and not _skipped(record):
            last[version][str(record.get("task"))] = record
    for version in (from_version, to_version):
        if not last[version]:
            known = ", ".join(sorted(seen, key=version_key)) or "none"
            raise ShadowError(
                f"no route was logged under engine version {version}",
                f"Versions in the log: {known}",
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
    return {"from": from_version, "to": to_version, "tasks": tasks, "summary": summary}


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
    errored}}` (a side as in `diff`; match means same status, silence and pointer ids in
    the same order)."""
    latest: dict[bytes, Record] = {}
    for record in records:
        if not _skipped(record):
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


def report_html(records: Iterable[Record], title: str) -> str:
    """Return one self-contained HTML page (inline CSS and SVG; no script, no link out)
    with the stats table, consecutive-version comparisons, plots and the latest routes.
    Deterministic for the same records."""
    kept = list(records)
    summary = stats(kept)
    # only versions that routed something can be compared (a diff needs routes on both sides)
    routed = [v for v in summary["versions"] if summary["by_version"][v]["routes"]]
    comparisons = [diff(kept, a, b) for a, b in itertools.pairwise(routed)]
    latency = [int(r.get("elapsed_us") or 0) for r in kept if not _skipped(r)]
    return report.html(
        title=title,
        stats=summary,
        comparisons=comparisons,
        latency_us=latency,
        latest=tail(kept, report.LATEST_ROWS),
    )
