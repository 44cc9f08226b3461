"""Snapshots: an engine's parsed catalog and built index kept in the state dir, so a daemon's
restart reads only the catalog files that changed instead of the whole catalog.

A snapshot is two pickles in one file: a small header (format, engine version, Python
version, the configuration it was built under), read alone to decide whether the rest is
worth reading, then the catalog and the index. It lives in the user's private state dir
(`paths.check_private` refuses one that is not), which is what makes unpickling it safe: no
one else can write there. Any doubt (another version, another configuration, a truncated
file) means a cold load, never a wrong index.

Clock and paths come from the caller: `began_ns` is when the reads behind an engine began.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from router.core import catalog
from router.core.catalog import Catalog
from router.core.config import Config
from router.core.diagnostic import Diagnostic, FileResult
from router.core.entry import Entry, Note, Routing, Section
from router.core.index import Index
from router.runtime.engine import Engine

FORMAT = 1  # bump when the pickled classes change shape in a way pickle cannot follow
MAGIC = "kroute-snapshot"
# A file modified within this long before the reads began may have been modified in the same
# clock tick as it was read (its stamp unchanged): it is read again. Generous beside the
# coarsest timestamps Linux and macOS file systems keep (a few ms; FAT's 2 s).
RACY_NS = 2_000_000_000


# The catalog's records are frozen dataclasses with slots, which pickle would restore through
# dataclasses' own __setstate__ (a Python call that looks up the fields, per object): reading
# them back by calling the class with its field values takes a third of that, and a snapshot
# holds millions of them.
RECORDS: tuple[type, ...] = (Entry, Routing, Note, Section, FileResult, Diagnostic)
_FIELDS = {cls: tuple(f.name for f in dataclasses.fields(cls)) for cls in RECORDS}


def _as_call(record: Any) -> tuple[type, tuple[Any, ...]]:
    return type(record), tuple(getattr(record, name) for name in _FIELDS[type(record)])


_REDUCERS: dict[type, Any] = {cls: _as_call for cls in RECORDS}


class Unusable(Exception):
    """A snapshot file that exists but cannot serve: the reason says why (logged)."""


@dataclass(frozen=True, slots=True)
class Restored:
    """An engine brought back from a snapshot, and the catalog files read again because
    they changed since it was written."""

    engine: Engine
    changed: tuple[str, ...]


def _header(config: Config, version: str, began_ns: int) -> dict[str, Any]:
    return {
        "magic": MAGIC,
        "format": FORMAT,
        "version": version,
        "code": code_stamp(),
        "python": sys.version_info[:2],
        "config": config,
        "began_ns": began_ns,
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
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            pickler = pickle.Pickler(out, protocol=5)
            pickler.dispatch_table = _REDUCERS
            pickler.dump(_header(engine.config, engine.version, began_ns))
            pickler.clear_memo()  # each part is read by an unpickler of its own
            pickler.dump((engine.catalog, engine.index))
            written = out.tell()
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return written


def restore(config: Config, path: Path, version: str) -> Restored | None:
    """Return the engine the snapshot at `path` holds, brought in line with the catalog on
    disk (files changed since are read again), or None when there is no snapshot.

    Raises Unusable when the snapshot was written by another engine version, Python or
    format, under another configuration, or cannot be read whole."""
    try:
        source = path.open("rb")
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Unusable(f"cannot open it: {error.strerror or error}") from None
    with source:
        try:
            header = pickle.load(source)
        except Exception as error:
            raise Unusable(f"its header cannot be read ({type(error).__name__})") from None
        expected = _header(config, version, 0)
        if not isinstance(header, dict) or header.get("magic") != MAGIC:
            raise Unusable("it is not a kroute snapshot")
        for key, why in (
            ("format", "an older snapshot format"),
            ("version", "another kroute version"),
            ("code", "another build of this kroute version"),
            ("python", "another Python version"),
            ("config", "another configuration"),
        ):
            if header.get(key) != expected[key]:
                raise Unusable(f"it was written by {why}")
        try:
            cat, index = pickle.load(source)
        except Exception as error:
            raise Unusable(f"its body cannot be read ({type(error).__name__})") from None
    if not isinstance(cat, Catalog) or not isinstance(index, Index):
        raise Unusable("its body is not a catalog and an index")
    engine = Engine.of_parts(config, cat, index, version)
    changed, problems = catalog.changed_since(config, cat, int(header["began_ns"]) - RACY_NS)
    if changed or problems != cat.walk:
        engine.update(changed, catalog.refresh(config, cat, changed, problems))
    return Restored(engine, tuple(changed))


def path_of(state: Path, key: str) -> Path:
    """Return where the snapshot of the catalog with this key (`paths.key`) lives."""
    return state / "snapshots" / f"{key}.pickle"
