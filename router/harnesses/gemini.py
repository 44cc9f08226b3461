"""Gemini CLI: a prompt is routed whole, a session's start gets the orientation, a file tool's
result gets what governs its file; everything is printed as hookSpecificOutput JSON (Gemini
CLI rejects any other stdout)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from router.client.payload import member
from router.harnesses import events, printed
from router.harnesses.settings import Settings
from router.route.render import Report

NAME = "gemini"
EVENTS = ("SessionStart", "BeforeAgent", "AfterTool")
PROMPT_EVENT, FILE_EVENT = "BeforeAgent", "AfterTool"
FILE_TOOLS = ("read_file", "write_file", "replace")
SETTINGS = Settings(
    NAME,
    ".gemini",
    "settings.json",
    None,
    "settings.json",
    (
        ("SessionStart", None, "session-start"),
        ("BeforeAgent", None, "before-agent"),
        # BeforeTool cannot add context; AfterTool appends it to the tool's result
        ("AfterTool", "read_file|write_file|replace", "after-tool"),
    ),
    5000,  # milliseconds
    '"$GEMINI_PROJECT_DIR"',
    per_second=1000,
    trust=(
        "Gemini CLI runs a project's hooks only in a trusted folder: start gemini here "
        "and trust the folder when it asks (or run /permissions). `kroute doctor` "
        "checks it"
    ),
)


def plan(event: str, payload: Mapping[str, Any], shared: dict[str, Any]) -> events.Ask:
    """Return what a Gemini CLI event asks (its payloads are Claude Code's shape)."""
    if event != FILE_EVENT:
        return events.agent_event(event, payload, shared)
    tool_input = events.tool_input(payload)
    tool = events.text(member(payload, "tool_name")) or ""
    path = member(tool_input, "file_path") or member(tool_input, "absolute_path")
    if tool and tool not in FILE_TOOLS:
        return events.Ask("skip", skip="not-a-file-tool", **shared)
    return events.files([path] if isinstance(path, str) and path else [], shared)


def wrap(event: str, ask: events.Ask, report: Report, anchors: Sequence[str]) -> str:
    """Return what a Gemini CLI event prints of a route's report: JSON only."""
    return printed.agent_json(event, FILE_EVENT, report, anchors, ask.body)
