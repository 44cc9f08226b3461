"""The one owner of requests: every endpoint, parsed, answered and logged in one place.

The daemon's HTTP server, the CLI's in-process fallback, the hook's slow path, `shadow
replay` and the pre-commit hook all call `App.answer` with the endpoint and the raw body,
so a request means the same wherever it enters. Parsing is `intake`'s, answering the
engine's, the shadow line the recorder's; what only a running daemon knows (its status, a
reload, a shutdown) it lends as a `Control`.
"""

from __future__ import annotations

import os
import threading
import time
import traceback
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import orjson

from router.base import errors
from router.base.errors import KrouteError, MalformedJsonError, RequestError
from router.catalog import config
from router.client import locate, wire
from router.client.payload import decode, member
from router.client.wire import HOOK_PREFIX
from router.filters import intent, relevance
from router.harnesses import opening, registry
from router.harnesses.events import Ask
from router.logbook import opened, recorder, shadow
from router.logbook.recorder import Recorder
from router.route import render, whynot
from router.route.contract import Route
from router.runtime import intake
from router.runtime.engine import Engine
from router.serve import grant, loader, session


@dataclass(frozen=True, slots=True)
class Answer:
    """An endpoint's answer: its HTTP status and its document (a hook's answer is the text
    the hook prints, a str)."""

    status: int
    document: Any


