"""The daemon: a hot index kept in step with the catalog on disk by a file watcher, served
over HTTP on a Unix socket (`server` is the transport).

A change is never applied to the engine that serves: the next engine is made beside it from
the changed files (`Engine.updated`, sharing what did not change) and swapped in whole under
the request lock; a route reads the engine serving once, so it answers from the catalog
before a burst of changes or the one after it, never a part, and never waits for the change
to be made. Routes and the other requests that touch no session take no lock at all (hook
events do: see UNLOCKED), so they are answered side by side. It
answers while it loads (status only), and says when it should exit on its own: after an idle
time without requests, and when its repository root is gone. Running it as a process is
`foreground`'s."""

from __future__ import annotations

import contextlib
import datetime
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from router import __version__
from router.base.errors import KrouteError
from router.catalog import config, diagnostic, reader, walk
from router.catalog.config import Config
from router.client import locate
from router.logbook.recorder import Recorder
from router.runtime import snapshot
from router.runtime.engine import Engine
from router.serve import loader, service, vectors

# The longest a starting daemon waits for its file watcher before it answers anyway.
WATCH_READY_SECONDS = 5.0
# How often the daemon checks whether it has idled out or lost its root: often enough that a
# test's idle time of a second or two is kept to a fraction of a second, and a stat and a clock
# read this often cost nothing.
KEEPER_SECONDS = 0.2
# An idle daemon walks its roots this often to find changes whose events were lost (see
# `Service.census`), and never more often than this many times its last walk took, so that a
# large catalog's walks stay a small share of a core.
CENSUS_IDLE_SECONDS = 30.0
CENSUS_COST_FACTOR = 100.0
CENSUS_NAMED = 5  # files a census names in the daemon's log
# What a daemon still loading its catalog answers; everything else gets 503 `loading`.
LOADING_ANSWERS = frozenset({"/v1/status", "/v1/shutdown"})
# Requests answered without the request lock: they touch no session (the app counts routes
# under a lock of its own) and read the engine once, so they answer at once while another
# route runs or an update is made, and routes are parsed, scored and rendered side by side.
# A hook event keeps to the lock: it reads and writes what its session was shown.
UNLOCKED = frozenset(
    {
        "/v1/status",
        "/v1/diagnostics",
        "/v1/reload",
        "/v1/shutdown",
        "/v1/route",
        "/v1/explain",
        "/v1/intent",
        "/v1/matrix/relevance",
        "/v1/why-not",
        "/v1/catalog",
    }
)


