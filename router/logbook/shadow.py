"""The shadow-mode log (DESIGN 12): one JSON line per route emitted, read back for review.

Services layer: it builds the records, names the log files and reads them, but never the
clock or the environment (callers pass `at`, paths and versions) and never prints (the CLI
prints the text forms in `router.logbook.report`). Lines are appended whole under a lock by
`router.logbook.logfile`; readers skip a torn or garbled line and count it; lines of older
schemas are upgraded as they are read, never rewritten.
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from router.base.errors import ShadowError
from router.catalog.config import SHADOW_MODES

if TYPE_CHECKING:  # only its version, catalog and config are read: no engine is loaded here
    from router.runtime.engine import Engine

SCHEMA = "kroute.shadow/2"
SCHEMA_V1 = "kroute.shadow/1"  # `version`, `fingerprint`; no `skip`, no `intent`
SKIPPED = "skipped"  # the status of a record whose hook did not route
POINTER_FIELDS = ("id", "path", "kind", "purpose", "evidence")
PERCENTILES = (50, 90, 99)
LOG_SUFFIX = ".jsonl"
DAY_NAME = re.compile(r"\d{4}-\d{2}-\d{2}")
RATE_DIGITS = 4


Record = dict[str, Any]


# -- records -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Emitted:
    """One route emitted (a route request answered, or a hook event routed or skipped), as
    the shadow log keeps it: built once where it is answered, and taken whole by the
    recorder and by `record`. `mode` is the one in force (see `recorder.strictest`)."""

    engine_version: str
    catalog_fingerprint: str
    config_digest: str
    source: str
    mode: str
    injected: bool
    task: str
    request: Mapping[str, Any]
    document: Mapping[str, Any] | None  # None: the hook did not route (`skip` says why)
    text: str
    elapsed_us: int
    session: str | None = None
    prompt_id: str | None = None
    cwd: str | None = None
    skip: str | None = None

    @classmethod
    def of(
        cls,
        engine: Engine,
        *,
        source: str,
        mode: str,
        injected: bool,
        task: str,
        request: Mapping[str, Any],
        document: Mapping[str, Any] | None,
        text: str,
        elapsed_us: int,
        session: str | None = None,
        prompt_id: str | None = None,
        cwd: str | None = None,
        skip: str | None = None,
    ) -> Emitted:
        """Return the route `engine` emitted: its version, catalog fingerprint and config
        digest taken from it, the rest as given."""
        return cls(
            engine.version,
            engine.catalog.fingerprint,
            engine.config.digest,
            source,
            mode,
            injected,
            task,
            request,
            document,
            text,
            elapsed_us,
            session,
            prompt_id,
            cwd,
            skip,
        )


def record(emitted: Emitted, at: str) -> Record:
    """Return the log line's record of a route emitted at `at` (all DESIGN 12 fields,
    schema SCHEMA).

    `emitted.document` is the route JSON document (render.route_json); a hook that did not
    route has None with `skip` saying why, and the record's status is "skipped". Raises
    ShadowError for an unknown mode, or when skip/document/injected contradict each other."""
    mode, document, skip, injected = emitted.mode, emitted.document, emitted.skip, emitted.injected
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
        "engine_version": emitted.engine_version,
        "catalog_fingerprint": emitted.catalog_fingerprint,
        "config_digest": emitted.config_digest,
        "source": emitted.source,
        "session": emitted.session,
        "prompt_id": emitted.prompt_id,
        "cwd": emitted.cwd,
        "mode": mode,
        "injected": injected,
        "task": emitted.task,
        "request": dict(emitted.request),
        "status": doc.get("status", SKIPPED),
        "silence": doc.get("silence"),
        "pointers": [{k: p.get(k) for k in POINTER_FIELDS} for p in doc.get("pointers") or []],
        "withheld": doc.get("withheld", 0),
        "intent": doc.get("intent"),
        "text": emitted.text,
        "elapsed_us": emitted.elapsed_us,
        "skip": skip,
        # the neighbours by meaning beside the route (the meaning extra, shadow or live)
        **({"meaning": doc["meaning"]} if doc.get("meaning") else {}),
    }


DIGEST_PREFIX = "sha256:"
DIGEST_HEX = 16  # 64 bits: enough to tell tasks apart in a review, too few to matter
KEPT_EVIDENCE = ("by", "field", "rank", "of")  # what reached a pointer, but not the words


def digest(value: str) -> str:
    """Return `sha256:<first DIGEST_HEX hex digits>` of a text, "" for an empty one."""
    if not value:
        return ""
    return DIGEST_PREFIX + hashlib.sha256(value.encode("utf-8")).hexdigest()[:DIGEST_HEX]


def redacted(record: Record) -> Record:
    """Return a record holding no words of the task (`[shadow] redact = true`): the task
    and the text as digests, the evidence without its terms or anchors, the silence
    without its sentence, and `redacted: true`. Replay cannot re-ask such a line."""
    silence = record.get("silence")
    pointers = [
        {
            **p,
            "evidence": {k: v for k, v in (p.get("evidence") or {}).items() if k in KEPT_EVIDENCE},
        }
        for p in record.get("pointers") or []
    ]
    return {
        **record,
        "task": digest(str(record.get("task", ""))),
        "text": digest(str(record.get("text", ""))),
        "pointers": pointers,
        "silence": {"reason": silence.get("reason")} if isinstance(silence, Mapping) else None,
        "redacted": True,
    }


def is_redacted(record: Mapping[str, Any]) -> bool:
    """Return whether a record was logged redacted (its task is a digest)."""
    return record.get("redacted") is True


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


@dataclass(frozen=True, slots=True)
class Skipped:
    """A line that was passed over: which file, which line (1-based), and why."""

    path: Path
    line: int
    reason: str


class Reading:
    """The records of some log files, upgraded to SCHEMA, yielded lazily in file order.

    Iterate it for the records. `skipped` lists the lines passed over (torn, not a JSON
    object, unknown schema, a member missing or of the wrong type); it is complete once an
    iteration has finished, and iterating again re-reads the files and fills it afresh."""

    def __init__(
        self,
        files: tuple[Path, ...],
        since: str | None,
        lift: Callable[[object], Record] | None = None,
    ) -> None:
        self.files = files
        self.since = since
        # what turns a parsed line into a record, raising ShadowError for one it cannot
        self.lift = lift or lifted
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
                    record = self.lift(orjson.loads(raw))
                except (orjson.JSONDecodeError, ShadowError) as exc:
                    reason = exc.what if isinstance(exc, ShadowError) else "not a JSON object"
                    self.skipped.append(Skipped(path, number, reason))
                    continue
                at = record.get("at")
                if self.since is None or (isinstance(at, str) and at >= self.since):
                    yield record


def read(
    source: Path | Iterable[Path],
    since: str | None = None,
    lift: Callable[[object], Record] | None = None,
) -> Reading:
    """Return a lazy Reading of the log: a directory means all its `*.jsonl` by name.

    `since` (an ISO date or datetime prefix) keeps records whose `at` sorts at or after it.
    `lift` reads one parsed line (default `lifted`: a route line of any schema, upgraded).
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
    return Reading(files, since, lift)


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