class RefusedError(Exception):
    """A request no endpoint takes: its status, code token and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class Control(Protocol):
    """What only a running daemon answers."""

    def status(self) -> dict[str, Any]: ...
    def diagnostics(self) -> dict[str, Any]: ...
    def reload(self) -> dict[str, Any]: ...
    def shutdown(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Call:
    """Where a request came from and what its URL said besides the path."""

    path: str
    source: str
    query: Mapping[str, list[str]]


Endpoint = Callable[["App", bytes, Call], Any]
CONFIG_QUERY = wire.CONFIG_QUERY


class App:
    """The requests of one catalog: its engine, where its routes are logged, and the daemon
    that serves it when there is one."""

    def __init__(
        self, engine: Engine, log: Recorder | None = None, control: Control | None = None
    ) -> None:
        self.engine = engine  # the daemon swaps it on a reload
        self.log = log  # where its routes are logged (none: not logged)
        self.control = control
        self.routes = 0  # routes and hook events answered
        self.counting = threading.Lock()  # routes are answered side by side (`daemon`)
        # What each session was already shown. Only a daemon's app lives long enough to
        # remember: the slow path's app answers one hook and is gone, so it repeats pointers.
        self.sessions = session.Sessions()
        # What each session was offered first, to join the documents its agent opens to it.
        self.offers = opened.Offers()

    def answer(self, method: str, endpoint: str, body: bytes, source: str = "socket") -> Answer:
        """Return the answer to one request. Never raises: every failure becomes an error
        document with its status (400 for a bad request, 404/405 for no such endpoint or
        method, 500 for a failure of ours, logged on stderr)."""
        path, _, query = endpoint.partition("?")
        try:
            method_table = ENDPOINTS.get(path)
            if method_table is None:
                raise RefusedError(404, "not_found", _unknown(path))
            handler = method_table.get(method)
            if handler is None:
                allowed = ", ".join(sorted(method_table))
                raise RefusedError(405, "method_not_allowed", f"{path} takes {allowed}")
            call = Call(path, source, urllib.parse.parse_qs(query))
            _check_config(call, self.engine.config)
            return Answer(200, handler(self, body, call))
        except RefusedError as refusal:
            return Answer(refusal.status, errors.document(refusal.code, refusal.message))
        except MalformedJsonError as error:
            return Answer(400, errors.document("bad_json", error.what))
        except RequestError as error:
            return Answer(400, errors.document("bad_request", str(error)))
        except KrouteError as error:
            return Answer(500, errors.document("failed", str(error)))
        except Exception:  # a server outlives any bug in one request
            recorder.warn(traceback.format_exc().rstrip())
            return Answer(500, errors.document("internal", "the request failed; see the log"))

    # -- endpoints -------------------------------------------------------------------------

    def route(self, body: bytes, call: Call) -> dict[str, Any]:
        """Return the route document of a request: silence with reason `deadline` when the
        request's time ran out or its client hung up first (`grant.current`)."""
        began = time.perf_counter()
        engine = self.engine  # read once: the daemon may swap in the next one meanwhile
        raw = intake.members(intake.decode(body))
        document = engine.route(intake.route(raw, engine.config), grant.current())
        with self.counting:
            self.routes += 1
        if self.log is not None:
            emitted = shadow.Emitted.of(
                engine,
                source=call.source,
                mode=recorder.strictest(engine.config.shadow_mode),
                injected=False,
                task=str(raw.get("task", "")),
                request=intake.logged(raw),
                document=document,
                text=document["text"],
                elapsed_us=_micros(time.perf_counter() - began),
            )
            self.log.write(emitted, redact=engine.config.shadow_redact)
        return document

    def hook(self, body: bytes, call: Call) -> str:
        """Return exactly what a hook prints for its raw payload, and log the route.

        In `shadow` mode (`?mode=shadow`, or the config's) the route is logged with what
        would have been injected and nothing is printed; in `off` mode the hook does
        nothing. A payload it cannot use prints nothing, and so does a route whose time ran
        out (`grant.current`: logged with silence `deadline`). A catalog document an event
        says the agent read is logged (`_observe`); an event that only tells that
        (`opening.EVENTS`) routes and prints nothing."""
        began = time.perf_counter()
        name, event = call.path[len(HOOK_PREFIX) :].split("/")
        asked = call.query.get("mode")
        mode = recorder.strictest(self.engine.config.shadow_mode, asked[0] if asked else None)
        if mode == "off":
            return ""
        with self.counting:
            self.routes += 1
        try:
            payload = decode(body)
            if opening.observes(name, event):
                self._observe(name, event, payload, mode)
                if opening.only_observes(name, event):
                    return ""  # it routes nothing: no route line, nothing printed
            plan = registry.plan(name, event, payload)
            document: dict[str, Any] | None = None
            skip = plan.skip
            if plan.reset and plan.session:
                self.sessions.reset(plan.session)
            if plan.kind == "orientation":
                live = mode == "live"
                return registry.orient(event, plan, self.engine.orientation()) if live else ""
            text = ""
            if plan.kind == "route":
                try:
                    ask = intake.route(plan.body, self.engine.config)
                    routed = self.engine.routed(ask, grant.current())
                except KrouteError:
                    skip = "bad-request"
                else:
                    document = routed.document
                    text = self._wrapped(name, event, plan, routed.route, document, mode)
        except Exception as error:  # a hook never harms the agent
            recorder.warn(f"hook {name}/{event} failed: {error!r}")
            return ""
        if self.log is not None:
            engine = self.engine
            emitted = shadow.Emitted.of(
                engine,
                source=f"{name}/{event}",
                mode=mode,
                injected=mode == "live" and bool(text),
                task=str(plan.body.get("task", "")),
                request=intake.logged(plan.body),
                document=document,
                text=text,
                elapsed_us=_micros(time.perf_counter() - began),
                session=plan.session,
                prompt_id=plan.prompt_id,
                cwd=plan.cwd,
                skip=skip,
            )
            self.log.write(emitted, redact=engine.config.shadow_redact)
        return text if mode == "live" else ""

    def _wrapped(
        self, name: str, event: str, plan: Ask, route: Route, document: Mapping[str, Any], mode: str
    ) -> str:
        """Return what the hook prints of a route: its report less the pointers the session
        was already shown, wrapped by the harness. Shadow mode remembers too: it logs what
        live mode would have injected."""
        repeated = 0
        if plan.session:
            self._offered(plan, document, f"{name}/{event}", mode)
            kept = session.unrepeated(self.sessions, plan.session, route, self.engine.index)
            route, repeated = kept.route, kept.repeated
        report = render.report(route, already_shown=repeated)
        return registry.wrap(name, event, plan, report, route.anchors)

    def _offered(self, plan: Ask, document: Mapping[str, Any], source: str, mode: str) -> None:
        """Remember which documents a session's route offered, where each stood, and when
        (now: the route's line is written with the same instant, give or take its route)."""
        ids = [str(p["id"]) for p in document.get("pointers") or []]
        if plan.session and ids:
            engine, now = self.engine, recorder.stamp(recorder.utc_now())
            offer = opened.Offer(
                now, engine.version, engine.catalog.fingerprint, 0, mode, source, plan.prompt_id
            )
            self.offers.note(plan.session, offer, ids)

    def _observe(self, name: str, event: str, payload: Mapping[str, Any] | None, mode: str) -> None:
        """Log each catalog document the event says the agent opened, joined to the first
        route of its session that offered it (`Recorder.write_reads`). Never raises: a read
        that cannot be logged is reported on stderr."""
        try:
            seen = opening.opened(name, event, payload)
            if seen is None or payload is None or self.log is None:
                return
            session_id = member(payload, "session_id")
            self.log.write_reads(
                self.engine,
                self.offers,
                seen,
                session_id if isinstance(session_id, str) and session_id else None,
                source=f"{name}/{event}",
                mode=mode,
            )
        except Exception as error:  # a hook never harms the agent
            recorder.warn(f"hook {name}/{event}: read not logged: {error!r}")

    def explain(self, body: bytes, _call: Call) -> dict[str, Any]:
        return self.engine.explain(intake.explain(intake.decode(body)))

    def classify(self, body: bytes, _call: Call) -> dict[str, Any]:
        text = intake.intent_text(intake.decode(body))
        return intent.as_dict(intent.classify(text, self.engine.intent_defaults))

    def relevance(self, body: bytes, _call: Call) -> dict[str, object]:
        ask = intake.relevance(intake.decode(body))
        return relevance.answer(ask.focus, ask.chunks, ask.threshold)

    def why_not(self, body: bytes, _call: Call) -> dict[str, Any]:
        """Return why an entry was or was not offered for a route request (not logged: it
        is no route emitted). An entry the catalog lacks is a 404."""
        engine = self.engine  # read once: the daemon may swap in the next one meanwhile
        ask = intake.why_not(intake.decode(body), engine.config)
        try:
            return engine.why_not(ask)
        except whynot.UnknownEntryError as error:
            raise RefusedError(404, "unknown_entry", str(error)) from None

    def catalog(self, body: bytes, call: Call) -> dict[str, Any]:
        """Return the catalog's entries (`{kind}` in the body or `?kind=` narrows them)."""
        return self.engine.listing(intake.catalog_kind(intake.decode(body), call.query))

    def status(self, _body: bytes, call: Call) -> dict[str, Any]:
        return self._daemon(call).status()

    def diagnostics(self, _body: bytes, call: Call) -> dict[str, Any]:
        return self._daemon(call).diagnostics()

    def reload(self, _body: bytes, call: Call) -> dict[str, Any]:
        return self._daemon(call).reload()

    def shutdown(self, _body: bytes, call: Call) -> dict[str, Any]:
        return self._daemon(call).shutdown()

    def _daemon(self, call: Call) -> Control:
        if self.control is None:
            raise RefusedError(404, "not_found", f"only a running daemon answers {call.path}")
        return self.control


