"""Codex CLI: a prompt is routed whole, a session's start gets the orientation, a patch gets
what governs the files it touches; everything is printed as hookSpecificOutput JSON."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from router.client.payload import member
from router.harnesses import events, printed
from router.harnesses.settings import Settings
from router.route.render import Report

NAME = "codex"
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse")
PROMPT_EVENT, FILE_EVENT = "UserPromptSubmit", "PreToolUse"
# Codex edits files with apply_patch (its own tool, or a shell command carrying the patch);
# each file it touches is named on a header line of the patch.
PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$", re.MULTILINE)
SETTINGS = Settings(
    NAME,
    ".codex",
    "hooks.json",
    None,
    "hooks.json",
    (
        ("SessionStart", None, "session-start"),
        ("UserPromptSubmit", None, "user-prompt-submit"),
        # apply_patch is how Codex writes every file (`Edit` and `Write` are its matcher
        # aliases); a shell command names no file kroute can route before it runs
        ("PreToolUse", "apply_patch", "pre-tool-use"),
        # Codex reads files with shell commands: which catalog documents they read
        ("PostToolUse", "Bash", "post-tool-use"),
    ),
    5,  # seconds
    None,  # Codex sets no project-dir variable; it runs hooks in the session's directory
    trust=(
        "Codex runs a project's hooks only in a trusted project, and only hooks you "
        "trusted: start codex here and trust the project when it asks, then run /hooks "
        "and trust kroute's hooks (again after any kroute install that changes them). "
        "`kroute doctor` checks both"
    ),
)


def plan(event: str, payload: Mapping[str, Any], shared: dict[str, Any]) -> events.Ask:
    """Return what a Codex CLI event asks (its payloads are Claude Code's shape)."""
    if event != FILE_EVENT:
        return events.agent_event(event, payload, shared)
    tool_input = events.tool_input(payload)
    patch = member(tool_input, "command") or member(tool_input, "input") or ""
    paths = PATCH_FILE.findall(patch) if isinstance(patch, str) else []
    if not paths:
        return events.Ask("skip", skip="not-a-file-tool", **shared)
    cwd = shared.get("cwd")
    paths = [p if p.startswith("/") or not cwd else f"{cwd.rstrip('/')}/{p}" for p in paths]
    return events.files(paths, shared)


def wrap(event: str, ask: events.Ask, report: Report, anchors: Sequence[str]) -> str:
    """Return what a Codex CLI event prints of a route's report: JSON only."""
    return printed.agent_json(event, FILE_EVENT, report, anchors, ask.body)
