"""`kroute mcp`: the catalog's routes as read-only MCP tools, served over stdio.

`Tools` answers each tool the way the CLI answers a command: the repository's daemon first
(started on demand), the same endpoint in process when no daemon can be had, with source
`mcp` either way, so every route an agent gets this way lands in the shadow log. A tool's
result is its text form, what an agent reads (a route's is the report the hooks inject,
about a fifth of its JSON), with the same answer as structured content beside it.

Arguments are checked against `tool.TOOLS` before anything is asked: an unknown argument,
a missing or mistyped one and a value the catalog does not hold are each refused with one
sentence that says what to send instead. `serve` runs the official `mcp` SDK's low-level
server over stdio, imported only there, so neither the CLI nor a hook pays for it and a
kroute without the `mcp` extra still runs; the engine is imported only when a tool must be
answered in process, so `initialize` waits on nothing but the SDK.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from router import __version__, client
from router.base.errors import (
    DaemonError,
    ExtraMissingError,
    KrouteError,
    RequestError,
    ToolUnavailableError,
)
from router.catalog.config import Config
from router.core import shown
from router.integrations import tool
from router.serve import launcher

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

SOURCE = "mcp"  # the shadow log's name for routes emitted through this server
SERVER_NAME = "kroute"
# After the daemon could not be had, route in process for this long before trying it
# again: starting one waits up to launcher.START_WAIT, too long to pay on every tool call.
DAEMON_RETRY = 30.0
# The daemon takes a request body of at most 1 MiB (`server.BODY_CAP`, a test pins the two);
# a larger one is refused before it is sent, with what to send instead.
MAX_BODY = 1024 * 1024
ROUTE_KEYS = ("task", "status", "silence", "anchors", "pointers", "withheld")
NOT_GOVERNED = "not_governed"  # the silence of `governing` on a file no document governs
# The explain record's tiers, highest first, as its `match_breakdown` names them.
EXPLAIN_TIERS = ("structured", "family_text", "open_first", "notes", "body")
INSTRUCTIONS = (
    "kroute routes a task to the few documents of this repository's knowledge catalog worth "
    "reading first, with the evidence for each. Call `route` before starting a task, "
    "`governing` before editing a file; read the documents it points to."
)


@dataclass(frozen=True, slots=True)
class Result:
    """A tool's answer: the text an agent reads, and the same answer as data."""

    text: str
    data: dict[str, Any]


class Tools:
    """The tools of one repository's catalog. `call` checks a tool call's arguments and
    answers it as a Result; the methods by tool name return its JSON document. Each raises
    RequestError for a bad argument and KrouteError when it cannot answer."""

    def __init__(self, cfg: Config, env: Mapping[str, str]) -> None:
        self.cfg = cfg
        self.env = dict(env)
        self.target = client.target(cfg.root, cfg.file, env)
        self._lock = threading.Lock()  # tools are answered in worker threads
        self._daemon_after = 0.0  # monotonic time before which the daemon is not asked

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> Result:
        """Return the answer to one tool call. Raises RequestError naming what is wrong with
        the call and what to send instead, KrouteError when it cannot be answered."""
        spec = tool.SPECS.get(name)
        if spec is None:
            raise RequestError(f"there is no tool `{name}`", f"Call one of {', '.join(tool.SPECS)}")
        given = tool.checked(spec, arguments or {})
        if name == "route":
            document = self.route(given["task"], given.get("paths"), given.get("budget"))
            return Result(document_text(document), _without_text(document))
        if name == "governing":
            document = self.governing(given["path"])
            return Result(governing_text(given["path"], document, self.cfg.root), document)
        if name == "explain":
            document = self.explain(given["task"])
            return Result(explain_text(document), document)
        if name == "catalog":
            document = self.catalog(given.get("kind"))
            return Result(catalog_text(document, given.get("kind")), document)
        document = self.why_not(given["task"], given["entry"])
        return Result(document_text(document), _without_text(document))

    def ask(self, endpoint: str, body: Mapping[str, Any]) -> Any:
        """Return the answer of POST `endpoint`: the daemon's, or the in-process one when no
        daemon can be had, every string in it cleaned of what an agent must not be shown
        (`shown.scrubbed`). Raises ToolUnavailableError when this kroute has no such endpoint,
        RequestError for a bad request, KrouteError when neither way can answer."""
        return shown.scrubbed(self._answer(endpoint, body))

    def _answer(self, endpoint: str, body: Mapping[str, Any]) -> Any:
        body = {k: v for k, v in body.items() if v is not None}
        size = len(json.dumps(body, ensure_ascii=False).encode("utf-8"))
        if size > MAX_BODY:
            raise RequestError(
                f"the request is {size / 1024 / 1024:.1f} MB; kroute takes at most "
                f"{MAX_BODY // 1024 // 1024} MiB",
                "Send the request itself as `task` (its first paragraphs, not a pasted log "
                "or file) and the files it is about as `paths`",
            )
        if self._daemon_up():
            try:
                return launcher.ask(self.target, self.env, endpoint, body, source=SOURCE)
            except RequestError:
                raise
            except DaemonError as error:  # it runs but failed this request: so may we
                _note(f"answering in process ({error.what})")
        from router.serve import service  # the engine: only when answering in process

        if "POST" not in service.ENDPOINTS.get(endpoint, {}):
            raise ToolUnavailableError(endpoint.rsplit("/", 1)[-1].replace("-", "_"), endpoint)
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
        return {key: document[key] for key in (*ROUTE_KEYS, "text") if key in document}

    def explain(self, task: str) -> dict[str, Any]:
        """Return the annex router's explain record of a task: every scored row and why."""
        document: dict[str, Any] = self.ask("/v1/explain", {"task": task})
        return document

    def governing(self, path: str) -> dict[str, Any]:
        """Return the documents that govern a file: a route anchored on it alone, with an
        empty task, so nothing but the path decides. When none does, its silence says so
        (reason `not_governed`), not that the empty task has no term."""
        document = self.route("", [path])
        if not document.get("pointers"):
            says = governing_text(path, document, self.cfg.root)
            document = {**document, "silence": {"reason": NOT_GOVERNED, "says": says}}
            document["text"] = says
        return document

    def catalog(self, kind: str | None = None) -> dict[str, Any]:
        """Return the catalog's entries (id, path, kind, title, summary), of one kind when
        `kind` is given. Raises RequestError for a kind no entry has, naming those there are."""
        document: dict[str, Any] = self.ask("/v1/catalog", {"kind": kind})
        if kind is not None and not document.get("entries"):
            every = self.ask("/v1/catalog", {}).get("entries", [])
            kinds = sorted({str(e.get("kind")) for e in every})
            raise RequestError(
                f"the catalog has no entry of kind `{kind}`",
                f"Use one of its kinds: {', '.join(kinds)}; or leave `kind` out for every entry"
                if kinds
                else "The catalog is empty: leave `kind` out",
            )
        return document

    def why_not(self, task: str, entry: str) -> dict[str, Any]:
        """Return why an entry was not offered for a task (its `text` says it in words)."""
        document: dict[str, Any] = self.ask("/v1/why-not", {"entry": entry, "task": task})
        return document


