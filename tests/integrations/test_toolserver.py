"""`kroute mcp`: the MCP tool server, spoken to by the SDK's own client over real stdio."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from router import client
from router.base.errors import ToolUnavailableError
from router.catalog import config
from router.integrations import toolserver
from router.serve import service
from testing.mcpsession import needs_sdk, session
from testing.paths import DEMO
from testing.process import kroute
from testing.records import shadow_lines

TOOLS = {"route", "explain", "governing", "catalog", "why_not"}
MISSING = (
    "Error: the MCP server needs the mcp extra. Install it: pip install 'knowledge-router[mcp]'."
)


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO).resolve()


def said(result: Any) -> str:
    """Return a tool result's text (its one content block)."""
    (block,) = result.content
    return str(block.text)


@pytest.mark.process
@needs_sdk
def test_the_tools_route_with_evidence_and_the_route_is_logged_as_mcp(repo: Path) -> None:
    listed, (route, governing, explain, bad) = session(
        repo,
        [
            ("route", {"task": "fix invoice rounding", "budget": 3}),
            ("governing", {"path": "src/billing/invoice.py"}),
            ("explain", {"task": "fix invoice rounding"}),
            ("route", {"task": "x", "budget": 0}),
        ],
    )
    assert {tool.name for tool in listed} >= TOOLS
    assert not route.is_error
    document = route.structured_content
    assert len(document["pointers"]) == 3
    assert document["pointers"][0]["evidence"]["terms"]
    assert document["withheld"] > 0
    assert "billing.instructions.md" in said(route)
    governed = governing.structured_content["pointers"]
    assert governed and all(p["evidence"] for p in governed)
    assert any("invoice-builder" in p["path"] for p in governed)
    assert explain.structured_content["rows"]
    assert said(explain).startswith(f"{len(explain.structured_content['rows'])} scored rows")
    assert bad.is_error  # refused for the model to read
    logged = shadow_lines(repo, 2)
    assert [line["source"] for line in logged] == ["mcp", "mcp"]
    assert logged[0]["task"] == "fix invoice rounding"
    target = client.target(repo, repo / "kroute.toml", os.environ)
    assert client.state(target)[0] == "running"  # the daemon it started answered


@pytest.mark.process
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
    assert not why_not.is_error and "TW-SPEC-signing-keys" in said(why_not)
    assert unknown.is_error and said(unknown).startswith("Error: no entry `no-such-entry`")


@pytest.mark.process
@needs_sdk
def test_the_result_text_is_the_text_form_with_the_data_beside_it(repo: Path) -> None:
    _, (route, governing, catalog) = session(
        repo,
        [
            ("route", {"task": "retry a failed webhook delivery"}),
            ("governing", {"path": "src/billing/invoice.py"}),
            ("catalog", {"kind": "skill"}),
        ],
    )
    text = said(route)
    document = route.structured_content
    pointer_lines = [line for line in text.splitlines() if "\u2014" in line]
    assert [line.split()[0] for line in pointer_lines] == [p["path"] for p in document["pointers"]]
    assert text.splitlines()[-1] == f"  withheld {document['withheld']} more"
    assert "text" not in document  # the text is the result's: not repeated beside it
    # a fraction of the indented JSON that was the result's text before
    assert len(text) * 3 < len(json.dumps(document, indent=2))
    assert said(governing).startswith("  ") and "governs src/billing/invoice.py" in said(governing)
    listing = said(catalog).splitlines()
    assert listing[0] == f"{len(catalog.structured_content['entries'])} entries of kind skill:"
    assert all(" [skill] " in line for line in listing[1:])


@pytest.mark.process
@needs_sdk
def test_bad_calls_say_what_to_send_instead(repo: Path) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("route", {"task": "x", "budget": 0}),
        ("route", {"task": "x", "bogus": 1}),
        ("route", {}),
        ("route", {"task": "x", "paths": "src/a.py"}),
        ("catalog", {"kind": "nope"}),
        ("route", {"task": "word " * 500_000}),
        ("nothing", {}),
    ]
    _, results = session(repo, calls)
    assert all(result.is_error for result in results)
    texts = [said(result) for result in results]
    assert texts[:5] == [
        "Error: `budget` of `route` is 0. Send a whole number of at least 1: the most pointers "
        "to offer, 5 by default.",
        "Error: `route` takes no argument `bogus`. Its arguments are `task`, `paths`, `budget`.",
        "Error: `route` needs `task`: the task, in the words the user gave it. Call it again "
        "with `task`.",
        'Error: `paths` of `route` is "src/a.py". Send a list of text, such as ["src/app.py"]: '
        "files the task is about, relative to the repository.",
        "Error: the catalog has no entry of kind `nope`. Use one of its kinds: annex, decision, "
        "design_spec, evaluation, how_to, instruction, obligation, requirement, rule, skill; or "
        "leave `kind` out for every entry.",
    ]
    assert texts[5].startswith("Error: the request is 2.4 MB; kroute takes at most 1 MiB.")
    assert "Send the request itself as `task`" in texts[5]
    assert texts[6] == (
        "Error: there is no tool `nothing`. Call one of route, explain, governing, catalog, "
        "why_not."
    )
    for text in texts:  # one sentence for the model, no validator's dump
        assert "\n" not in text and "pydantic" not in text and "http" not in text


