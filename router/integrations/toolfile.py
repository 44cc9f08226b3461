"""`.mcp.json`: the entry that lets an agent start `kroute mcp` (Claude Code and other MCP
clients read it at the repository root). Install merges kroute's server entry, keeping
every other server and key; uninstall takes out exactly that entry, and the file with it
when nothing else is left in it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from router.base.errors import InstallError
from router.integrations.install import Plan

MCP_FILE = ".mcp.json"
SERVERS_KEY = "mcpServers"
SERVER_NAME = "kroute"
# Portable: the console script on PATH, run by the agent from the repository root.
SERVER_ENTRY: dict[str, Any] = {"command": "kroute", "args": ["mcp"]}


def _read(path: Path) -> tuple[str | None, dict[str, Any], dict[str, Any]]:
    """Return the file's text (None when absent), its object and its servers. Raises
    InstallError when it is not a JSON object whose `mcpServers` is an object."""
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
    return before, settings, servers


def plan_install(root: Path) -> Plan:
    """Return the plan that merges kroute's server entry into `<root>/.mcp.json` (no change
    when it is there already). Raises InstallError for a file it cannot merge."""
    path = root / MCP_FILE
    before, settings, servers = _read(path)
    if servers.get(SERVER_NAME) == SERVER_ENTRY and before is not None:
        return Plan(path, before, before)
    settings[SERVERS_KEY] = {**servers, SERVER_NAME: SERVER_ENTRY}
    return Plan(path, before, json.dumps(settings, indent=2) + "\n")


def plan_uninstall(root: Path) -> Plan:
    """Return the plan that takes kroute's server entry out of `<root>/.mcp.json`: the file
    goes when nothing else is left in it (install made it so), every other server and key
    stays. A file without kroute's entry is left as it is. Raises InstallError for a file
    it cannot read safely."""
    path = root / MCP_FILE
    before, settings, servers = _read(path)
    if before is None or SERVER_NAME not in servers:
        return Plan(path, before, before)
    rest = {name: entry for name, entry in servers.items() if name != SERVER_NAME}
    left = (
        {**settings, SERVERS_KEY: rest}
        if rest
        else {k: v for k, v in settings.items() if k != SERVERS_KEY}
    )
    after = json.dumps(left, indent=2) + "\n" if left else None
    return Plan(path, before, after)


def installed(root: Path) -> bool:
    """Return whether `<root>/.mcp.json` serves kroute's tools."""
    try:
        return SERVER_NAME in _read(root / MCP_FILE)[2]
    except (InstallError, OSError):
        return False