# -- the text forms -----------------------------------------------------------------------------


def document_text(document: Mapping[str, Any]) -> str:
    """Return a route's or a why-not's text: what the hooks inject, or the silence."""
    return str(document.get("text") or "").strip("\n") or "No catalog document bears on this."


def governing_text(path: str, document: Mapping[str, Any], root: Path) -> str:
    """Return what governs a file, in words: the route's report, or which file none does."""
    if document.get("pointers") or document.get("silence", {}).get("reason") == NOT_GOVERNED:
        return document_text(document)
    named = shown.flat(path)
    absolute = Path(path)
    if absolute.is_absolute() and not absolute.resolve().is_relative_to(root):
        return f"{named} is outside the repository ({root}), so no catalog document governs it."
    return f"No catalog document governs {named}."


def explain_text(document: Mapping[str, Any]) -> str:
    """Return the explain record as one line per scored row: its score, the tiers that
    gave it, and its title."""
    rows = document.get("rows") or []
    if not rows:
        return "No catalog entry holds a word of this task."
    lines = [f"{len(rows)} scored row{'' if len(rows) == 1 else 's'}, best first:"]
    for row in rows:
        shares = row.get("match_breakdown") or {}
        parts = ", ".join(f"{tier} {score:g}" for tier, score in shares.items() if score)
        name = shown.flat(str(row.get("display_name") or ""))
        lines.append(
            f"  {shown.flat(str(row.get('slug')))}: {row.get('score', 0):g} ({parts}) {name}"
        )
    return "\n".join(lines)


def catalog_text(document: Mapping[str, Any], kind: str | None) -> str:
    """Return the catalog listing as one line per entry: path, kind, id and title."""
    entries = document.get("entries") or []
    head = f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
    lines = [head + (f" of kind {shown.flat(kind)}:" if kind else ":")]
    for e in entries:
        title = shown.flat(str(e.get("title") or ""))
        lines.append(
            f"  {shown.flat(str(e.get('path')))} [{shown.flat(str(e.get('kind')))}] "
            f"{shown.flat(str(e.get('id')))}: {title}".rstrip(": ")
        )
    return "\n".join(lines)


def _without_text(document: Mapping[str, Any]) -> dict[str, Any]:
    """Return a document without its `text`, which the result's text carries already."""
    return {k: v for k, v in document.items() if k != "text"}


def _note(message: str) -> None:
    # stdout carries the protocol; stderr is what the client keeps as this server's log
    print(f"kroute mcp: {message}", file=sys.stderr)


# -- the MCP server --------------------------------------------------------------------------------


def serve(tools: Tools) -> None:
    """Serve the tools over stdio until the client closes it. Raises ExtraMissingError when the
    `mcp` SDK is not installed."""
    server = build(tools)
    import anyio
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


def build(tools: Tools) -> Server[Any]:
    """Return the MCP server of the tools, every one read-only. Raises ExtraMissingError when the
    `mcp` SDK is not installed."""
    try:
        import anyio
        import mcp_types as types
        from mcp.server.lowlevel import Server
    except ImportError:
        raise ExtraMissingError() from None

    read_only = types.ToolAnnotations(
        read_only_hint=True, destructive_hint=False, open_world_hint=False
    )
    listed = types.ListToolsResult(
        tools=[
            types.Tool(
                name=spec.name,
                description=spec.says,
                input_schema=spec.schema(),
                annotations=read_only,
            )
            for spec in tool.TOOLS
        ]
    )

    async def list_tools(_context: Any, _params: Any) -> types.ListToolsResult:
        return listed

    async def call_tool(_context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments if isinstance(params.arguments, dict) else {}
        try:
            result = await anyio.to_thread.run_sync(tools.call, params.name, arguments)
        except KrouteError as error:
            # a failure we foresaw is the model's to read: one sentence, what to do instead
            said = types.TextContent(type="text", text=f"Error: {shown.flat(str(error))}")
            return types.CallToolResult(content=[said], is_error=True)
        answer = types.TextContent(type="text", text=shown.clean(result.text, lines=True))
        return types.CallToolResult(content=[answer], structured_content=result.data)

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
