"""The MCP tool server as an agent meets it: `python -m router mcp` started over real stdio and
spoken to by the SDK's own client."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import pytest

HAS_SDK = importlib.util.find_spec("mcp") is not None
needs_sdk = pytest.mark.skipif(
    not HAS_SDK, reason="the mcp SDK is not installed: pip install -e '.[mcp]'"
)
CALL_TIMEOUT = 60.0  # seconds: the first call starts a daemon


def session(
    repo: Path,
    calls: list[tuple[str, dict[str, Any]]],
    args: tuple[str, ...] = ("-m", "router", "mcp"),
    errlog: Any = None,
) -> tuple[list[Any], list[Any]]:
    """Start `python -m router mcp` in the repository, list its tools and make the calls;
    return the tools listed and each call's result (CallToolResult)."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server = StdioServerParameters(
        command=sys.executable, args=list(args), cwd=repo, env=dict(os.environ)
    )

    async def run() -> tuple[list[Any], list[Any]]:
        async with (
            stdio_client(server, errlog=errlog or sys.stderr) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            listed = await client.list_tools()
            results = [
                await client.call_tool(name, arguments, read_timeout_seconds=CALL_TIMEOUT)
                for name, arguments in calls
            ]
            return list(listed.tools), results

    return anyio.run(run)