class Service:
    """What the daemon serves: the app over a hot engine, behind one lock, and what only a
    running daemon answers (status, diagnostics, reload, shutdown)."""

    def __init__(
        self,
        config: Config,
        places: locate.Places,
        *,
        version: str = __version__,
        load: Callable[[Config, str], Engine] = Engine.load,
        idle_seconds: float | None = None,
        snapshot_after: float = loader.SNAPSHOT_AFTER_SECONDS,
    ) -> None:
        self.config = config
        self.places = places
        self.version = version
        self.load = load
        self.idle_seconds = idle_seconds  # overrides the config's idle_minutes when given
        self.lock = threading.Lock()  # requests, and the swap of a new engine
        # One change at a time (the watcher's bursts, a reload): a change is made from the
        # engine serving, which only its maker swaps out.
        self.writing = threading.Lock()
        self.pending = threading.Event()  # the watcher holds a burst of changes not yet applied
        self.started_at = timestamp()
        self.started = time.monotonic()
        self.last_request = self.started
        self.updates = 0
        self.config_error: str | None = None  # why the config file on disk is not in force
        self.stop = threading.Event()
        self.rearm = threading.Event()  # asks the watcher to set its watches afresh
        self._pending = threading.local()  # per request thread: log lines not yet written
        self.recorder = Recorder(places.state, places.key, defer=self._defer)
        # Until `prepare` has loaded the catalog, the app holds an empty engine and only
        # LOADING_ANSWERS are answered; `ready` is set once the real one is in.
        self.app = service.App(Engine(config, reader.assemble({}), version), self.recorder, self)
        self.ready = threading.Event()
        # Set once the loaded engine may change: a snapshot being written must not see an
        # update half-applied, so the watcher's changes wait for it.
        self.settled = threading.Event()
        self.loaded: loader.Loaded | None = None
        self.snapshot_after = snapshot_after
        self.snapshot = snapshot.path_of(places.state, places.key)
        self.snapshot_note: str | None = None
        # when the reads behind the engine's last full load began (files modified since may
        # have changed in the tick they were read: see `_catch_up`)
        self.reads_began_ns = time.time_ns()
        # the last walk of the roots that checked the index against the disk (`census`)
        self.census_at = self.started
        self.census_seconds = 0.0
        self.unreported = 0  # catalog files a census found changed that no event had named
        # neighbours by meaning, made in a process of their own (`foreground` runs the
        # worker that starts it)
        self.vectors = vectors.Worker(
            places.state / "meaning", places.key, lambda: (self.config, self.engine), self.lock
        )

    @property
    def engine(self) -> Engine:
        return self.app.engine

    @engine.setter
    def engine(self, engine: Engine) -> None:
        self.app.engine = engine

    # -- requests ----------------------------------------------------------------------------

    def prepare(self, armed: Callable[[], object] = lambda: None) -> None:
        """Load the catalog (from the snapshot when one serves), put its engine in, and
        answer from then on; then write a snapshot for the next start when `loader` says it
        is worth it. No catalog file is read before `armed` returns (the file watches are
        set), but a snapshot is. Never raises: a load that fails leaves the empty engine
        serving, with the failure in the log."""
        try:
            self.loaded = loader.load(
                self.config, self.snapshot, self.version, cold=self.load, armed=armed
            )
            with self.lock:
                self.engine = self.loaded.engine
                self.reads_began_ns = self.loaded.began_ns
            note = f"loaded {len(self.engine.index)} entries (from {self.loaded.source}"
            if self.loaded.unused:
                note += f"; snapshot not used: {self.loaded.unused}"
            note += f") in {self.loaded.seconds:.2f} s"
            print(f"{timestamp()} {note}", file=sys.stderr, flush=True)
        except Exception:
            traceback.print_exc(file=sys.stderr)
        finally:
            self.ready.set()
        try:
            if self.loaded is not None and self.loaded.worth_keeping(self.snapshot_after):
                note = loader.keep(self.loaded, self.snapshot)
                print(f"{timestamp()} {note}", file=sys.stderr, flush=True)
                self._remap()
                self.snapshot_note = note  # status shows it once the engine is the mapped one
        finally:
            self.settled.set()
            self.vectors.want()

    def _remap(self) -> None:
        """Loaded cold: serve from the snapshot just written, as a restart would, so that the
        bodies and postings are mapped, not held (`loader.mapped`). Made under `writing`,
        only while the engine serving is still the one loaded (a reload may have replaced
        it). What changed on disk since the reads began is in the engine swapped in: the
        restore reads again every file whose stamp differs, as at a restart, and the
        watcher's changes meanwhile wait for `settled` and come with a census of their own."""
        with self.writing:
            loaded = self.loaded
            if loaded is None or self.engine is not loaded.engine:
                return
            remapped = loader.mapped(loaded, self.snapshot, self.version)
            if remapped is loaded:
                return
            with self.lock:
                self.engine = remapped.engine
            self.loaded = remapped
            del loaded, remapped
            loader.release()

    def dispatch(
        self, method: str, path: str, body: bytes, source: str = "socket"
    ) -> tuple[int, Any]:
        """Return (status, document) for one request, answered by the app under the request
        lock but for UNLOCKED ones; a hook answer is text (str). Never raises.

        While the catalog loads, only LOADING_ANSWERS are answered; the rest get 503
        `loading` at once (a hook fails open rather than wait)."""
        self.last_request = time.monotonic()
        if not self.ready.is_set() and path.partition("?")[0] not in LOADING_ANSWERS:
            waited = time.monotonic() - self.started
            return 503, service.error_document(
                "loading",
                f"the daemon is still loading the catalog ({waited:.1f} s so far); "
                "try again in a moment (kroute status shows when it is ready)",
            )
        if path.partition("?")[0] in UNLOCKED:
            answer = self.app.answer(method, path, body, source)
        else:
            with self.lock:
                answer = self.app.answer(method, path, body, source)
        self.last_request = time.monotonic()
        return answer.status, answer.document

    def _defer(self, job: Callable[[], None]) -> None:
        jobs: list[Callable[[], None]] = getattr(self._pending, "jobs", [])
        jobs.append(job)
        self._pending.jobs = jobs

    def after(self) -> None:
        """Write the shadow lines of this thread's last request (called once it is
        answered, before the answer is sent); each job reports its own failure, so this
        never raises."""
        jobs: list[Callable[[], None]] = getattr(self._pending, "jobs", [])
        self._pending.jobs = []
        for job in jobs:
            job()

    # -- what only a daemon answers (service.Control) ------------------------------------------

    def status(self) -> dict[str, Any]:
        engine = self.engine  # read once: an update may swap it meanwhile
        cat = engine.catalog
        return {
            "phase": "ready" if self.ready.is_set() else "loading",
            "load": self.loaded.as_dict() if self.loaded is not None else None,
            "snapshot": self.snapshot_note,
            "meaning": {"mode": self.config.meaning_mode, **self.vectors.status()},
            "version": self.version,
            "pid": os.getpid(),
            "root": str(self.config.root),
            "config": str(self.config.file) if self.config.file else None,
            "socket": str(self.places.socket),
            "started_at": self.started_at,
            "uptime_s": round(time.monotonic() - self.started, 3),
            "entries": len(engine.index),
            "fingerprint": cat.fingerprint,
            "errors": len(cat.errors) + (1 if self.config_error is not None else 0),
            "warnings": len(cat.diagnostics) - len(cat.errors),
            "stale": len(cat.stale),
            "routes": self.app.routes,
            "updates": self.updates,
            "unreported": self.unreported,
            # changes seen on disk and not yet in the index: routes answer from the catalog
            # before them until they are swapped in whole
            "updating": self.pending.is_set() or self.writing.locked(),
            # lines the shadow log lost (a full disk, a full day): the routes were answered
            "shadow": {
                "unwritten": self.recorder.losses.unwritten,
                "dropped": self.recorder.losses.dropped,
                "last_error": self.recorder.losses.last,
            },
            "config_error": self.config_error,
            "idle_exit_s": self.idle_limit(),
        }

    def diagnostics(self) -> dict[str, Any]:
        cat = self.engine.catalog
        found = [d.as_dict() for d in cat.diagnostics]
        if self.config_error is not None and self.config.file is not None:
            where = self.config.file.name
            with contextlib.suppress(ValueError):
                where = self.config.file.relative_to(self.config.root).as_posix()
            found.insert(0, diagnostic.Diagnostic(where, self.config_error).as_dict())
        return {"diagnostics": found, "stale": list(cat.stale)}

    def reload(self) -> dict[str, Any]:
        """Re-read the config file and the whole catalog, swap them in, and have the watcher
        set its watches afresh. Returns the new entry count, fingerprint and config error
        (None when the file is in force). Routes are answered from the engine before until
        the swap."""
        with self.writing:
            self._replace(self._read_config())
        self.rearm.set()
        engine = self.engine
        return {
            "entries": len(engine.index),
            "fingerprint": engine.catalog.fingerprint,
            "config_error": self.config_error,
        }

    def shutdown(self) -> dict[str, Any]:
        """Return the answer to a shutdown: the server stops once it has sent it (which
        sets `stop`), so that the client reads it before the process exits."""
        return {"stopping": True}

    # -- catalog changes ---------------------------------------------------------------------

    def apply(self, changed: set[Path], resync: bool = False) -> None:
        """Bring the index in line with a burst of changes: the changed paths (absolute), and
        with `resync` whatever changed while no watch was set (the watches were set afresh:
        every file is stat'ed, see `_catch_up`). A changed config reloads everything (an
        invalid one is kept as `config_error`, the last good one stays in force); otherwise
        the changed catalog files are read into a new engine made beside the one serving,
        swapped in whole once made. Never raises."""
        try:
            with self.writing:
                if resync or (self.config.file is not None and self.config.file in changed):
                    fresh = self._read_config()
                    if fresh != self.config:
                        self._replace(fresh)
                        return
                rels = self._changed_files(changed)
                problems = None
                if resync:
                    found, problems = self._catch_up()
                    rels.update(found)
                if rels or (problems is not None and problems != self.engine.catalog.walk):
                    self._update(sorted(rels), problems)
                if not resync:  # a resync has just walked the roots
                    self._census()
        except Exception:
            traceback.print_exc(file=sys.stderr)
        finally:
            self.pending.clear()

    def census(self) -> None:
        """Walk the roots and read again every catalog file whose stamp is not the one the
        engine read, new and gone ones included (see `_census`). Never raises."""
        try:
            with self.writing:
                self._census()
        except Exception:
            traceback.print_exc(file=sys.stderr)

    def census_due(self) -> bool:
        """Return whether an idle census is due: CENSUS_IDLE_SECONDS since the last one,
        stretched for a catalog whose walk costs more (CENSUS_COST_FACTOR times its walk)."""
        if not self.settled.is_set():
            return False
        wait = max(CENSUS_IDLE_SECONDS, CENSUS_COST_FACTOR * self.census_seconds)
        return time.monotonic() - self.census_at >= wait

    def _census(self) -> None:
        """Bring the index in line with what a walk of the roots finds, whatever the watcher
        reported: the events of a change can be lost (files written into a new folder before
        its watch is set, a full event queue), and after any change the index must equal a
        cold load. Costs a walk and a stat per file; only files whose stamp differs are read.
        The caller holds `writing`."""
        began = time.monotonic()
        engine = self.engine
        found, problems = reader.changed_since(engine.config, engine.catalog, None)
        if found or problems != engine.catalog.walk:
            self._update(found, problems)
            if found:
                self.unreported += len(found)
                named = found[:CENSUS_NAMED] + (["..."] if len(found) > CENSUS_NAMED else [])
                print(
                    f"{timestamp()} census: {len(found)} catalog files differ from the index"
                    f" (events late or lost): {', '.join(named)}",
                    file=sys.stderr,
                    flush=True,
                )
                # A folder made while its parent's watch was being set is never watched (the
                # recursive watch's race): set the watches afresh, so that the next change
                # under it is seen without waiting for a census.
                self.rearm.set()
        self.census_at = time.monotonic()
        self.census_seconds = self.census_at - began

    def resync(self) -> None:
        """Bring the index in line with everything on disk after the watches were set
        afresh (see `apply`). Never raises."""
        self.apply(set(), resync=True)

    def _changed_files(self, changed: set[Path]) -> set[str]:
        """Return the catalog files (repository-relative) the changed paths name: the files
        themselves, those under a directory moved in, and those the index holds under a
        directory moved out or removed."""
        root = self.config.root
        rels: set[str] = set()
        for path in changed:
            try:
                rel = path.relative_to(root).as_posix()
            except ValueError:
                continue
            if walk.format_of(rel) is not None:
                rels.add(rel)
            if path.is_dir():  # a directory moved in: the watcher names only the directory
                rels.update(
                    f.relative_to(root).as_posix()
                    for f in path.rglob("*")
                    if walk.format_of(f.name) is not None
                )
            elif not path.is_file():  # a directory moved out or removed, files and all
                rels.update(f for f in self.engine.catalog.files if f.startswith(rel + "/"))
        return rels

    def _update(
        self, rels: list[str], problems: tuple[diagnostic.Diagnostic, ...] | None = None
    ) -> None:
        """Make the engine with the changed catalog files (repository-relative) read again,
        outside the request lock, and swap it in under it; `problems` are a fresh walk's,
        if the caller walked the roots (see `catalog.refresh`). The caller holds `writing`."""
        engine = self.engine
        fresh = reader.refresh(engine.config, engine.catalog, rels, problems)
        self._swap(engine.updated(rels, fresh))

    def _replace(self, config: Config) -> None:
        """Load the whole catalog under `config` outside the request lock and swap it in with
        the config. The caller holds `writing`."""
        began_ns = time.time_ns()
        engine = self.load(config, self.version)
        self._swap(engine, config, began_ns)

    def _swap(
        self, engine: Engine, config: Config | None = None, began_ns: int | None = None
    ) -> None:
        """Put a new engine in, under the request lock: the route running now ends on the
        engine it began with, the next one begins on this one."""
        with self.lock:
            self.engine = engine
            if config is not None:
                self.config = config
            if began_ns is not None:
                self.reads_began_ns = began_ns
            self.updates += 1
        self.vectors.want()

    def _catch_up(self) -> tuple[list[str], tuple[diagnostic.Diagnostic, ...]]:
        """Return the catalog files that differ on disk from what the engine read, after
        events may have been missed (the watches were set afresh), and the walk's problems:
        every file is stat'ed and only those whose stamp differs from the one read count, as
        a restart from a snapshot does. Costs a walk, not a cold load."""
        engine = self.engine
        racy_from = self.reads_began_ns - snapshot.RACY_NS
        return reader.changed_since(engine.config, engine.catalog, racy_from)

    def _read_config(self) -> Config:
        """Return the configuration the config file now holds, or the one in force when it
        cannot be read or is invalid; `config_error` says which (None when the file is in
        force), and a new error is logged."""
        if self.config.file is None:
            return self.config
        try:
            fresh = config.load(self.config.file, self.config.root)
        except KrouteError as error:
            if str(error) != self.config_error:
                print(f"{timestamp()} config not reloaded: {error}", file=sys.stderr, flush=True)
            self.config_error = str(error)
            return self.config
        self.config_error = None
        return fresh

    def watch_targets(self) -> list[Path]:
        """Return what the watcher should watch: each root and the config file, missing or
        not (`watch.follow` watches those that exist and sets the watches afresh when one
        appears, goes or is replaced)."""
        targets: list[Path] = []
        for root in self.config.roots:
            path = (self.config.root / root).resolve()
            if path not in targets:
                targets.append(path)
        if self.config.file is not None:
            targets.append(self.config.file)
        return targets

    # -- exiting on its own --------------------------------------------------------------------

    def idle_limit(self) -> float:
        """Return the seconds without a request after which the daemon exits (0: never)."""
        if self.idle_seconds is not None:
            return self.idle_seconds
        return self.config.idle_minutes * 60

    def exit_reason(self) -> str | None:
        """Return why the daemon should exit now (its root directory is gone, or no request
        came for its idle time), or None to keep serving."""
        if not self.config.root.is_dir():
            return f"the root directory is gone ({self.config.root})"
        limit = self.idle_limit()
        if limit > 0 and time.monotonic() - self.last_request > limit:
            return f"idle: no request for {limit:g} s"
        return None


def timestamp() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