ENDPOINTS: dict[str, dict[str, Endpoint]] = {
    "/v1/route": {"POST": App.route},
    "/v1/explain": {"POST": App.explain},
    "/v1/intent": {"POST": App.classify},
    "/v1/matrix/relevance": {"POST": App.relevance},
    "/v1/why-not": {"POST": App.why_not},
    "/v1/catalog": {"GET": App.catalog, "POST": App.catalog},
    "/v1/status": {"GET": App.status},
    "/v1/diagnostics": {"GET": App.diagnostics},
    "/v1/reload": {"POST": App.reload},
    "/v1/shutdown": {"POST": App.shutdown},
    **{
        f"{HOOK_PREFIX}{name}/{event}": {"POST": App.hook}
        for table in (registry.EVENTS, opening.EVENTS)
        for name, events in table.items()
        for event in events
    },
}


def _check_config(call: Call, cfg: config.Config) -> None:
    """Return when the request names no config digest (`?config=`), or the one in force.
    Raises RefusedError 412 `config` otherwise: the client read a config file (the CLI's fast path,
    `router.cli.shortcut`) that is not the one this catalog was loaded with (edited since, or
    invalid and not taken up), so it answers through the full command line instead, which
    reads and checks the file itself."""
    named = call.query.get(CONFIG_QUERY)
    if named is not None and named != [cfg.digest]:
        raise RefusedError(
            412, "config", f"the config in force is {cfg.digest}, not {', '.join(named)}"
        )


def _micros(seconds: float) -> int:
    return int(seconds * 1_000_000)


def _unknown(path: str) -> str:
    if path.startswith(HOOK_PREFIX):
        known = ", ".join(p[len(HOOK_PREFIX) :] for p in ENDPOINTS if p.startswith(HOOK_PREFIX))
        return f"no hook {path}; known: {known}"
    return f"no endpoint {path}; see GET /v1/status"


# -- in process, without a daemon ------------------------------------------------------------


def in_process(engine: Engine, env: Mapping[str, str]) -> App:
    """Return the app of an engine loaded in process, logging where the env says."""
    return App(engine, recorder.for_engine(engine, env))


def standalone(cfg: config.Config, places: locate.Places, env: Mapping[str, str]) -> App:
    """Return the app that answers in this process when no daemon does (`kroute route
    --no-daemon`, a hook's slow path, the pre-commit stage, the tool server): over the
    daemon's snapshot when one serves, else over the catalog read cold (`loader.once`)."""
    return in_process(loader.once(cfg, places, os.getuid()), env)


def document(answer: Answer) -> Any:
    """Return an answer's document, or raise what its error says: RequestError for a bad
    request, KrouteError for anything else (the CLI reports either)."""
    if answer.status == 200:
        return answer.document
    message = errors.message_of(answer.document)
    if answer.status == 400:
        raise RequestError(message)
    raise KrouteError(message)


def encode(body: Mapping[str, Any]) -> bytes:
    """Return a request body as it goes over the socket."""
    return orjson.dumps(body)


def hook_in_process(
    root: Path,
    config_file: Path | None,
    name: str,
    event: str,
    raw: bytes,
    env: Mapping[str, str],
) -> str:
    """Return what a hook prints, answered without a daemon (the slow path of `kroute-hook`):
    the same endpoint the daemon serves, over an engine loaded here."""
    cfg = config.load(config_file, root) if config_file else config.bare(root)
    mode = env.get("KROUTE_MODE", "live")
    answer = standalone(cfg, locate.places(root, config_file, env), env).answer(
        "POST", f"{HOOK_PREFIX}{name}/{event}?mode={mode}", raw, f"{name}/{event}"
    )
    return answer.document if answer.status == 200 else ""
