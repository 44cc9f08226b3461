"""Snapshots: an engine's parsed catalog and built index kept in the state dir, so a daemon's
restart reads only the catalog files that changed instead of the whole catalog.

A snapshot is one file: a small pickled header (format, engine version, Python version,
the configuration it was built under), read alone to decide whether the rest is worth
reading; the ranker's postings as raw arrays; the catalog and the index, pickled; and a
trailer saying where the parts lie. The postings (a third of a large snapshot) are not read
in but mapped: a restored index reads them from the page cache in place, so a restart does
not wait for them to be copied in (`posting.Posting.own` copies one out on its first change).
The file is never written in place (a new one is renamed over it), so a mapping stays valid
while a daemon lives. It lives in the user's private state dir
(`trust.check_private` refuses one that is not), which is what makes unpickling it safe: no
one else can write there. Any doubt (another version, another configuration, a truncated
file) means a cold load, never a wrong index.

Clock and paths come from the caller: `began_ns` is when the reads behind an engine began.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import marshal
import mmap
import os
import pickle
import struct
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from router.base.errors import StateError
from router.catalog import reader
from router.catalog.config import Config
from router.catalog.diagnostic import Diagnostic, FileResult
from router.catalog.entry import Entry, Note, Routing, Section
from router.catalog.reader import Catalog
from router.client import trust
from router.ranking.index import Index
from router.ranking.posting import Posting
from router.runtime import census
from router.runtime.engine import Engine

FORMAT = 4  # bump when the pickled classes change shape in a way pickle cannot follow
MAGIC = "kroute-snapshot"


# The catalog's records are frozen dataclasses with slots, which pickle would restore through
# dataclasses' own __setstate__ (a Python call that looks up the fields, per object): reading
# them back by calling the class with its field values takes a third of that, and a snapshot
# holds millions of them.
RECORDS: tuple[type, ...] = (Entry, Routing, Note, Section, FileResult, Diagnostic)
_FIELDS = {cls: tuple(f.name for f in dataclasses.fields(cls)) for cls in RECORDS}


def _as_call(record: Any) -> tuple[type, tuple[Any, ...]]:
    return type(record), tuple(getattr(record, name) for name in _FIELDS[type(record)])


_REDUCERS: dict[type, Any] = {cls: _as_call for cls in RECORDS}


# The trailer: where the region of bodies and postings starts and how long it is, where the
# pickled catalog and index start, and a mark that the file was written to its end.
TRAILER = struct.Struct("<QQQ8s")
TRAILER_MARK = b"kroute.2"
ALIGN = 8  # the region and each array in it start at a multiple of this


class _Reading(threading.local):
    region: memoryview | None = None


_reading = _Reading()  # the region of the snapshot being read, for `_posting` and `_body_of`


def _posting(slots_at: int, count: int, impacts_at: int) -> Posting:
    """Return a posting whose arrays are views of the mapped region being read."""
    region = _reading.region
    if region is None:
        raise pickle.UnpicklingError("a posting outside a snapshot's region")
    slots = region[slots_at : slots_at + 4 * count].cast("i")
    impacts = region[impacts_at : impacts_at + count]
    if len(slots) != count or len(impacts) != count:
        raise pickle.UnpicklingError("a posting beyond the snapshot's region")
    return Posting(slots, impacts)


class MappedBody(Sequence[Section]):
    """An entry's body restored from a snapshot: its sections, decoded from the mapped
    file each time they are read (a route reads the bodies of the few entries it shows)."""

    __slots__ = ("_count", "_view")

    def __init__(self, view: memoryview, count: int) -> None:
        self._view = view
        self._count = count

    def _sections(self) -> tuple[Section, ...]:
        return tuple(Section(*fields) for fields in marshal.loads(self._view))

    def __getitem__(self, at: Any) -> Any:
        return self._sections()[at]

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Section]:
        return iter(self._sections())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return self._sections() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._sections())  # as the equal tuple's

    def __repr__(self) -> str:
        return repr(self._sections())

    def __reduce__(self) -> tuple[Any, ...]:
        return tuple, (self._sections(),)


def _body_of(at: int, length: int, count: int) -> MappedBody:
    """Return a body whose sections are marshalled in the region being read."""
    region = _reading.region
    if region is None:
        raise pickle.UnpicklingError("a body outside a snapshot's region")
    view = region[at : at + length]
    if len(view) != length:
        raise pickle.UnpicklingError("a body beyond the snapshot's region")
    return MappedBody(view, count)


class _BodyAt:
    """Stands for an entry's body in the pickle: where its bytes lie in the region."""

    __slots__ = ("at", "count", "length")

    def __init__(self, at: int, length: int, count: int) -> None:
        self.at, self.length, self.count = at, length, count

    def __reduce__(self) -> tuple[Any, ...]:
        return _body_of, (self.at, self.length, self.count)


