"""Claude Code: a prompt is routed (long ones on their start and the paths they name), a
session's start gets the orientation, an edit or a read gets what governs its file; the
prompt's answer is plain text under a header, the others hookSpecificOutput JSON."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from router.client.payload import member
from router.harnesses import events, printed
from router.harnesses.settings import Settings
from router.route.render import Report

NAME = "claude"
EVENTS = ("UserPromptSubmit", "SessionStart", "PreToolUse")
FILE_TOOLS = ("Edit", "Write", "Read", "MultiEdit", "NotebookEdit")
# Prompts Claude Code or other tools wrote, not the user: routing them would inject noise.
ENVELOPES = re.compile(
    r"^\s*(<task-notification>|<cross-session-message|<command-name>|<command-message>|"
    r"<local-command-stdout>|<system-reminder>|Caveat: The messages below were generated)",
)
SETTINGS = Settings(
    NAME,
    ".claude",
    "settings.json",
    "settings.local.json",
    "settings.json",
    (
        ("UserPromptSubmit", None, "user-prompt-submit"),
        ("SessionStart", None, "session-start"),
        # every tool that writes a file (FILE_TOOLS), and Read
        ("PreToolUse", "Edit|MultiEdit|Write|NotebookEdit|Read", "pre-tool-use"),
        # which catalog documents the agent read (the shadow log's reads; prints nothing)
        ("PostToolUse", "Read", "post-tool-use"),
    ),
    5,  # seconds
    '"$CLAUDE_PROJECT_DIR"',
)


def plan(event: str, payload: Mapping[str, Any], shared: dict[str, Any]) -> events.Ask:
    """Return what a Claude Code event asks."""
    if event == "UserPromptSubmit":
        prompt = member(payload, "prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return events.Ask("skip", skip="empty-prompt", **shared)
        if ENVELOPES.match(prompt) or prompt.lstrip().startswith("/"):
            return events.Ask("skip", skip="envelope", **shared)
        return events.Ask("route", events.prompt_body(prompt), **shared)
    if event == "SessionStart":
        return events.session_start(payload, shared)
    tool_input = events.tool_input(payload)  # PreToolUse
    path = member(tool_input, "file_path") or member(tool_input, "notebook_path")
    if not isinstance(path, str) or not path:
        return events.Ask("skip", skip="no-file", **shared)
    tool = events.text(member(payload, "tool_name")) or ""
    if tool and tool not in FILE_TOOLS:
        return events.Ask("skip", skip="not-a-file-tool", **shared)
    return events.files([path], shared)


def wrap(event: str, ask: events.Ask, report: Report, anchors: Sequence[str]) -> str:
    """Return what a Claude Code event prints of a route's report."""
    if event == "PreToolUse":
        return printed.file_json(event, report, anchors, ask.body)
    return printed.plain(report, printed.HEADER)
