"""`kroute mcp`: the catalog's routes as read-only MCP tools, served over stdio.

`Tools` answers each tool the way the CLI answers a command: the repository's daemon first
(started on demand), the same endpoint in process when no daemon can be had, with source
`mcp` either way, so every route an agent gets this way lands in the shadow log. It needs
no SDK; `serve` wraps it in the official `mcp` SDK's `MCPServer`, imported only there, so
neither the CLI nor a hook pays for it and a kroute without the `mcp` extra still runs.
`plan_install` writes the `.mcp.json` entry that lets an agent start `kroute mcp`.
"""

# No `from __future__ import annotations`: the SDK reads the tools' annotations at run
# time, and those name types local to `build`.
import json
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from router import __version__
from router.base.errors import DaemonError, KrouteError
from router.core import shown
from router.core.config import Config
from router.integrations.install import InstallError, Plan
from router.serve import client, launcher, service

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

SOURCE = "mcp"  # the shadow log's name for routes emitted through this server
SERVER_NAME = "kroute"
# After the daemon could not be had, route in process for this long before trying it
# again: starting one waits up to launcher.START_WAIT, too long to pay on every tool call.
DAEMON_RETRY = 30.0
MCP_FILE = ".mcp.json"
SERVERS_KEY = "mcpServers"
# Portable: the console script on PATH, run by the agent from the repository root.
SERVER_ENTRY: dict[str, Any] = {"command": "kroute", "args": ["mcp"]}
ROUTE_KEYS = ("task", "status", "silence", "anchors", "pointers", "withheld", "text")
INSTRUCTIONS = (
    "kroute routes a task to the few documents of this repository's knowledge catalog worth "
    "reading first, with the evidence for each. Call `route` before starting a task, "
    "`governing` before editing a file; read the documents it points to."
)


class ExtraMissing(KrouteError):
    """The `mcp` SDK is not installed."""

    def __init__(self) -> None:
        super().__init__(
            "the MCP server needs the mcp extra",
            "Install it: pip install 'knowledge-router[mcp]'",
        )


class Unavailable(KrouteError):
    """This kroute has no endpoint for a tool."""

    def __init__(self, tool: str, endpoint: str) -> None:
        super().__init__(
            f"{tool} is not available in this kroute (it has no {endpoint} endpoint)",
            "Upgrade knowledge-router",
        )


class Tools:
    """The tools of one repository's catalog; every method returns a JSON document and
    raises KrouteError (RequestError for a bad argument) when it cannot answer."""

    def __init__(self, cfg: Config, env: Mapping[str, str]) -> None:
        self.cfg = cfg
        self.env = dict(env)
        self.target = client.target(cfg.root, cfg.file, env)
        self._lock = threading.Lock()  # the SDK runs synchronous tools in worker threads
        self._daemon_after = 0.0  # monotonic time before which the daemon is not asked

    def ask(self, endpoint: str, body: Mapping[str, Any]) -> Any:
        """Return the answer of POST `endpoint`: the daemon's, or the in-process one when no
        daemon can be had, every string in it cleaned of what an agent must not be shown
        (`shown.scrubbed`). Raises Unavailable when this kroute has no such endpoint,
        RequestError for a bad request, KrouteError when neither way can answer."""
        return shown.scrubbed(self._answer(endpoint, body))

    def _answer(self, endpoint: str, body: Mapping[str, Any]) -> Any:
        if "POST" not in service.ENDPOINTS.get(endpoint, {}):
            raise Unavailable(endpoint.rsplit("/", 1)[-1].replace("-", "_"), endpoint)
        body = {k: v for k, v in body.items() if v is not None}
        if self._daemon_up():
            try:
                return launcher.ask(self.target, self.env, endpoint, body, source=SOURCE)
            except DaemonError as error:  # it runs but failed this request: so may we
                _note(f"answering in process ({error.what})")
        app = service.standalone(self.cfg, self.target.places, self.env)
        return service.document(app.answer("POST", endpoint, service.encode(body), SOURCE))

    def _daemon_up(self) -> bool:
        """Return whether a daemon serves the repository, starting one when none does; after
        one could not be had, False without trying until DAEMON_RETRY seconds have passed."""
        if time.monotonic() < self._daemon_after:
            return False
        try:
            launcher.ensure(self.target, self.env)
        except DaemonError as error:
            with self._lock:
                self._daemon_after = time.monotonic() + DAEMON_RETRY
            _note(f"no daemon, answering in process for {DAEMON_RETRY:g} s ({error})")
            return False
        return True

    def route(
        self, task: str, paths: list[str] | None = None, budget: int | None = None
    ) -> dict[str, Any]:
        """Return the route of a task: its pointers with their evidence, how many were
        withheld, and `text`, what the hooks inject."""
        document = self.ask("/v1/route", {"task": task, "paths": paths or [], "budget": budget})
        return {key: document[key] for key in ROUTE_KEYS if key in document}

    def explain(self, task: str) -> dict[str, Any]:
        """Return the annex router's explain record of a task: every scored row and why."""
        document: dict[str, Any] = self.ask("/v1/explain", {"task": task})
        return document

    def governing(self, path: str) -> dict[str, Any]:
        """Return the documents that govern a file: a route anchored on it alone, with an
        empty task, so nothing but the path decides."""
        return self.route("", [path])

    def catalog(self, kind: str | None = None) -> dict[str, Any]:
        """Return the catalog's entries (id, path, kind, title, summary), of one kind when
        `kind` is given."""
        document: dict[str, Any] = self.ask("/v1/catalog", {"kind": kind})
        return document

    def why_not(self, task: str, entry: str) -> dict[str, Any]:
        """Return why an entry was not offered for a task (its `text` says it in words)."""
        document: dict[str, Any] = self.ask("/v1/why-not", {"entry": entry, "task": task})
        return document


