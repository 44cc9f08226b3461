"""How a starting daemon gets its engine: from its snapshot when one serves (only the files
changed since are read again), else by reading the whole catalog; and when to write a
snapshot for the next start.

The daemon answers `/v1/status` (state `loading`) while this runs on a thread of its own, so
hooks fail open at once instead of waiting out a large catalog.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import glob
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from router import __version__
from router.base.errors import DaemonError
from router.catalog.config import Config
from router.client import locate, trust
from router.client.trust import READABLE_BITS
from router.runtime import snapshot
from router.runtime.engine import Engine

# A catalog read cold in less than this gets no snapshot: reading it again costs about what
# reading a snapshot would, and the suite and small repositories start many daemons.
SNAPSHOT_AFTER_SECONDS = 1.0
# A restored snapshot is written again once this share of its files had to be read again
# (edits made while no daemon ran), so that restarts stay fast as edits accumulate.
RESAVE_SHARE = 0.01
RESAVE_AT_LEAST = 100


@dataclass(frozen=True, slots=True)
class Loaded:
    """An engine ready to serve and how it was had."""

    engine: Engine
    source: str  # "snapshot" or "cold"
    seconds: float
    reread: int  # catalog files read again (from a snapshot: those changed since)
    began_ns: int  # wall-clock time the reads began (what a snapshot of it records)
    unused: str | None = None  # why a snapshot on disk was not used
    mapped: bool = False  # loaded cold, then served from the snapshot written of it (`mapped`)

    def worth_keeping(self, after_seconds: float = SNAPSHOT_AFTER_SECONDS) -> bool:
        """Return whether a snapshot of this engine should be written for the next start."""
        if self.source == "cold":
            return self.seconds >= after_seconds
        files = len(self.engine.catalog.files)
        return self.reread >= max(RESAVE_AT_LEAST, RESAVE_SHARE * files)

    def as_dict(self) -> dict[str, Any]:
        """Return the `load` member of the daemon's status."""
        return {
            "from": self.source,
            "seconds": round(self.seconds, 3),
            "reread": self.reread,
            "snapshot_unused": self.unused,
            "mapped": self.mapped,
        }


def load(
    config: Config,
    path: Path | None,
    version: str,
    *,
    cold: Callable[[Config, str], Engine] = Engine.load,
    clock: Callable[[], int] = time.time_ns,
    armed: Callable[[], object] = lambda: None,
) -> Loaded:
    """Return the engine for `config`: restored from the snapshot at `path` when it serves,
    else loaded by `cold` (`path` None: no snapshot is tried); either way the engine
    reports `version`. No file of the catalog is looked at before `armed` returns (a
    daemon's file watches are set by then); a snapshot is read meanwhile. The cyclic
    garbage collector is held off while the index is built (its passes over a growing
    index cost more than the build), then everything loaded is frozen out of its sight: the
    index lives as long as the daemon. Raises what `cold` raises (Engine.load does not raise
    for bad files)."""
    began_ns = clock()
    began = time.monotonic()
    unused: str | None = None
    with _collector_held():
        if path is not None:
            try:
                restored = snapshot.restore(config, path, version, armed)
            except snapshot.UnusableError as why:
                restored, unused = None, str(why)
            if restored is not None:
                return Loaded(
                    restored.engine,
                    "snapshot",
                    time.monotonic() - began,
                    len(restored.changed),
                    began_ns,
                )
        armed()
        engine = cold(config, version)
        reread = len(engine.catalog.files)
        return Loaded(engine, "cold", time.monotonic() - began, reread, began_ns, unused)


@contextlib.contextmanager
def _collector_held() -> Iterator[None]:
    """Hold the cyclic garbage collector off while an engine is loaded, then freeze what was
    loaded out of its sight (`load` says why) and let it run again if it ran before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def once(
    config: Config,
    places: locate.Places,
    uid: int,
    version: str = __version__,
    *,
    cold: Callable[[Config, str], Engine] = Engine.load,
) -> Engine:
    """Return an engine for answers made in this process, without a daemon (`kroute route
    --no-daemon`, a hook's slow path): restored from the daemon's snapshot when one serves,
    so only the files changed since are read (about a second at 10k entries instead of
    half a minute), else loaded by `cold`. A snapshot is only read from a directory private
    to `uid`: it is unpickled, so nobody else may have written it. Writes none: a one-off
    answer should not pay for the next start; the daemon writes them."""
    path = snapshot.path_of(places.state, places.key)
    try:
        trust.check_private(places.state, uid, allowed=READABLE_BITS)
        trust.check_private(path.parent, uid, allowed=READABLE_BITS)
    except (OSError, DaemonError):  # none yet, or not the user's alone: read the catalog
        return load(config, None, version, cold=cold).engine
    return load(config, path, version, cold=cold).engine


def keep(loaded: Loaded, path: Path) -> str:
    """Write the snapshot of a loaded engine to `path` (its directory made private) and
    return a sentence for the log saying what was written or why not. Never raises: a
    snapshot not written only costs the next start its speed."""
    began = time.monotonic()
    try:
        trust.prepare(path.parent, state=path.parent.parent)  # <state>/snapshots/<key>
        for leftover in glob.glob(glob.escape(str(path)) + ".*.partial"):
            os.unlink(leftover)  # a write cut short by a stop
        written = snapshot.save(loaded.engine, path, loaded.began_ns)
    except Exception as error:  # a full disk, a read-only home, an unpicklable field
        return f"snapshot not written ({type(error).__name__}: {error})"
    seconds = time.monotonic() - began
    return f"snapshot written: {written / 1_048_576:.1f} MiB in {seconds:.1f} s ({path})"


def mappable(loaded: Loaded, path: Path) -> bool:
    """Return whether `loaded` was loaded cold and not yet read back from the snapshot at
    `path`, which is there (`read_back`)."""
    return loaded.source == "cold" and not loaded.mapped and path.is_file()


def read_back(config: Config, path: Path, version: str) -> Engine | None:
    """Return the engine of the snapshot just written at `path` (`keep`) of an engine loaded
    cold, or None when the file is gone; raises snapshot.UnusableError when it cannot be
    read back. A cold-loaded daemon serves it instead, so that it holds what a restarted
    one holds: the bodies and postings lie in the mapped file, read from the page cache
    where a route needs them, instead of in the process's own memory (at 10,000 entries
    with bodies, 100 MB of text and postings). The index is the same (a snapshot restores
    what it saved), and files changed since the reads began are read again, as at a
    restart. The caller lets the cold engine go first, so that this one takes the memory it
    held, and calls `release` after.

    Files whose stamps are the ones read are not read again, however recent (`restore`'s
    `watched`): the daemon's watcher was armed before the cold reads began and reports an
    edit made since. In a fresh clone every file is that recent, and reading them all
    again would cost a second cold load just after the first."""
    with _collector_held():  # as `load` leaves what it loaded
        restored = snapshot.restore(config, path, version, watched=True)
    return None if restored is None else restored.engine


def release() -> None:
    """Hand the heap's free pages back to the system: glibc's `malloc_trim(0)`, nothing where
    the C library has none.

    Why a daemon calls it, once, after swapping in the engine `read_back` returns: the cold
    engine it let go was allocated among what stays (the interned words, the engine read
    back where the cold one was), so its freed memory lies inside the heap, and glibc
    returns only the heap's top on its own; without this a daemon that loaded cold keeps
    its cold load's peak as RSS."""
    try:
        trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)
