"""Harness adapters (DESIGN 11): what each harness event asks, and exactly what it prints.

Pure and standard library only: the service answers `POST /v1/hook/<harness>/<event>` with
these, and `kroute-hook` reads a payload's working directory with `decode` and `member`
without importing anything heavy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MAX_OUTPUT = 8000  # Claude Code caps injected hook output at 10,000 characters
EVENTS = {
    "claude": ("UserPromptSubmit", "SessionStart", "PreToolUse"),
    "git": ("pre-commit",),
    "pipe": ("route",),
}
FILE_TOOLS = ("Edit", "Write", "Read", "MultiEdit", "NotebookEdit")
# Prompts Claude Code or other tools wrote, not the user: routing them would inject noise.
ENVELOPES = re.compile(
    r"^\s*(<task-notification>|<cross-session-message|<command-name>|<command-message>|"
    r"<local-command-stdout>|<system-reminder>|Caveat: The messages below were generated)",
)
HEADER = "Documents of this repository's catalog that bear on this prompt (kroute):"
EDIT_HEADER = "Documents of this repository's catalog that govern {path} (kroute):"


@dataclass(frozen=True, slots=True)
class Plan:
    """What a hook event asks of the router: a route request, an orientation, or nothing
    (`skip` says why)."""

    kind: str  # "route" | "orientation" | "skip"
    body: Mapping[str, Any] = field(default_factory=dict)
    skip: str | None = None
    session: str | None = None
    prompt_id: str | None = None
    cwd: str | None = None


def decode(raw: bytes | str) -> dict[str, Any] | None:
    """Return the payload object, or None when it is not a JSON object."""
    try:
        value = json.loads(raw) if raw else None
    except (ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def member(payload: Mapping[str, Any], snake: str) -> Any:
    """Return a payload member by its snake_case name or its camelCase twin."""
    if snake in payload:
        return payload[snake]
    head, *rest = snake.split("_")
    return payload.get(head + "".join(part.title() for part in rest))


def plan(harness: str, event: str, payload: Mapping[str, Any] | None) -> Plan:
    """Return what the event asks of the router. Never raises."""
    if payload is None:
        return Plan("skip", skip="bad-payload")
    common: dict[str, Any] = {
        "session": _text(member(payload, "session_id")),
        "prompt_id": _text(member(payload, "prompt_id")),
        "cwd": _text(member(payload, "cwd")),
    }
    if (harness, event) == ("claude", "UserPromptSubmit"):
        prompt = member(payload, "prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return Plan("skip", skip="empty-prompt", **common)
        if ENVELOPES.match(prompt) or prompt.lstrip().startswith("/"):
            return Plan("skip", skip="envelope", **common)
        return Plan("route", {"task": prompt, "strategy": "auto"}, **common)
    if (harness, event) == ("claude", "SessionStart"):
        return Plan("orientation", **common)
    if (harness, event) == ("claude", "PreToolUse"):
        tool_input = member(payload, "tool_input")
        path = member(tool_input, "file_path") if isinstance(tool_input, dict) else None
        if not isinstance(path, str) or not path:
            return Plan("skip", skip="no-file", **common)
        tool = _text(member(payload, "tool_name")) or ""
        if tool and tool not in FILE_TOOLS:
            return Plan("skip", skip="not-a-file-tool", **common)
        body = {"task": "", "paths": [path], "focus": {"path": path}}
        return Plan("route", body, **common)
    if (harness, event) in (("git", "pre-commit"), ("pipe", "route")):
        task = member(payload, "task")
        paths = member(payload, "paths") or []
        if not isinstance(task, str) or not (task.strip() or paths):
            return Plan("skip", skip="empty-task", **common)
        return Plan("route", {"task": task, "paths": list(paths)}, **common)
    return Plan("skip", skip="unknown-event", **common)


def render(harness: str, event: str, plan_: Plan, answer: Mapping[str, Any] | None) -> str:
    """Return exactly what the hook prints for a route document or orientation ("" for
    nothing). Plain text for UserPromptSubmit and pipes; hookSpecificOutput JSON for
    SessionStart and PreToolUse (advisory context only, never a permission decision)."""
    if answer is None or plan_.kind == "skip":
        return ""
    if plan_.kind == "orientation":
        return _hook_json(event, orientation_text(answer))
    if not answer.get("pointers"):
        return ""
    report = _clip(str(answer.get("text", "")))
    if (harness, event) == ("claude", "PreToolUse"):
        anchors = answer.get("anchors") or plan_.body.get("paths") or [""]
        path = anchors[0]
        return _hook_json(event, EDIT_HEADER.format(path=path) + "\n" + report)
    if harness == "claude":
        return HEADER + "\n" + report + "\n"
    return report + "\n"


def orientation_text(status: Mapping[str, Any]) -> str:
    """Return the session-start orientation: roots, entries by kind, always-apply entries."""
    kinds = status.get("kinds", {})
    by_kind = ", ".join(f"{count} {kind}" for kind, count in kinds.items()) or "none"
    lines = [
        f"This repository keeps a knowledge catalog routed by kroute: {status.get('entries', 0)} "
        f"entries ({by_kind}) under {', '.join(status.get('roots', [])) or 'the repository'}.",
        "Prompts get pointers to the few documents that bear on them, each with the evidence "
        "that reached it; read a pointed document before acting on what it governs.",
    ]
    always = status.get("always_apply", [])
    if always:
        lines.append("Always-apply entries:")
        lines.extend(f"  {item['path']}: {item['summary']}".rstrip(": ") for item in always[:20])
    return _clip("\n".join(lines))


def _hook_json(event: str, context: str) -> str:
    document = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
    return json.dumps(document, ensure_ascii=False) + "\n"


def _clip(text: str) -> str:
    """Return text cut at a line boundary to stay under MAX_OUTPUT characters."""
    if len(text) <= MAX_OUTPUT:
        return text
    kept = text[:MAX_OUTPUT].rsplit("\n", 1)[0]
    return kept + "\n  (more pointers cut to keep this short)"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
