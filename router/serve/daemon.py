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
import urllib.parse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson

from router import __version__
from router.base import paths
from router.base.errors import KrouteError, RequestError
from router.core import catalog
from router.core.config import Config
from router.filters import intent
from router.integrations import hook
from router.runtime.engine import Engine
from router.serve import handler as route_handler
from router.serve import server as server_module
from router.serve import watch
from router.serve.server import HOOK_PREFIX, HttpError
from router.serve.server import error as error_document

Handler = Callable[["Service", Any, str], tuple[int, Any]]  # (service, body, source)
# The longest a starting daemon waits for its file watcher before it answers anyway.
WATCH_READY_SECONDS = 5.0


class Service:
    """What the daemon serves: the engine behind a lock, and its counters."""

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
        self.engine = load(config)
        self.lock = threading.Lock()
        self.started_at = _now()
        self.started = time.monotonic()
        self.routes = 0
        self.updates = 0
        self.stop = threading.Event()
        self._pending = threading.local()  # per request thread: log lines not yet written
        self.recorder = route_handler.Recorder(places.state, places.key, defer=self._defer)
        self.routes_table: dict[str, dict[str, Handler]] = {
            "/v1/route": {"POST": Service.route},
            "/v1/explain": {"POST": Service.explain},
            "/v1/intent": {"POST": Service.classify},
            "/v1/matrix/relevance": {"POST": Service.relevance},
            "/v1/status": {"GET": Service.status},
            "/v1/diagnostics": {"GET": Service.diagnostics},
            "/v1/reload": {"POST": Service.reload},
            "/v1/shutdown": {"POST": Service.shutdown},
        }

    # -- dispatch ----------------------------------------------------------------------------

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

    def dispatch(
        self, method: str, path: str, body: bytes, source: str = "socket"
    ) -> tuple[int, Any]:
        """Return (status, document) for one request; a hook answer is text (str). Never
        raises: every failure becomes an error document with its status."""
        try:
            path, _, query = path.partition("?")
            if path.startswith(HOOK_PREFIX):
                return self.hook(method, path, body, urllib.parse.parse_qs(query))
            methods = self.routes_table.get(path)
            if methods is None:
                raise HttpError(404, "not_found", f"no endpoint {path}; see GET /v1/status")
            handler = methods.get(method)
            if handler is None:
                allowed = ", ".join(sorted(methods))
                raise HttpError(405, "method_not_allowed", f"{path} takes {allowed}")
            payload = _decode(body) if method == "POST" else None
            with self.lock:
                return handler(self, payload, source)
        except HttpError as error:
            return error.status, error_document(error.code, error.message)
        except RequestError as error:
            return 400, error_document("bad_request", str(error))
        except KrouteError as error:
            return 500, error_document("failed", str(error))
        except Exception:  # the daemon outlives any bug in one request
            traceback.print_exc(file=sys.stderr)
            return 500, error_document("internal", "the daemon failed on this request; see its log")

    def route(self, body: Any, source: str) -> tuple[int, Any]:
        self.routes += 1
        return 200, route_handler.route(self.engine, _object(body), self.recorder, source)

    def hook(
        self, method: str, path: str, body: bytes, query: Mapping[str, list[str]]
    ) -> tuple[int, Any]:
        """Answer `POST /v1/hook/<harness>/<event>[?mode=shadow]` with exactly what the hook
        prints."""
        parts = path[len(HOOK_PREFIX) :].split("/")
        if len(parts) != 2 or parts[1] not in hook.EVENTS.get(parts[0], ()):
            raise HttpError(404, "not_found", f"no hook {path}; known: {_known_hooks()}")
        if method != "POST":
            raise HttpError(405, "method_not_allowed", f"{path} takes POST")
        with self.lock:
            self.routes += 1
            modes = query.get("mode") or []
            mode = modes[0] if modes else None
            text = route_handler.respond(self.engine, parts[0], parts[1], body, self.recorder, mode)
            return 200, text

    def explain(self, body: Any, _source: str) -> tuple[int, Any]:
        return 200, self.engine.explain(_object(body))

    def classify(self, body: Any, _source: str) -> tuple[int, Any]:
        body = _object(body)
        text = body.get("text", body.get("task"))
        if not isinstance(text, str):
            raise RequestError("`text` is missing or not text", 'Send {"text": "..."}')
        return 200, intent.as_dict(intent.classify(text, self.engine.intent_defaults))

    def relevance(self, body: Any, _source: str) -> tuple[int, Any]:
        from router.filters import relevance

        focus, chunks, threshold = relevance.parse_request(body)
        return 200, relevance.answer(focus, chunks, threshold)

    def status(self, _body: Any, _source: str) -> tuple[int, Any]:
        cat = self.engine.catalog
        return 200, {
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
            "routes": self.routes,
            "updates": self.updates,
        }

    def diagnostics(self, _body: Any, _source: str) -> tuple[int, Any]:
        cat = self.engine.catalog
        return 200, {
            "diagnostics": [d.as_dict() for d in cat.diagnostics],
            "stale": list(cat.stale),
        }

    def reload(self, _body: Any, _source: str) -> tuple[int, Any]:
        self.engine = self.load(self.config)
        self.updates += 1
        return 200, {
            "entries": len(self.engine.index),
            "fingerprint": self.engine.catalog.fingerprint,
        }

    def shutdown(self, _body: Any, _source: str) -> tuple[int, Any]:
        self.stop.set()
        return 200, {"stopping": True}

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
    status = {
        "pid": os.getpid(),
        "socket": str(places.socket),
        "version": version,
        "root": str(config.root),
        "config": str(config.file) if config.file else None,
        "started_at": started_at,
    }
    temporary = places.status.with_suffix(".tmp")
    temporary.write_bytes(orjson.dumps(status, option=orjson.OPT_SORT_KEYS))
    os.replace(temporary, places.status)


def _known_hooks() -> str:
    return ", ".join(f"{h}/{e}" for h, events in hook.EVENTS.items() for e in events)


def _decode(body: bytes) -> Any:
    try:
        return orjson.loads(body) if body else None
    except orjson.JSONDecodeError as error:
        raise HttpError(400, "bad_json", f"the body is not valid JSON: {error}") from None


def _object(body: Any) -> Mapping[str, Any]:
    if not isinstance(body, dict):
        raise RequestError("the request must be a JSON object", 'Send {"task": "..."}')
    return body


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
