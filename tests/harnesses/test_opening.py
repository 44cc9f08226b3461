"""Which files a harness event says the agent opened: recorded payloads and shell lines."""

from __future__ import annotations

import json
from typing import Any

import pytest

from router.client.payload import decode
from router.harnesses import opening, registry
from testing.paths import FIXTURES

PAYLOADS = FIXTURES / "hook_payloads"


def payload(name: str) -> dict[str, Any]:
    found = decode((PAYLOADS / name).read_bytes().replace(b"REPO", b"/repo"))
    assert found is not None
    return found


def test_claude_read_names_the_file_it_read() -> None:
    seen = opening.opened("claude", "PostToolUse", payload("post_tool_use_read.json"))
    assert seen == opening.Opened(
        "Read", ("/repo/docs/how-to/rotate-webhook-signing-key.md",), "/repo"
    )


def test_codex_shell_reads_name_the_files_of_each_reading_command() -> None:
    seen = opening.opened("codex", "PostToolUse", payload("codex_post_tool_use_bash_read.json"))
    assert seen is not None and seen.tool == "Bash" and seen.cwd == "/repo"
    assert seen.paths == (
        "docs/how-to/rotate-webhook-signing-key.md",
        "docs/decisions/0001-postgres-event-store.md",
    )


def test_gemini_read_file_is_a_read_and_its_edits_are_not() -> None:
    seen = opening.opened("gemini", "AfterTool", payload("gemini_after_tool_read_file.json"))
    assert seen is not None and seen.tool == "read_file"
    assert seen.paths == ("/repo/docs/how-to/rotate-webhook-signing-key.md",)
    assert (
        opening.opened("gemini", "AfterTool", payload("gemini_after_tool_write_file.json")) is None
    )


@pytest.mark.parametrize(
    ("name", "event", "body"),
    [
        ("claude", "PostToolUse", {"tool_name": "Edit", "tool_input": {"file_path": "/repo/a.md"}}),
        ("claude", "PostToolUse", {"tool_name": "Read", "tool_input": {}}),
        ("claude", "PostToolUse", {"tool_name": "Read", "tool_input": "not an object"}),
        ("claude", "PreToolUse", {"tool_name": "Read", "tool_input": {"file_path": "/a.md"}}),
        ("codex", "PostToolUse", {"tool_name": "apply_patch", "tool_input": {"command": "x"}}),
        ("codex", "PostToolUse", {"tool_name": "Bash", "tool_input": {"command": "pytest -q"}}),
        ("codex", "UserPromptSubmit", {"prompt": "cat docs/a.md"}),
    ],
)
def test_events_that_read_no_file_open_nothing(name: str, event: str, body: dict[str, Any]) -> None:
    assert opening.opened(name, event, body) is None
    assert opening.opened(name, event, None) is None


def test_only_the_post_tool_events_are_answered_only_to_see_reads() -> None:
    assert opening.only_observes("claude", "PostToolUse")
    assert opening.only_observes("codex", "PostToolUse")
    assert opening.observes("gemini", "AfterTool") and not opening.only_observes(
        "gemini", "AfterTool"
    )
    assert not opening.observes("claude", "PreToolUse")
    # their endpoints are apart from the routing events of registry.EVENTS
    for name, events in opening.EVENTS.items():
        assert not set(events) & set(registry.EVENTS[name])


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("cat docs/a.md", ("docs/a.md",)),
        ("sed -n '1,200p' docs/adr/0007-queue.md", ("docs/adr/0007-queue.md",)),
        ("nl -ba docs/a.md | sed -n '1,80p'", ("docs/a.md",)),
        (
            "cat docs/a.md docs/b.md && head -n 20 docs/c.md",
            ("docs/a.md", "docs/b.md", "docs/c.md"),
        ),
        ("bash -lc \"sed -n '1,80p' docs/a.md\"", ("docs/a.md",)),
        (["bash", "-lc", "cat 'docs/with space.md'"], ("docs/with space.md",)),
        ("LC_ALL=C /usr/bin/tail -n 5 docs/a.md", ("docs/a.md",)),
        ("cat docs/a.md; cat docs/a.md", ("docs/a.md",)),
        ("grep -n retry docs/a.md", ()),
        ("rg retry docs", ()),
        ("ls docs/adr", ()),
        ("echo hi > docs/a.md", ()),
        ("cat 'docs/a.md", ()),  # an unclosed quote: nothing is guessed
        ("sh -c 'sh -c \"cat docs/a.md\"'", ()),  # one shell deep, no more
        ("x" * (opening.MAX_COMMAND + 1), ()),
        (42, ()),
    ],
)
def test_reading_commands_of_a_shell_line(command: object, paths: tuple[str, ...]) -> None:
    assert opening.read_by_shell(command) == paths


def test_a_codex_command_run_elsewhere_names_its_files_from_there() -> None:
    body = json.loads((PAYLOADS / "codex_post_tool_use_bash_read.json").read_text())
    body["tool_input"]["workdir"] = "/repo/docs"
    body["tool_input"]["command"] = "cat how-to/x.md"
    seen = opening.opened("codex", "PostToolUse", body)
    assert seen is not None and seen.cwd == "/repo/docs" and seen.paths == ("how-to/x.md",)