def _write_region(
    out: Any, engine: Engine
) -> tuple[dict[int, tuple[int, int, int]], dict[int, _BodyAt]]:
    """Write every posting's slots and impacts and every entry's body to `out` (from an
    aligned file offset) and return where each lies, from the region's start: id(posting) ->
    (slots offset, count, impacts offset), and id(entry) -> its body's place."""
    where: dict[int, tuple[int, int, int]] = {}
    bodies: dict[int, _BodyAt] = {}
    at = 0
    entries = [e for one in engine.catalog.files.values() for e in one.entries]
    entries.extend(indexed.entry for indexed in engine.index)
    for entry in entries:
        if not entry.body or id(entry) in bodies:
            continue
        if isinstance(entry.body, MappedBody):
            raw: Any = entry.body._view
        else:
            raw = marshal.dumps(tuple((s.heading, s.text, s.page) for s in entry.body))
        out.write(raw)
        bodies[id(entry)] = _BodyAt(at, len(raw), len(entry.body))
        at += len(raw)
    out.write(b"\0" * (-at % ALIGN))
    at += -at % ALIGN
    for posting in engine.index.each_posting():
        slots = memoryview(posting.slots)
        impacts = memoryview(posting.impacts)
        if slots.itemsize != 4 or impacts.itemsize != 1:
            raise ValueError("postings of an unexpected item size")
        slots_at = at
        out.write(slots)
        at += slots.nbytes
        impacts_at = at
        out.write(impacts)
        at += impacts.nbytes
        pad = -at % ALIGN
        out.write(b"\0" * pad)
        at += pad
        where[id(posting)] = (slots_at, len(slots), impacts_at)
    return where, bodies


class UnusableError(Exception):
    """A snapshot file that exists but cannot serve: the reason says why (logged)."""


@dataclass(frozen=True, slots=True)
class Restored:
    """An engine brought back from a snapshot, and the catalog files read again because
    they changed since it was written."""

    engine: Engine
    changed: tuple[str, ...]


def _header(config: Config, version: str, began_ns: int, files: int = 0) -> dict[str, Any]:
    return {
        "magic": MAGIC,
        "format": FORMAT,
        "version": version,
        "code": code_stamp(),
        "python": sys.version_info[:2],
        "byteorder": sys.byteorder,
        "config": config,
        "began_ns": began_ns,
        "files": files,
    }


