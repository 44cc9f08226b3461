"""The daemon: a hot index kept in step with the catalog on disk by a file watcher, served
over HTTP on a Unix socket (`server` is the transport). Every request takes one lock, and so
does swapping in a catalog change (read and parsed before, outside it), so a route never sees
a half-applied change and never waits for a slow file. It exits on its own after an idle time
without requests, and when its repository root is gone."""

from __future__ import annotations

import contextlib
import datetime
import math
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from router import __version__
from router.base import paths, protocol
from router.base.errors import ConfigError, KrouteError
from router.core import catalog, diagnostic
from router.core import config as config_module
from router.core.config import Config
from router.logbook.recorder import Recorder
from router.runtime.engine import Engine
from router.serve import server as server_module
from router.serve import service, watch

# The longest a starting daemon waits for its file watcher before it answers anyway.
WATCH_READY_SECONDS = 5.0
# How often the daemon checks whether it has idled out or lost its root: often enough that a
# test's idle time of a second or two is kept to a fraction of a second, and a stat and a clock
# read this often cost nothing.
KEEPER_SECONDS = 0.2
# A reload landing between reading changed files and swapping them in makes the read stale, so
# it is done again; after this many tries the read is done under the lock (it always ends).
SWAP_TRIES = 3
# Tests set this (seconds, 0 for never) instead of writing `[daemon] idle_minutes`.
IDLE_ENV = "KROUTE_IDLE_SECONDS"