# What every reader relies on: member -> the JSON types it may hold (None where it may be null).
MEMBERS: dict[str, tuple[type | None, ...]] = {
    "at": (str,),
    "engine_version": (str, None),
    "catalog_fingerprint": (str, None),
    "config_digest": (str, None),
    "source": (str,),
    "session": (str, None),
    "prompt_id": (str, None),
    "cwd": (str, None),
    "mode": (str,),
    "injected": (bool,),
    "task": (str,),
    "request": (dict,),
    "status": (str,),
    "silence": (dict, None),
    "pointers": (list,),
    "withheld": (int,),
    "intent": (dict, None),
    "text": (str,),
    "elapsed_us": (int,),
    "skip": (str, None),
}


def complete(record: Record) -> Record:
    """Return a record that holds every member a reader uses, each of its type. Raises
    ShadowError naming the first member that is missing or of another type (a line another
    tool wrote, or a hand edit): readers skip such a line and count it, like a torn one."""
    for member, kinds in MEMBERS.items():
        if member not in record:
            raise ShadowError(f"no `{member}` member")
        value = record[member]
        if value is None and None in kinds:
            continue
        # a bool is an int to Python, never to JSON readers
        if isinstance(value, bool) and bool not in kinds:
            raise ShadowError(f"`{member}` is not of its type")
        if not isinstance(value, tuple(k for k in kinds if k is not None)):
            raise ShadowError(f"`{member}` is not of its type")
    if not all(isinstance(p, dict) for p in record["pointers"]):
        raise ShadowError("`pointers` holds something other than objects")
    return record


def lifted(line: object) -> Record:
    """Return a parsed route line upgraded to SCHEMA and checked (`upgrade`, `complete`).
    Raises ShadowError for a line readers skip."""
    return complete(upgrade(line))


def tail(records: Iterable[Record], n: int) -> list[Record]:
    """Return the last `n` records (all of them when there are fewer)."""
    return list(deque(records, maxlen=max(n, 0)))
