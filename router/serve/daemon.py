"""The daemon: a hot index kept in step with the catalog on disk by a file watcher, served
over HTTP on a Unix socket (`server` is the transport). Every request and every catalog change
takes one lock, so a route never sees a half-applied change."""

from __future__ import annotations

import datetime
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
from router.base.errors import KrouteError
from router.core import catalog
from router.core.config import Config
from router.logbook.recorder import Recorder
from router.runtime.engine import Engine
from router.serve import server as server_module
from router.serve import service, watch

# The longest a starting daemon waits for its file watcher before it answers anyway.
WATCH_READY_SECONDS = 5.0


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
    ) -> None:
        self.config = config
        self.places = places
        self.version = version
        self.load = load
        self.lock = threading.Lock()
        self.started_at = _now()
        self.started = time.monotonic()
        self.updates = 0
        self.stop = threading.Event()
        self._pending = threading.local()  # per request thread: log lines not yet written
        rec = Recorder(places.state, places.key, defer=self._defer)
        self.app = service.App(load(config), rec, control=self)

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
        with self.lock:
            answer = self.app.answer(method, path, body, source)
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
            "errors": len(cat.errors),
            "warnings": len(cat.diagnostics) - len(cat.errors),
            "stale": len(cat.stale),
            "routes": self.app.routes,
            "updates": self.updates,
        }

    def diagnostics(self) -> dict[str, Any]:
        cat = self.engine.catalog
        return {"diagnostics": [d.as_dict() for d in cat.diagnostics], "stale": list(cat.stale)}

    def reload(self) -> dict[str, Any]:
        self.engine = self.load(self.config)
        self.updates += 1
        return {"entries": len(self.engine.index), "fingerprint": self.engine.catalog.fingerprint}

    def shutdown(self) -> dict[str, Any]:
        self.stop.set()
        return {"stopping": True}

    # -- catalog changes ---------------------------------------------------------------------

    def apply(self, changed: set[Path]) -> None:
        """Bring the index in line with changed paths (absolute). A changed config reloads
        everything; catalog files are re-read one by one. Never raises."""
        root = self.config.root
        try:
            if self.config.file is not None and self.config.file in changed:
                from router.core import config as config_module

                try:
                    fresh = config_module.load(self.config.file, root)
                except KrouteError as error:
                    print(f"{_now()} config not reloaded: {error}", file=sys.stderr)
                    return
                with self.lock:
                    self.config = fresh
                    self.engine = self.load(fresh)
                    self.updates += 1
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
                with self.lock:
                    self.engine.update(sorted(rels))
                    self.updates += 1
        except Exception:
            traceback.print_exc(file=sys.stderr)

    def watch_targets(self) -> list[Path]:
        """Return what the watcher watches: each root, or for a root that does not exist yet
        its nearest existing parent (so that creating it is seen), and the config file."""
        targets: list[Path] = []
        for root in self.config.roots:
            path = (self.config.root / root).resolve()
            while not path.exists() and path != self.config.root and path.parent != path:
                path = path.parent
            if path not in targets:
                targets.append(path)
        if self.config.file is not None:
            targets.append(self.config.file)
        return targets


# -- running --------------------------------------------------------------------------------------


def serve(
    config: Config,
    env: Mapping[str, str],
    *,
    version: str = __version__,
    changes: watch.Changes = watch.changes,
) -> int:
    """Run the daemon in the foreground until shut down. Returns the exit status.

    Raises DaemonError when another daemon already serves this root."""
    from router.serve import client

    t = client.target(config.root, config.file, env)
    current, sentence = client.state(t, version)
    if current in ("running", "other-version"):
        from router.base.errors import DaemonError

        raise DaemonError(f"already running: {sentence}", "Stop it first: kroute stop")
    client.clean(t)
    places = t.places
    paths.private_dir(places.runtime)
    service = Service(config, places, version=version)
    watching = threading.Event()

    def watcher() -> None:
        try:
            for batch in changes(service.watch_targets(), service.stop):
                watching.set()
                if batch:
                    service.apply(batch)
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
    print(
        f"{service.started_at} serving {config.root} ({len(service.engine.index)} entries) "
        f"on {places.socket}",
        file=sys.stderr,
        flush=True,
    )

    def stopper() -> None:
        service.stop.wait()
        server.shutdown()

    threading.Thread(target=stopper, name="stopper", daemon=True).start()
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