class Service:
    """What the daemon serves: the app over a hot engine, behind one lock, and what only a
    running daemon answers (status, diagnostics, reload, shutdown)."""

    def __init__(
        self,
        config: Config,
        places: paths.Places,
        *,
        version: str = __version__,
        load: Callable[[Config], Engine] = Engine.load,
        idle_seconds: float | None = None,
    ) -> None:
        self.config = config
        self.places = places
        self.version = version
        self.load = load
        self.idle_seconds = idle_seconds  # overrides the config's idle_minutes when given
        self.lock = threading.Lock()
        self.started_at = _now()
        self.started = time.monotonic()
        self.last_request = self.started
        self.updates = 0
        self.config_error: str | None = None  # why the config file on disk is not in force
        self.stop = threading.Event()
        self.rearm = threading.Event()  # asks the watcher to set its watches afresh
        self._pending = threading.local()  # per request thread: log lines not yet written
        self.recorder = Recorder(places.state, places.key, defer=self._defer)
        self.app = service.App(load(config), self.recorder, control=self)

    @property
    def engine(self) -> Engine:
        return self.app.engine

    @engine.setter
    def engine(self, engine: Engine) -> None:
        self.app.engine = engine

    # -- requests ----------------------------------------------------------------------------

    def dispatch(
        self, method: str, path: str, body: bytes, source: str = "socket"
    ) -> tuple[int, Any]:
        """Return (status, document) for one request, answered by the app under the lock (a
        route never sees a half-applied change); a hook answer is text (str). Never raises."""
        self.last_request = time.monotonic()
        with self.lock:
            answer = self.app.answer(method, path, body, source)
        self.last_request = time.monotonic()
        return answer.status, answer.document

    def _defer(self, job: Callable[[], None]) -> None:
        jobs: list[Callable[[], None]] = getattr(self._pending, "jobs", [])
        jobs.append(job)
        self._pending.jobs = jobs

    def after(self) -> None:
        """Write the shadow lines of this thread's last request (called once its answer is
        sent); each job reports its own failure, so this never raises."""
        jobs: list[Callable[[], None]] = getattr(self._pending, "jobs", [])
        self._pending.jobs = []
        for job in jobs:
            job()

    # -- what only a daemon answers (service.Control) ------------------------------------------

    def status(self) -> dict[str, Any]:
        cat = self.engine.catalog
        return {
            "version": self.version,
            "pid": os.getpid(),
            "root": str(self.config.root),
            "config": str(self.config.file) if self.config.file else None,
            "socket": str(self.places.socket),
            "started_at": self.started_at,
            "uptime_s": round(time.monotonic() - self.started, 3),
            "entries": len(self.engine.index),
            "fingerprint": cat.fingerprint,
            "errors": len(cat.errors) + (1 if self.config_error is not None else 0),
            "warnings": len(cat.diagnostics) - len(cat.errors),
            "stale": len(cat.stale),
            "routes": self.app.routes,
            "updates": self.updates,
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
        """Re-read the config file and the whole catalog, and have the watcher set its watches
        afresh. Returns the new entry count, fingerprint and config error (None when the file
        is in force). Runs under the request lock (`dispatch` calls it)."""
        self.config = self._read_config()
        self.engine = self.load(self.config)
        self.updates += 1
        self.rearm.set()
        return {
            "entries": len(self.engine.index),
            "fingerprint": self.engine.catalog.fingerprint,
            "config_error": self.config_error,
        }

    def shutdown(self) -> dict[str, Any]:
        self.stop.set()
        return {"stopping": True}

    # -- catalog changes ---------------------------------------------------------------------

    def apply(self, changed: set[Path]) -> None:
        """Bring the index in line with changed paths (absolute). A changed config reloads
        everything (an invalid one is kept as `config_error`, the last good one stays in
        force); catalog files are re-read one by one. Files are read and parsed outside the
        lock; only the swap takes it. Never raises."""
        root = self.config.root
        try:
            if self.config.file is not None and self.config.file in changed:
                self.resync()
                return
            rels: set[str] = set()
            for path in changed:
                try:
                    rel = path.relative_to(root).as_posix()
                except ValueError:
                    continue
                if catalog.format_of(rel) is not None:
                    rels.add(rel)
                if path.is_dir():  # a directory moved in: the watcher names only the directory
                    rels.update(
                        f.relative_to(root).as_posix()
                        for f in path.rglob("*")
                        if catalog.format_of(f.name) is not None
                    )
                elif not path.is_file():  # a directory moved out or removed, files and all
                    rels.update(f for f in self.engine.catalog.files if f.startswith(rel + "/"))
            if rels:
                self._update(sorted(rels))
        except Exception:
            traceback.print_exc(file=sys.stderr)

    def _update(self, rels: list[str]) -> None:
        """Read and parse the changed catalog files (repository-relative) outside the lock,
        then take it to swap the result into the engine."""
        for _ in range(SWAP_TRIES):
            engine = self.engine
            before = engine.catalog
            fresh = catalog.refresh(engine.config, before, rels)
            with self.lock:
                if self.engine is engine and engine.catalog is before:
                    engine.update(rels, fresh)
                    self.updates += 1
                    return
        with self.lock:
            self.engine.update(rels)
            self.updates += 1

    def resync(self) -> None:
        """Re-read the config file and the whole catalog outside the lock, then swap them in:
        after the watches were set afresh, or the config changed. An invalid config keeps
        the one in force (see `config_error`). Never raises."""
        try:
            fresh = self._read_config()
            engine = self.load(fresh)
            with self.lock:
                self.config = fresh
                self.engine = engine
                self.updates += 1
        except Exception:
            traceback.print_exc(file=sys.stderr)

    def _read_config(self) -> Config:
        """Return the configuration the config file now holds, or the one in force when it
        cannot be read or is invalid; `config_error` says which (None when the file is in
        force), and a new error is logged."""
        if self.config.file is None:
            return self.config
        try:
            fresh = config_module.load(self.config.file, self.config.root)
        except KrouteError as error:
            if str(error) != self.config_error:
                print(f"{_now()} config not reloaded: {error}", file=sys.stderr, flush=True)
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


# -- running --------------------------------------------------------------------------------------


def serve(
    config: Config,
    env: Mapping[str, str],
    *,
    version: str = __version__,
    changes: watch.Changes = watch.changes,
) -> int:
    """Run the daemon in the foreground until shut down, idle for the config's idle time
    (`env`'s KROUTE_IDLE_SECONDS overrides it), or left without its root. Returns the exit
    status.

    Raises DaemonError when another daemon already serves this root, ConfigError when
    KROUTE_IDLE_SECONDS is not a number of seconds."""
    from router.serve import client

    try:
        return _serve(config, env, version=version, changes=changes)
    finally:
        # Whether it served or failed to start, it is no longer starting: `stop` (which
        # signals the pid a start lock names) must not find its lock.
        client.drop_start_lock(protocol.places_of(config.root, config.file, env))


def _serve(config: Config, env: Mapping[str, str], *, version: str, changes: watch.Changes) -> int:
    """Run the daemon in the foreground: see `serve`. Returns the exit status."""
    from router.serve import client

    idle_seconds = _idle_override(env)

    t = client.target(config.root, config.file, env)
    current, sentence = client.state(t, version)
    if current in ("running", "other-version"):
        from router.base.errors import DaemonError

        raise DaemonError(f"already running: {sentence}", "Stop it first: kroute stop")
    client.clean(t)
    places = t.places
    paths.private_dir(places.runtime)
    service = Service(config, places, version=version, idle_seconds=idle_seconds)
    watching = threading.Event()

    def watcher() -> None:
        try:
            for batch in watch.follow(service.watch_targets, service.stop, service.rearm, changes):
                watching.set()
                if batch.resync:
                    service.resync()
                elif batch.paths:
                    service.apply(set(batch.paths))
        except Exception:
            traceback.print_exc(file=sys.stderr)
        finally:
            watching.set()  # a watcher that failed must not keep the daemon from serving

    # Watch first, then answer: an edit made once `kroute start` returns is never missed.
    threading.Thread(target=watcher, name="watcher", daemon=True).start()
    watching.wait(WATCH_READY_SECONDS)
    old_umask = os.umask(0o177)  # the socket is created 0600
    try:
        server = server_module.Server(str(places.socket), service)
    finally:
        os.umask(old_umask)
    os.chmod(places.socket, 0o600)
    _write_status(places, config, version, service.started_at)
    protocol.write_root(places, config.root, config.file)
    client.drop_start_lock(places)  # started: from now on `stop` finds it by its status file
    print(
        f"{service.started_at} serving {config.root} ({len(service.engine.index)} entries) "
        f"on {places.socket}",
        file=sys.stderr,
        flush=True,
    )

    def stopper() -> None:
        service.stop.wait()
        server.shutdown()

    def keeper() -> None:
        while not service.stop.wait(KEEPER_SECONDS):
            reason = service.exit_reason()
            if reason is not None:
                print(f"{_now()} exiting: {reason}", file=sys.stderr, flush=True)
                service.stop.set()

    threading.Thread(target=stopper, name="stopper", daemon=True).start()
    threading.Thread(target=keeper, name="keeper", daemon=True).start()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: service.stop.set())
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        service.stop.set()
        server.server_close()
        if (client.read_status(t) or {}).get("pid") == os.getpid():
            client.clean(t)
        print(f"{_now()} stopped", file=sys.stderr, flush=True)
    return 0


def _idle_override(env: Mapping[str, str]) -> float | None:
    """Return the idle time KROUTE_IDLE_SECONDS sets (seconds, 0 for never), or None when it
    is unset. Raises ConfigError for a value that is not a number of seconds."""
    raw = env.get(IDLE_ENV, "").strip()
    if not raw:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        raise ConfigError(f"{IDLE_ENV} is {raw!r}", "Set it to a number of seconds, 0 for never")
    return seconds


def _write_status(places: paths.Places, config: Config, version: str, started_at: str) -> None:
    protocol.write_status(
        places.status,
        {
            "pid": os.getpid(),
            "socket": str(places.socket),
            "version": version,
            "root": str(config.root),
            "config": str(config.file) if config.file else None,
            "started_at": started_at,
        },
    )


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
