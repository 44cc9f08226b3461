"""`kroute mcp`: the MCP tool server, spoken to by the SDK's own client over real stdio."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from router.base import paths
from router.core import config
from router.integrations import toolserver
from router.logbook import shadow
from router.serve import client, service

from conftest import DEMO, kroute

HAS_SDK = importlib.util.find_spec("mcp") is not None
needs_sdk = pytest.mark.skipif(
    not HAS_SDK, reason="the mcp SDK is not installed: pip install -e '.[mcp]'"
)
TOOLS = {"route", "explain", "governing", "catalog", "why_not"}
CALL_TIMEOUT = 60.0  # seconds: the first call starts a daemon
MISSING = (
    "Error: the MCP server needs the mcp extra. Install it: pip install 'knowledge-router[mcp]'."
)


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO).resolve()


def shadow_lines(repo: Path, expected: int) -> list[dict[str, Any]]:
    """Return the repository's shadow lines once there are `expected` of them (the daemon
    writes one just after it answers), or what there is after 10 s."""
    directory = shadow.log_dir(
        Path(os.environ["KROUTE_HOME"]), paths.key(repo, repo / "kroute.toml")
    )
    deadline = time.monotonic() + 10
    while True:
        found = list(shadow.read(directory)) if directory.exists() else []
        if len(found) >= expected or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def session(repo: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[set[str], list[Any]]:
    """Start `python -m router mcp` in the repository, list its tools and make the calls;
    return the tool names and each call's result (CallToolResult)."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server = StdioServerParameters(
        command=sys.executable, args=["-m", "router", "mcp"], cwd=repo, env=dict(os.environ)
    )

    async def run() -> tuple[set[str], list[Any]]:
        async with (
            stdio_client(server) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            listed = await client.list_tools()
            results = [
                await client.call_tool(name, arguments, read_timeout_seconds=CALL_TIMEOUT)
                for name, arguments in calls
            ]
            return {tool.name for tool in listed.tools}, results

    return anyio.run(run)


@needs_sdk
def test_the_tools_route_with_evidence_and_the_route_is_logged_as_mcp(repo: Path) -> None:
    names, (route, governing, explain, bad) = session(
        repo,
        [
            ("route", {"task": "fix invoice rounding", "budget": 3}),
            ("governing", {"path": "src/billing/invoice.py"}),
            ("explain", {"task": "fix invoice rounding"}),
            ("route", {"task": "x", "budget": 0}),
        ],
    )
    assert names >= TOOLS
    assert not route.is_error
    document = route.structured_content
    assert len(document["pointers"]) == 3
    assert document["pointers"][0]["evidence"]["terms"]
    assert document["withheld"] > 0
    assert "billing.instructions.md" in document["text"]
    governed = governing.structured_content["pointers"]
    assert governed and all(p["evidence"] for p in governed)
    assert any("invoice-builder" in p["path"] for p in governed)
    assert explain.structured_content["rows"]
    assert bad.is_error  # refused by the input schema, for the model to read
    logged = shadow_lines(repo, 2)
    assert [line["source"] for line in logged] == ["mcp", "mcp"]
    assert logged[0]["task"] == "fix invoice rounding"
    target = client.target(repo, repo / "kroute.toml", os.environ)
    assert client.state(target)[0] == "running"  # the daemon it started answered


@needs_sdk
def test_catalog_lists_entries_and_why_not_explains_one(repo: Path) -> None:
    _, (catalog, why_not, unknown) = session(
        repo,
        [
            ("catalog", {"kind": "design_spec"}),
            ("why_not", {"task": "fix invoice rounding", "entry": "TW-SPEC-signing-keys"}),
            ("why_not", {"task": "fix invoice rounding", "entry": "no-such-entry"}),
        ],
    )
    entries = catalog.structured_content["entries"]
    assert entries and {e["kind"] for e in entries} == {"design_spec"}
    assert {"id", "path", "kind", "title", "summary"} <= set(entries[0])
    assert not why_not.is_error and why_not.structured_content["text"]
    assert unknown.is_error and "no entry `no-such-entry`" in unknown.content[0].text


def test_a_tool_without_its_endpoint_says_it_is_not_available(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(service.ENDPOINTS, "/v1/why-not")
    tools = toolserver.Tools(config.load(repo / "kroute.toml", repo), os.environ)
    with pytest.raises(toolserver.Unavailable, match="why_not is not available in this kroute"):
        tools.why_not("fix invoice rounding", "TW-SPEC-signing-keys")


def test_without_a_daemon_the_tools_answer_in_process_and_log_as_mcp(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_dir = tmp_path / "open-run"
    (open_dir / "kroute").mkdir(parents=True)
    (open_dir / "kroute").chmod(0o777)  # a runtime dir others may write in: refused
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(open_dir))
    tools = toolserver.Tools(config.load(repo / "kroute.toml", repo), os.environ)
    document = tools.route("rotate the webhook signing key")
    assert document["pointers"] and "text" in document
    assert [line["source"] for line in shadow_lines(repo, 1)] == ["mcp"]


def test_importing_the_cli_does_not_import_the_sdk() -> None:
    probe = "import sys, router.cli; print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types', 'pydantic')))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_without_the_extra_kroute_mcp_exits_1_and_says_how_to_install(repo: Path) -> None:
    # `None` in sys.modules makes every import of the SDK fail, as if it were not installed.
    probe = "import sys; sys.modules['mcp'] = None; from router.cli import main; main(['mcp'])"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=repo, timeout=60
    )
    assert result.returncode == 1
    assert result.stderr.strip() == MISSING


def test_install_merges_the_entry_idempotently(repo: Path) -> None:
    mcp_file = repo / ".mcp.json"
    other = {"command": "other-server", "args": []}
    mcp_file.write_text(json.dumps({"mcpServers": {"other": other}, "keep": 1}))
    dry = kroute("mcp", "install", "--dry-run", cwd=repo)
    assert dry.returncode == 0, dry.stderr
    assert '"kroute"' in dry.stdout and "dry run" in dry.stdout
    assert json.loads(mcp_file.read_text()) == {"mcpServers": {"other": other}, "keep": 1}
    assert kroute("mcp", "install", cwd=repo).returncode == 0
    written = json.loads(mcp_file.read_text())
    assert written == {
        "mcpServers": {"other": other, "kroute": {"command": "kroute", "args": ["mcp"]}},
        "keep": 1,
    }
    before = mcp_file.read_text()
    again = kroute("mcp", "install", cwd=repo)
    assert again.returncode == 0 and "already up to date" in again.stdout
    assert mcp_file.read_text() == before


def test_install_refuses_a_file_it_cannot_merge(repo: Path) -> None:
    (repo / ".mcp.json").write_text("{not json")
    result = kroute("mcp", "install", cwd=repo)
    assert result.returncode == 1
    assert "is not valid JSON" in result.stderr
    assert (repo / ".mcp.json").read_text() == "{not json"
