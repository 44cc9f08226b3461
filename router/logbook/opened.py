"""The documents agents opened (DESIGN 12): one JSON line per catalog document an agent
read, joined to the route of its session that offered it first.

Services layer like `router.logbook.shadow`: it builds the records, tells which file is a
catalog document, remembers what each session was offered, names the files and reads them,
but never reads the clock or the environment and never prints. The lines live beside the
route log, in `<state>/shadow/<repo>/opened/<YYYY-MM-DD>.jsonl` (0600 files in 0700
directories, written by `router.logbook.logfile`). They hold no prompt: a session id, the
document, the tool, and the route that offered it.
"""

from __future__ import annotations

import mmap
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import orjson

from router.base.errors import ShadowError
from router.catalog import pattern
from router.catalog.entry import Entry
from router.client import trust
from router.logbook import shadow
from router.logbook.shadow import Record
from router.ranking.index import Index

SCHEMA = "kroute.opened/1"
SUBDIR = "opened"  # below the repository's route log directory
SKILL_FILE = "SKILL.md"  # a skill's own file: the other Markdown files of its folder are pages
MAX_SESSIONS = 256  # sessions remembered, least recently used forgotten first
# Days of route log read back for a session the memory does not hold (after a restart, or in
# the in-process fallback): the day of the read and the one before it.
PRIME_DAYS = 2


@dataclass(frozen=True, slots=True)
class Offer:
    """The first route of a session that offered a document: when, from which engine and
    catalog, where the pointer stood (1-based), in which mode, and which hook asked."""

    at: str
    engine_version: str | None
    catalog_fingerprint: str | None
    rank: int
    mode: str
    source: str
    prompt_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Found:
    """A file an agent opened that is a catalog document: its entry, and the file itself
    (repository-relative: the entry's own path, or a page of a skill's folder)."""

    entry: Entry
    file: str


# -- records -------------------------------------------------------------------------------


def record(
    *,
    at: str,
    engine_version: str,
    catalog_fingerprint: str,
    source: str,
    session: str | None,
    tool: str,
    found: Found,
    offer: Offer | None,
) -> Record:
    """Return one line's record: the document opened and the offer it followed (None: no
    route of the session had offered it)."""
    return {
        "schema": SCHEMA,
        "at": at,
        "engine_version": engine_version,
        "catalog_fingerprint": catalog_fingerprint,
        "source": source,
        "session": session,
        "tool": tool,
        "id": found.entry.id,
        "path": found.entry.path,
        "file": found.file,
        "kind": found.entry.kind,
        "offer": offer.as_dict() if offer is not None else None,
    }


# What readers rely on: member -> the JSON types it may hold (None where it may be null).
MEMBERS: dict[str, tuple[type | None, ...]] = {
    "at": (str,),
    "engine_version": (str, None),
    "catalog_fingerprint": (str, None),
    "source": (str,),
    "session": (str, None),
    "tool": (str,),
    "id": (str,),
    "path": (str,),
    "file": (str,),
    "kind": (str,),
    "offer": (dict, None),
}
OFFER_MEMBERS = {"engine_version": (str, None), "catalog_fingerprint": (str, None), "rank": (int,)}


def lifted(line: object) -> Record:
    """Return a parsed line as a record. Raises ShadowError for one readers skip: not an
    object, another schema, or a member missing or of another type."""
    if not isinstance(line, dict):
        raise ShadowError("not a JSON object")
    if line.get("schema") != SCHEMA:
        raise ShadowError(f"unknown schema {line.get('schema')!r}")
    _check(line, MEMBERS)
    if line["offer"] is not None:
        _check(line["offer"], OFFER_MEMBERS)
    return line


def _check(record: Mapping[str, Any], members: Mapping[str, tuple[type | None, ...]]) -> None:
    for member, kinds in members.items():
        if member not in record:
            raise ShadowError(f"no `{member}` member")
        value = record[member]
        if value is None and None in kinds:
            continue
        if isinstance(value, bool) or not isinstance(value, tuple(k for k in kinds if k)):
            raise ShadowError(f"`{member}` is not of its type")


# -- files -----------------------------------------------------------------------------------


def log_dir(state_dir: Path, repo_id: str) -> Path:
    """Return the directory of one repository's reads: beside its route log."""
    return shadow.log_dir(state_dir, repo_id) / SUBDIR


def log_path(state_dir: Path, repo_id: str, day: str) -> Path:
    """Return the reads file of one UTC day. Raises ShadowError for another day format."""
    return log_dir(state_dir, repo_id) / shadow.log_path(state_dir, repo_id, day).name


def read(directory: Path, since: str | None = None) -> shadow.Reading:
    """Return a lazy reading of the reads under the route log `directory` (none when no read
    was logged yet), skipping and counting lines as `shadow.read` does."""
    found = directory / SUBDIR
    if not found.is_dir():
        return shadow.Reading((), since, lifted)
    return shadow.read(found, since, lifted)


def session_routes(directory: Path, session: str, days: Iterable[str]) -> Iterator[Record]:
    """Yield the route records of one session in the route log `directory`, for the given
    `YYYY-MM-DD` days, in order. The day's file is searched for the session's id as its
    lines write it and only the lines holding it are parsed (a full day's 64 MiB takes tens
    of milliseconds); a day without a log, a line that cannot be read and a file that is not
    the user's own are passed over."""
    needle = b'"session":' + orjson.dumps(session)
    for day in sorted(days):
        path = directory / f"{day}{shadow.LOG_SUFFIX}"
        try:
            fd = trust.open_private(path, os.O_RDONLY)
        except OSError:  # no log that day, or not ours (StateError is an OSError too)
            continue
        try:
            found = _lines_holding(fd, needle)
        finally:
            os.close(fd)
        for line in found:
            try:
                route = shadow.lifted(orjson.loads(line))
            except (orjson.JSONDecodeError, ShadowError):
                continue
            if route.get("session") == session:
                yield route


