"""The daemon: a hot index kept in step with the catalog on disk by a file watcher, served
over HTTP on a Unix socket (`server` is the transport).

A change is never applied to the engine that serves: the next engine is made beside it
(`update`, the daemon's changes) and swapped in whole under the request lock; a route reads
the engine serving once, so it answers from the catalog before a burst of changes or the one
after it, never a part, and never waits for the change to be made. Routes and the other
requests that touch no session take no lock at all (hook events do: see UNLOCKED), so they
are answered side by side. It answers while it loads (status only), and says when it should
exit on its own: after an idle time without requests, and when its repository root is gone.
Running it as a process is `foreground`'s."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from router import __version__
from router.base import errors
from router.catalog import diagnostic, reader
from router.catalog.config import Config
from router.client import locate
from router.logbook.recorder import Recorder
from router.runtime import snapshot
from router.runtime.engine import Engine
from router.serve import loader, service, vectors
from router.serve.update import Updating, timestamp

# The longest a starting daemon waits for its file watcher before it answers anyway.
WATCH_READY_SECONDS = 5.0
# How often the daemon checks whether it has idled out or lost its root: often enough that a
# test's idle time of a second or two is kept to a fraction of a second, and a stat and a clock
# read this often cost nothing.
KEEPER_SECONDS = 0.2
# What a daemon still loading its catalog answers; everything else gets 503 `loading`.
SHUTDOWN = "/v1/shutdown"
LOADING_ANSWERS = frozenset({"/v1/status", SHUTDOWN})
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


class Daemon(Updating):
    """A running daemon: the app over a hot engine, behind one lock, what only a running
    daemon answers (status, diagnostics, reload, shutdown), and when it should exit."""

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
        self.started_at = timestamp()
        self.started = time.monotonic()
        self.last_request = self.started
        self._start_updates(self.started)
        self.stop = threading.Event()
        self.rearm = threading.Event()  # asks the watcher to set its watches afresh
        self._pending = threading.local()  # per request thread: log lines not yet written
        self.recorder = Recorder(places.state, places.key, defer=self._defer)
        # Until `prepare` has loaded the catalog, the app holds an empty engine (`standin`)
        # and only LOADING_ANSWERS are answered; `ready` is set once the real one is in.
        self.standin = Engine(config, reader.assemble({}), version)
        self.app = service.App(self.standin, self.recorder, self)
        self.ready = threading.Event()
        # Cleared while a cold-loaded engine is swapped for its snapshot's (`_remap`): the
        # requests that come meanwhile wait for the engine read back.
        self.serving = threading.Event()
        self.serving.set()
        # Set once the loaded engine may change: a snapshot being written must not see an
        # update half-applied, so the watcher's changes wait for it.
        self.settled = threading.Event()
        self.loaded: loader.Loaded | None = None
        self.snapshot_after = snapshot_after
        self.snapshot = snapshot.path_of(places.state, places.key)
        self.snapshot_note: str | None = None
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
        bodies and postings are mapped, not held (`loader.read_back`). Made under `writing`,
        only while the engine serving is still the one loaded (a reload may have replaced
        it). What changed on disk since the reads began is in the engine swapped in: the
        restore reads again every file whose stamp differs, as at a restart, and the
        watcher's changes meanwhile wait for `settled` and come with a census of their own.

        The cold engine is let go before the snapshot is read back, so that the engine read
        back takes the memory it held rather than growing the heap beside it (which the heap
        would keep). Requests but a shutdown wait at `serving` meanwhile, and are answered
        by the engine read back; one already under way ends on the cold engine. When the
        snapshot cannot be read back, the catalog is read again: nothing is lost."""
        with self.writing:
            loaded = self.loaded
            if (
                loaded is None
                or self.engine is not loaded.engine
                or not loader.mappable(loaded, self.snapshot)
            ):
                return
            config = loaded.engine.config
            self.serving.clear()
            try:
                with self.lock:  # a hook event under way keeps the cold engine to its end
                    self.engine = self.standin
                self.loaded = replace(loaded, engine=self.standin)
                del loaded
                self.loaded = self._read_back(config, self.loaded)
                with self.lock:
                    self.engine = self.loaded.engine
            finally:
                self.serving.set()
            loader.release()

    def _read_back(self, config: Config, shell: loader.Loaded) -> loader.Loaded:
        """Return `shell` (a cold load's record) with the engine of its snapshot, or with
        the catalog read again when the snapshot cannot be read back (the log says why)."""
        why = "it is gone"
        try:
            engine = loader.read_back(config, self.snapshot, self.version)
            if engine is not None:
                return replace(shell, engine=engine, mapped=True)
        except snapshot.UnusableError as error:
            why = str(error)
        print(
            f"{timestamp()} the snapshot just written cannot be read back ({why}): "
            "reading the catalog again",
            file=sys.stderr,
            flush=True,
        )
        return replace(shell, engine=loader.load(config, None, self.version, cold=self.load).engine)

    def dispatch(
        self, method: str, path: str, body: bytes, source: str = "socket"
    ) -> tuple[int, Any]:
        """Return (status, document) for one request, answered by the app under the request
        lock but for UNLOCKED ones; a hook answer is text (str). Never raises.

        While the catalog loads, only LOADING_ANSWERS are answered; the rest get 503
        `loading` at once (a hook fails open rather than wait)."""
        self.last_request = time.monotonic()
        endpoint = path.partition("?")[0]
        if not self.serving.is_set() and endpoint != SHUTDOWN:
            self.serving.wait()
        if not self.ready.is_set() and endpoint not in LOADING_ANSWERS:
            waited = time.monotonic() - self.started
            return 503, errors.document(
                "loading",
                f"the daemon is still loading the catalog ({waited:.1f} s so far); "
                "try again in a moment (kroute status shows when it is ready)",
            )
        if endpoint in UNLOCKED:
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