@pytest.mark.process
@needs_sdk
def test_governing_says_which_file_nothing_governs(repo: Path) -> None:
    _, (ungoverned, outside) = session(
        repo, [("governing", {"path": "README.md"}), ("governing", {"path": "/etc/x.go"})]
    )
    assert said(ungoverned) == "No catalog document governs README.md."
    assert said(outside) == (
        f"/etc/x.go is outside the repository ({repo}), so no catalog document governs it."
    )
    assert outside.structured_content["pointers"] == []
    assert ungoverned.structured_content["silence"] == {
        "reason": "not_governed",
        "says": "No catalog document governs README.md.",
    }


@pytest.mark.process
@needs_sdk
def test_the_descriptions_read_as_sentences(repo: Path) -> None:
    listed, _ = session(repo, [])
    for tool in listed:
        texts = [tool.description] + [
            p["description"] for p in tool.input_schema["properties"].values()
        ]
        for text in texts:
            assert "\n" not in text and "  " not in text, (tool.name, text)
            assert text[0].isupper() and text.endswith("."), (tool.name, text)
        assert tool.input_schema["additionalProperties"] is False
        assert tool.annotations.read_only_hint is True
    (explain,) = [tool for tool in listed if tool.name == "explain"]
    assert "five tiers" in explain.description  # as the record has them (match_breakdown)


@pytest.mark.process
@needs_sdk
def test_initialize_waits_on_no_engine_import(repo: Path, tmp_path: Path) -> None:
    # The server's process says at exit which heavy modules it imported: after initialize
    # and tools/list, none of the engine's (they load on the first tool answered in process).
    probe = (
        "import atexit, sys\n"
        "heavy = ('numpy', 'router.runtime.engine', 'router.serve.service', 'yaml')\n"
        "atexit.register(lambda: print('LOADED', [m for m in heavy if m in sys.modules],"
        " file=sys.stderr))\n"
        "from router.cli import main\n"
        "main(['mcp'])\n"
    )
    log = tmp_path / "server.log"
    with log.open("w") as errlog:
        listed, _ = session(repo, [], args=("-c", probe), errlog=errlog)
    assert {tool.name for tool in listed} == TOOLS
    assert "LOADED []" in log.read_text()


def test_the_request_cap_is_the_daemons() -> None:
    from router.serve import server

    assert toolserver.MAX_BODY == server.BODY_CAP


def test_a_tool_without_its_endpoint_says_it_is_not_available(
    repo: Path, short_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_dir = short_tmp / "open-run"  # no daemon can be had: the tool answers in process
    (open_dir / "kroute").mkdir(parents=True)
    (open_dir / "kroute").chmod(0o777)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(open_dir))
    monkeypatch.delitem(service.ENDPOINTS, "/v1/why-not")
    tools = toolserver.Tools(config.load(repo / "kroute.toml", repo), os.environ)
    with pytest.raises(ToolUnavailableError, match="why_not is not available in this kroute"):
        tools.why_not("fix invoice rounding", "TW-SPEC-signing-keys")


def test_without_a_daemon_the_tools_answer_in_process_and_log_as_mcp(
    repo: Path, short_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_dir = short_tmp / "open-run"
    (open_dir / "kroute").mkdir(parents=True)
    (open_dir / "kroute").chmod(0o777)  # a runtime dir others may write in: refused
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(open_dir))
    tools = toolserver.Tools(config.load(repo / "kroute.toml", repo), os.environ)
    document = tools.route("rotate the webhook signing key")
    assert document["pointers"] and "text" in document
    assert [line["source"] for line in shadow_lines(repo, 1)] == ["mcp"]


@pytest.mark.process
def test_importing_the_cli_does_not_import_the_sdk() -> None:
    probe = "import sys, router.cli; print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types', 'pydantic')))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.process
def test_without_the_extra_kroute_mcp_exits_1_and_says_how_to_install(repo: Path) -> None:
    # `None` in sys.modules makes every import of the SDK fail, as if it were not installed.
    probe = "import sys; sys.modules['mcp'] = None; from router.cli import main; main(['mcp'])"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=repo, timeout=60
    )
    assert result.returncode == 1
    assert result.stderr.strip() == MISSING


@pytest.mark.process
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


@pytest.mark.process
def test_uninstall_takes_out_exactly_what_install_put_in(repo: Path) -> None:
    assert kroute("mcp", "install", cwd=repo).returncode == 0
    removed = kroute("mcp", "uninstall", cwd=repo)
    assert removed.returncode == 0 and "removed" in removed.stdout
    assert not (repo / ".mcp.json").exists()  # install made it: it goes
    mcp_file = repo / ".mcp.json"
    other = {"mcpServers": {"other": {"command": "x", "args": []}}, "keep": 1}
    mcp_file.write_text(json.dumps(other, indent=2) + "\n")
    before = mcp_file.read_text()
    assert kroute("mcp", "install", cwd=repo).returncode == 0
    dry = kroute("mcp", "uninstall", "--dry-run", cwd=repo)
    assert "dry run" in dry.stdout and '"kroute"' in mcp_file.read_text()
    assert kroute("mcp", "uninstall", cwd=repo).returncode == 0
    assert json.loads(mcp_file.read_text()) == other
    assert mcp_file.read_text() == before
    again = kroute("mcp", "uninstall", cwd=repo)
    assert again.returncode == 0 and "already up to date" in again.stdout


@pytest.mark.process
def test_install_refuses_a_file_it_cannot_merge(repo: Path) -> None:
    (repo / ".mcp.json").write_text("{not json")
    result = kroute("mcp", "install", cwd=repo)
    assert result.returncode == 1
    assert "is not valid JSON" in result.stderr
    assert (repo / ".mcp.json").read_text() == "{not json"