def _lines_holding(fd: int, needle: bytes) -> list[bytes]:
    """Return the whole lines (ending in a newline) of an open file that hold `needle`."""
    size = os.fstat(fd).st_size
    if not size:
        return []
    with mmap.mmap(fd, size, access=mmap.ACCESS_READ) as text:
        lines, at = [], text.find(needle)
        while at != -1:
            start, end = text.rfind(b"\n", 0, at) + 1, text.find(b"\n", at)
            if end == -1:  # a torn last line
                break
            lines.append(text[start:end])
            at = text.find(needle, end)
    return lines


# -- which file is a document ----------------------------------------------------------------


def document_of(index: Index, root: Path, path: str, cwd: str | None = None) -> Found | None:
    """Return the catalog document a file an agent opened is (`path` absolute, or relative
    to `cwd`, else to `root`): an entry's own file, or a page of a skill's folder (the
    skill). None for any other file: outside the repository, not in the catalog, or a
    catalog file holding many entries (a JSON catalog)."""
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = Path(cwd or root) / candidate
    try:
        relative = candidate.resolve().relative_to(root.resolve()).as_posix()
    except (OSError, RuntimeError, ValueError):  # RuntimeError: a symlink loop, before 3.13
        return None
    own = _entry_at(index, relative)
    if own is not None:
        return Found(own, relative)
    for folder in PurePosixPath(relative).parents:
        if str(folder) == ".":
            break
        skill = _entry_at(index, f"{folder}/{SKILL_FILE}")
        if skill is not None:
            page = relative[len(str(folder)) + 1 :]
            if any(section.page == page for section in skill.body):
                return Found(skill, relative)
            return None  # a file of the skill's folder that it does not read
    return None


def _entry_at(index: Index, relative: str) -> Entry | None:
    """Return the entry whose own file is `relative`, or None."""
    found = index.resolve(relative)
    item = index.get(found) if found is not None else None
    return item if item is not None and pattern.clean(item.path) == relative else None


# -- what each session was offered -----------------------------------------------------------


@dataclass(slots=True)
class _Session:
    primed: bool = False  # its routes were read back from the log
    first: dict[str, Offer] = field(default_factory=dict)  # entry id -> its first offer
    # (entry id, whether it had been offered) of each read logged
    opened: set[tuple[str, bool]] = field(default_factory=set)


class Offers:
    """Per session id, the first route that offered each entry, and the entries whose read
    was logged (thread-safe: the daemon answers each connection on its own thread).

    The daemon notes each route it answers; a session it has not read back yet is read from
    the route log on its first read (`find`), so a daemon started since, or an in-process
    answer, joins a read to a route another process answered. Bounded: the MAX_SESSIONS most
    recently used sessions are kept."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def note(self, session: str, offer: Offer, ids: Iterable[str]) -> None:
        """Remember `offer` as the offer of each id that has none in this session yet; the
        rank is each id's place in `ids` (1-based)."""
        with self._lock:
            state = self._state(session)
            for rank, entry_id in enumerate(ids, start=1):
                if entry_id not in state.first:
                    state.first[entry_id] = Offer(**{**offer.as_dict(), "rank": rank})

    def find(
        self, session: str, entry_id: str, routes: Callable[[], Iterable[Record]]
    ) -> Offer | None:
        """Return the first offer of `entry_id` in the session, None when no route of it
        offered the entry. A session not read back yet is first read from `routes()` (its
        logged routes, in order), outside the lock."""
        with self._lock:
            primed = self._state(session).primed
        if not primed:
            logged: dict[str, Offer] = {}
            for found in routes():
                for rank, pointer in enumerate(found.get("pointers") or [], start=1):
                    if isinstance(pointer, dict) and "id" in pointer:
                        logged.setdefault(str(pointer["id"]), offer_of(found, rank))
            with self._lock:
                state = self._state(session)
                if not state.primed:
                    # the log's offers come first; a route whose line is still being written
                    # is known only here
                    for entry, offer in state.first.items():
                        logged.setdefault(entry, offer)
                    state.first, state.primed = logged, True
        with self._lock:
            return self._state(session).first.get(entry_id)

    def first_read(self, session: str, entry_id: str, offered: bool) -> bool:
        """Return whether this is the session's first read of `entry_id` noted since it was
        offered (`offered`), or before any offer (and note it): a document read again, page
        after page, is logged once before its pointer and once after it."""
        with self._lock:
            state = self._state(session)
            fresh = (entry_id, offered) not in state.opened
            state.opened.add((entry_id, offered))
            return fresh

    def _state(self, session: str) -> _Session:
        """Return a session's memory, now the most recently used (called under the lock)."""
        state = self._sessions.pop(session, None) or _Session()
        self._sessions[session] = state
        while len(self._sessions) > self.limit:
            self._sessions.popitem(last=False)
        return state


def offer_of(route: Mapping[str, Any], rank: int) -> Offer:
    """Return the offer a logged route made of its pointer at `rank`."""
    return Offer(
        at=str(route.get("at")),
        engine_version=route.get("engine_version"),
        catalog_fingerprint=route.get("catalog_fingerprint"),
        rank=rank,
        mode=str(route.get("mode")),
        source=str(route.get("source")),
        prompt_id=route.get("prompt_id"),
    )
