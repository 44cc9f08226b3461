"""Answers that write to the shadow log: hook events and logged routes, shared by the daemon
and the in-process fallback of `kroute-hook` and `kroute route`.

The clock and the environment come in from the edges (`Recorder.now`, `env`).
"""

from __future__ import annotations

import datetime
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from router.base import paths
from router.base.errors import KrouteError
from router.core import config
from router.integrations import hook
from router.logbook import shadow
from router.runtime.engine import Engine


def utc_now() -> datetime.datetime:
    """Return the current UTC time (the edges pass this in as the clock)."""
    return datetime.datetime.now(datetime.UTC)


@dataclass(frozen=True, slots=True)
class Recorder:
    """Where and how routes are logged for one repository (DESIGN 12)."""

    state: Path
    repo_id: str
    now: Callable[[], datetime.datetime] = utc_now
    # Given, the line is handed to it instead of written: the daemon appends it once the
    # answer is sent, so that no route waits on the log.
    defer: Callable[[Callable[[], None]], None] | None = None

    def write(
        self,
        engine: Engine,
        *,
        source: str,
        task: str,
        request: Mapping[str, Any],
        document: Mapping[str, Any] | None,
        text: str,
        injected: bool,
        elapsed: float,
        plan: hook.Plan | None = None,
        skip: str | None = None,
        mode: str | None = None,
    ) -> None:
        """Append one line (or hand it to `defer`); a log that cannot be written is
        reported on stderr, never raised, so logging can never break a route or a hook."""
        mode = strictest(engine.config.shadow_mode, mode)
        if mode == "off":
            return
        at = self.now()

        def append() -> None:
            self._append(
                at,
                engine,
                source,
                task,
                request,
                document,
                text,
                injected,
                elapsed,
                plan,
                skip,
                mode,
            )

        if self.defer is not None:
            self.defer(append)
        else:
            append()

    def _append(
        self,
        at: datetime.datetime,
        engine: Engine,
        source: str,
        task: str,
        request: Mapping[str, Any],
        document: Mapping[str, Any] | None,
        text: str,
        injected: bool,
        elapsed: float,
        plan: hook.Plan | None,
        skip: str | None,
        mode: str,
    ) -> None:
        try:
            record = shadow.entry(
                at=at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                engine_version=engine.version,
                catalog_fingerprint=engine.catalog.fingerprint,
                config_digest=engine.config.digest,
                source=source,
                session=plan.session if plan else None,
                prompt_id=plan.prompt_id if plan else None,
                cwd=plan.cwd if plan else None,
                mode=mode,
                injected=injected,
                task=task,
                request=dict(request),
                document=dict(document) if document is not None else None,
                text=text,
                elapsed_us=int(elapsed * 1_000_000),
                skip=skip,
            )
            day = at.date().isoformat()
            shadow.append(shadow.log_path(self.state, self.repo_id, day), record)
        except (KrouteError, OSError) as error:
            print(f"shadow log not written: {error}", file=sys.stderr)


def recorder(engine: Engine, env: Mapping[str, str]) -> Recorder:
    """Return the recorder of an engine's repository, in the state dir the env names."""
    cfg = engine.config
    return Recorder(paths.state_dir(env), paths.key(cfg.root, cfg.file))


def route(
    engine: Engine, body: Mapping[str, Any], rec: Recorder | None, source: str
) -> dict[str, Any]:
    """Return the route document of a request, logged as emitted by `source`. Raises
    RequestError for a malformed request."""
    began = time.perf_counter()
    document = engine.route(body)
    if rec is not None:
        rec.write(
            engine,
            source=source,
            task=str(body.get("task", "")),
            request=_request(body),
            document=document,
            text=document["text"],
            injected=False,
            elapsed=time.perf_counter() - began,
        )
    return document


MODES = ("live", "shadow", "off")  # each later one does less


def strictest(*modes: str | None) -> str:
    """Return the mode that does least: a hook installed with --shadow stays in shadow mode
    even where the repository's config says live."""
    known = [m for m in modes if m in MODES]
    return max(known, key=MODES.index) if known else "live"


def respond(
    engine: Engine,
    harness: str,
    event: str,
    raw: bytes,
    rec: Recorder | None,
    mode: str | None = None,
) -> str:
    """Return exactly what a hook prints for its raw payload, and log the route.

    In `shadow` mode the route is logged with what would have been injected and nothing is
    printed; in `off` mode the hook does nothing. Never raises."""
    began = time.perf_counter()
    mode = strictest(engine.config.shadow_mode, mode)
    if mode == "off":
        return ""
    try:
        plan = hook.plan(harness, event, hook.decode(raw))
        document: dict[str, Any] | None = None
        skip = plan.skip
        if plan.kind == "orientation":
            return hook.render(harness, event, plan, engine.orientation()) if mode == "live" else ""
        if plan.kind == "route":
            try:
                document = engine.route(plan.body)
            except KrouteError:
                skip = "bad-request"
        text = hook.render(harness, event, plan, document)
    except Exception as error:  # a hook never harms the agent
        print(f"hook {harness}/{event} failed: {error!r}", file=sys.stderr)
        return ""
    if rec is not None:
        rec.write(
            engine,
            source=f"{harness}/{event}",
            task=str(plan.body.get("task", "")),
            request=_request(plan.body),
            document=document,
            text=text,
            injected=mode == "live" and bool(text),
            elapsed=time.perf_counter() - began,
            plan=plan,
            skip=skip,
            mode=mode,
        )
    return text if mode == "live" else ""


def hook_in_process(
    root: Path,
    config_file: Path | None,
    harness: str,
    event: str,
    raw: bytes,
    env: Mapping[str, str],
) -> str:
    """Answer a hook without a daemon (the slow path of `kroute-hook`)."""
    cfg = config.load(config_file, root) if config_file else config.bare(root)
    engine = Engine.load(cfg)
    return respond(engine, harness, event, raw, recorder(engine, env), env.get("KROUTE_MODE"))


def _request(body: Mapping[str, Any]) -> dict[str, Any]:
    """Return the request members worth logging (not the task, which has its own field)."""
    keep = ("budget", "order", "strategy", "paths", "domain", "cluster", "kind", "purpose")
    out = {k: body[k] for k in keep if body.get(k) is not None}
    focus = body.get("focus")
    if focus is not None:
        out["focus"] = focus.get("path") if isinstance(focus, Mapping) else focus
    return out