@functools.lru_cache(maxsize=1)
def code_stamp() -> str:
    """Return a digest of the size and modification time of every module of this package.
    The version alone is not enough: an editable install keeps it while its classes change
    shape, and a snapshot of the old shapes would unpickle into objects the new code cannot
    use."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for module in sorted(package.rglob("*.py")):
        info = module.stat()
        digest.update(f"{module.relative_to(package)}:{info.st_size}:{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def save(engine: Engine, path: Path, began_ns: int) -> int:
    """Write `engine`'s catalog and index to `path` (atomically: a temporary file renamed
    over it, mode 0600) and return the bytes written. `began_ns` is the wall-clock time,
    in ns, at which the reads behind the engine began. The caller keeps the engine from
    changing while this runs. Raises OSError when the file cannot be written (none is left
    half-written)."""
    temporary = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        fd = trust.open_private(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        with os.fdopen(fd, "wb") as out:
            header = _header(engine.config, engine.version, began_ns, len(engine.catalog.files))
            pickle.dump(header, out, protocol=5)
            out.write(b"\0" * (-out.tell() % ALIGN))
            region_at = out.tell()
            where, bodies = _write_region(out, engine)
            region_length = out.tell() - region_at
            body_at = out.tell()

            def posting(p: Posting) -> tuple[Any, tuple[int, int, int]]:
                return _posting, where[id(p)]

            def entry(e: Entry) -> tuple[type, tuple[Any, ...]]:
                cls, values = _as_call(e)
                body = bodies.get(id(e))
                if body is None:
                    return cls, values
                named = zip(_FIELDS[cls], values, strict=True)
                return cls, tuple(body if name == "body" else v for name, v in named)

            pickler = pickle.Pickler(out, protocol=5)
            pickler.dispatch_table = {**_REDUCERS, Posting: posting, Entry: entry}
            pickler.dump((engine.catalog, engine.index))
            out.write(TRAILER.pack(region_at, region_length, body_at, TRAILER_MARK))
            written = out.tell()
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return written


def restore(
    config: Config,
    path: Path,
    version: str,
    armed: Callable[[], object] = lambda: None,
    *,
    watched: bool = False,
) -> Restored | None:
    """Return the engine the snapshot at `path` holds, brought in line with the catalog on
    disk (files changed since are read again), or None when there is no snapshot. The
    catalog is walked for changes (in a helper process while the snapshot is read, for a
    large one: `census`) once `armed` returns: a daemon's file watches are set by then.
    A file modified just before the snapshot's reads began (`reader.racy`) is read again
    even with its stamp unchanged, unless `watched`: the caller's watcher has followed
    every read since, and reports such an edit itself.

    Raises UnusableError when the snapshot was written by another engine version, Python or
    format, under another configuration, or cannot be read whole."""
    try:
        source = os.fdopen(trust.open_private(path, os.O_RDONLY), "rb")
    except FileNotFoundError:
        return None
    except OSError as error:
        raise UnusableError(f"cannot open it: {error.strerror or error}") from None
    except StateError as error:
        raise UnusableError(str(error)) from None
    with source:
        try:
            header = pickle.load(source)
        except Exception as error:
            raise UnusableError(f"its header cannot be read ({type(error).__name__})") from None
        expected = _header(config, version, 0)
        if not isinstance(header, dict) or header.get("magic") != MAGIC:
            raise UnusableError("it is not a kroute snapshot")
        for key, why in (
            ("format", "an older snapshot format"),
            ("version", "another kroute version"),
            ("code", "another build of this kroute version"),
            ("python", "another Python version"),
            ("config", "another configuration"),
        ):
            if header.get(key) != expected[key]:
                raise UnusableError(f"it was written by {why}")
        survey = census.Census(config, int(header.get("files", 0)), armed)
        try:
            cat, index = _body(source)
            if not isinstance(cat, Catalog) or not isinstance(index, Index):
                raise UnusableError("its body is not a catalog and an index")
        except BaseException:
            survey.cancel()
            raise
    engine = Engine.of_parts(config, cat, index, version)
    began_ns = None if watched else int(header["began_ns"])
    changed, problems = reader.changed_since(config, cat, began_ns, survey.result())
    if changed or problems != cat.walk:
        engine.update(changed, reader.refresh(config, cat, changed, problems))
    return Restored(engine, tuple(changed))


def _body(source: Any) -> tuple[Any, Any]:
    """Return the catalog and index a snapshot file holds, its postings mapped from the
    file. Raises UnusableError when the file is cut short or its parts do not add up."""
    try:
        size = os.fstat(source.fileno()).st_size
        if size < TRAILER.size:
            raise UnusableError("it is cut short")
        source.seek(size - TRAILER.size)
        region_at, region_length, body_at, mark = TRAILER.unpack(source.read(TRAILER.size))
        if mark != TRAILER_MARK or not region_at + region_length <= body_at <= size:
            raise UnusableError("it is cut short")
        # ACCESS_READ: the views are read-only, and a change copies a posting out first
        mapped = mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        if mapped is None:
            raise UnusableError("it is empty")
        source.seek(body_at)
        _reading.region = memoryview(mapped)[region_at : region_at + region_length]
        try:
            return pickle.load(source)  # type: ignore[no-any-return]
        finally:
            _reading.region = None
    except UnusableError:
        raise
    except Exception as error:
        raise UnusableError(f"its body cannot be read ({type(error).__name__})") from None


def path_of(state: Path, key: str) -> Path:
    """Return where the snapshot of the catalog with this key (`locate.key`) lives."""
    return state / "snapshots" / f"{key}.pickle"