def _note(message: str) -> None:
    # stdout carries the protocol; stderr is what the client keeps as this server's log
    print(f"kroute mcp: {message}", file=sys.stderr)


# -- the MCP server --------------------------------------------------------------------------------


def serve(tools: Tools) -> None:
    """Serve the tools over stdio until the client closes it. Raises ExtraMissing when the
    `mcp` SDK is not installed."""
    build(tools).run("stdio")


def build(tools: Tools) -> "MCPServer":
    """Return the MCP server of the tools, every one read-only. Raises ExtraMissing when the
    `mcp` SDK is not installed."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
        from mcp_types import ToolAnnotations
        from pydantic import Field
    except ImportError:
        raise ExtraMissing() from None

    server = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS, version=__version__)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)

    def answered(work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        # A failure we foresaw is the model's to read (is_error with the sentence); any
        # other exception stays a crash, which the SDK reports and logs.
        try:
            return work()
        except KrouteError as error:
            raise ToolError(shown.flat(str(error))) from None

    Task = Annotated[str, Field(description="The task, in the words the user gave it.")]
    Entry = Annotated[str, Field(description="A catalog entry's id (or its path).")]

    @server.tool(name="route", annotations=read_only)
    def route(
        task: Task,
        paths: Annotated[
            list[str] | None, Field(description="Files the task is about, from the root.")
        ] = None,
        budget: Annotated[int | None, Field(ge=1, description="Pointers to offer.")] = None,
    ) -> dict[str, Any]:
        """The few catalog documents worth reading for a task, each with the evidence that
        chose it, how many more were withheld, and `text`: what kroute's hooks inject."""
        return answered(lambda: tools.route(task, paths, budget))

    @server.tool(name="explain", annotations=read_only)
    def explain(task: Task) -> dict[str, Any]:
        """Every scored row for a task and its score breakdown, in four fixed tiers."""
        return answered(lambda: tools.explain(task))

    @server.tool(name="governing", annotations=read_only)
    def governing(
        path: Annotated[str, Field(description="A file of the repository, from its root.")],
    ) -> dict[str, Any]:
        """The catalog documents that govern a file: read them before editing it."""
        return answered(lambda: tools.governing(path))

    @server.tool(name="catalog", annotations=read_only)
    def catalog(
        kind: Annotated[
            str | None, Field(description="Only entries of this kind (spec, decision, ...).")
        ] = None,
    ) -> dict[str, Any]:
        """The catalog's entries: id, path, kind, title and summary of each."""
        return answered(lambda: tools.catalog(kind))

    @server.tool(name="why_not", annotations=read_only)
    def why_not(task: Task, entry: Entry) -> dict[str, Any]:
        """Why a catalog entry was not offered for a task."""
        return answered(lambda: tools.why_not(task, entry))

    return server


# -- .mcp.json ------------------------------------------------------------------------------------


def plan_install(root: Path) -> Plan:
    """Return the plan that merges kroute's server entry into `<root>/.mcp.json`, keeping
    every other server and key (no change when it is there already). Raises InstallError
    when the file is not a JSON object whose `mcpServers` is an object."""
    path = root / MCP_FILE
    before = path.read_text(encoding="utf-8") if path.exists() else None
    try:
        settings = json.loads(before) if before and before.strip() else {}
    except ValueError as error:
        raise InstallError(f"{path} is not valid JSON ({error})", "Fix or remove it") from None
    servers = settings.get(SERVERS_KEY, {}) if isinstance(settings, dict) else None
    if not isinstance(servers, dict):
        raise InstallError(
            f"{path} is not a JSON object with an object `{SERVERS_KEY}`", "Fix or remove it"
        )
    if servers.get(SERVER_NAME) == SERVER_ENTRY and before is not None:
        return Plan(path, before, before)
    settings[SERVERS_KEY] = {**servers, SERVER_NAME: SERVER_ENTRY}
    return Plan(path, before, json.dumps(settings, indent=2) + "\n")
