"""What a hook prints around the router's answer (DESIGN 11): the orientation of a session's
start, a header over a route's text report, plain text or an event's hookSpecificOutput JSON.
Each harness's module says which its events print; the room it takes is what `render.fit`
fits the report to.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from router.core.shown import flat
from router.route import render

MAX_OUTPUT = 8000  # Claude Code caps injected hook output at 10,000 characters
HEADER_PATH_ROOM = 240  # the file named in a file event's header (its end is kept)
ALWAYS_SHOWN = 20  # always-apply entries listed by name at session start; the rest counted
HEADER = "Documents of this repository's catalog that bear on this prompt (kroute):"
EDIT_HEADER = "Documents of this repository's catalog that govern {path} (kroute):"


def routed(answer: Mapping[str, Any] | None) -> str | None:
    """Return the text report of a route document that holds pointers, else None (nothing
    is printed for it)."""
    if answer is None or not answer.get("pointers"):
        return None
    return str(answer.get("text", ""))


def file_header(answer: Mapping[str, Any], body: Mapping[str, Any]) -> str:
    """Return the header naming the file a file event routed (its end kept when long)."""
    anchors = answer.get("anchors") or body.get("paths") or [""]
    return EDIT_HEADER.format(
        path=render.shorten(flat(str(anchors[0])), HEADER_PATH_ROOM, keep_end=True)
    )


def file_json(event: str, report: str, answer: Mapping[str, Any], body: Mapping[str, Any]) -> str:
    """Return the hookSpecificOutput line of a file event's route: its report under the
    header naming the file."""
    return hook_json(event, file_header(answer, body), report)


def agent_json(
    event: str, file_event: str, report: str, answer: Mapping[str, Any], body: Mapping[str, Any]
) -> str:
    """Return the hookSpecificOutput line of a Codex CLI or Gemini CLI route: under the
    header naming the file for `file_event`, the prompt's header for any other event."""
    if event == file_event:
        return file_json(event, report, answer, body)
    return hook_json(event, HEADER, report)


def oriented(event: str, status: Mapping[str, Any], *, brief: bool) -> str:
    """Return the hookSpecificOutput line of a session's orientation ("" for an empty
    catalog)."""
    text = orientation_text(status, brief=brief)
    return hook_json(event, "", text) if text else ""


def plain(report: str, header: str = "") -> str:
    """Return a text report printed as plain text, under `header` when given, clipped to
    MAX_OUTPUT."""
    if header:
        return f"{header}\n{render.fit(report, MAX_OUTPUT - len(header) - 2, len)}\n"
    return render.fit(report, MAX_OUTPUT - 1, len) + "\n"


def orientation_text(status: Mapping[str, Any], *, brief: bool = False) -> str:
    """Return the session-start orientation: roots, entries by kind, how pointers come (once
    per session), the always-apply entries (the first ALWAYS_SHOWN, the rest counted), every
    value flattened (`render` fits it to the cap). `brief`: its first paragraph alone. An
    empty catalog has nothing to orient on: ""."""
    entries = _one(status.get("entries", 0))
    if entries in ("0", ""):
        return ""
    kinds = status.get("kinds", {})
    by_kind = ", ".join(f"{_one(count)} {_one(kind)}".rstrip() for kind, count in kinds.items())
    roots = ", ".join(_one(root) for root in status.get("roots", []))
    lines = [
        f"This repository keeps a knowledge catalog routed by kroute: {entries} "
        f"entries ({by_kind or 'none'}) under {roots or 'the repository'}.",
        "Prompts get pointers to the few documents that bear on them, each with the evidence "
        "that reached it; read a pointed document before acting on what it governs.",
    ]
    if brief:
        return "\n".join(lines)
    lines.append(
        "A document is pointed to once per session: a later prompt it bears on says how many "
        "pointers were already shown, and one whose pointers were all shown gets none."
    )
    always = status.get("always_apply", [])
    if always:
        lines.append("Always-apply entries:")
        lines.extend(
            f"  {_one(item['path'])}: {_one(item['summary'])}".rstrip(": ")
            for item in always[:ALWAYS_SHOWN]
        )
        if len(always) > ALWAYS_SHOWN:
            lines.append(f"  {len(always) - ALWAYS_SHOWN} more always-apply entries not listed")
    return "\n".join(lines)


def _one(value: object) -> str:
    """Return a catalog or status value as flattened text."""
    return flat(str(value))


def hook_json(event: str, header: str, body: str) -> str:
    """Return the hookSpecificOutput line of an event: `header` (when given) over `body`,
    the body clipped so that the whole line, JSON escapes included, fits in MAX_OUTPUT."""
    head = header + "\n" if header else ""
    room = MAX_OUTPUT - len(_hook_document(event, head))
    return _hook_document(event, head + render.fit(body, room, _json_len))


def _hook_document(event: str, context: str) -> str:
    """Return the printed JSON line carrying `context`."""
    document = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
    return json.dumps(document, ensure_ascii=False) + "\n"


def _json_len(text: str) -> int:
    """Return how many characters `text` takes inside a JSON string."""
    return len(json.dumps(text, ensure_ascii=False)) - 2
