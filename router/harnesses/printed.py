"""What a hook prints around the router's answer (DESIGN 11): the orientation of a session's
start, a header over a route's text report, plain text or an event's hookSpecificOutput JSON.
Each harness's module says which its events print. What is left of the harness's room once
its header and wrapping are counted is the room `render.fit` lays the report out in.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from router.core.shown import flat
from router.route import render

MAX_OUTPUT = 8000  # Claude Code caps injected hook output at 10,000 characters
HEADER_PATH_ROOM = 240  # the file named in a file event's header (its end is kept)
ALWAYS_SHOWN = 20  # always-apply entries listed by name at session start; the rest counted
HEADER = "Documents of this repository's catalog that bear on this prompt (kroute):"
EDIT_HEADER = "Documents of this repository's catalog that govern {path} (kroute):"


def file_header(anchors: Sequence[str], body: Mapping[str, Any]) -> str:
    """Return the header naming the file a file event routed: the route's first anchor, else
    the first path the event named (its end kept when long)."""
    named = list(anchors) or body.get("paths") or [""]
    return EDIT_HEADER.format(
        path=render.shorten(flat(str(named[0])), HEADER_PATH_ROOM, keep_end=True)
    )


def file_json(
    event: str, report: render.Report, anchors: Sequence[str], body: Mapping[str, Any]
) -> str:
    """Return the hookSpecificOutput line of a file event's route: its report under the
    header naming the file."""
    return hook_json(event, file_header(anchors, body), report)


def agent_json(
    event: str,
    file_event: str,
    report: render.Report,
    anchors: Sequence[str],
    body: Mapping[str, Any],
) -> str:
    """Return the hookSpecificOutput line of a Codex CLI or Gemini CLI route: under the
    header naming the file for `file_event`, the prompt's header for any other event."""
    if event == file_event:
        return file_json(event, report, anchors, body)
    return hook_json(event, HEADER, report)


def oriented(event: str, status: Mapping[str, Any], *, brief: bool) -> str:
    """Return the hookSpecificOutput line of a session's orientation ("" for an empty
    catalog)."""
    report = orientation(status, brief=brief)
    return hook_json(event, "", report) if report.parts else ""


def plain(report: render.Report, header: str = "") -> str:
    """Return a text report printed as plain text, under `header` when given, fitted to
    MAX_OUTPUT."""
    if header:
        return f"{header}\n{render.fit(report, MAX_OUTPUT - len(header) - 2, len)}\n"
    return render.fit(report, MAX_OUTPUT - 1, len) + "\n"


def orientation(status: Mapping[str, Any], *, brief: bool = False) -> render.Report:
    """Return the session-start orientation as report lines: roots, entries by kind, how
    pointers come (once per session), the always-apply entries (the first ALWAYS_SHOWN, the
    rest counted), every line flattened. `brief`: its first paragraph alone. An empty
    catalog has nothing to orient on: a report of no lines."""
    entries = _one(status.get("entries", 0))
    if entries in ("0", ""):
        return render.Report()
    kinds = status.get("kinds", {})
    by_kind = ", ".join(f"{_one(count)} {_one(kind)}".rstrip() for kind, count in kinds.items())
    roots = ", ".join(_one(root) for root in status.get("roots", []))
    lines = [
        render.line(
            f"This repository keeps a knowledge catalog routed by kroute: {entries} "
            f"entries ({by_kind or 'none'}) under {roots or 'the repository'}."
        ),
        render.line(
            "Prompts get pointers to the few documents that bear on them, each with the "
            "evidence that reached it; read a pointed document before acting on what it governs."
        ),
    ]
    if brief:
        return render.Report(tuple(lines))
    lines.append(
        render.line(
            "A document is pointed to once per session: a later prompt it bears on says how "
            "many pointers were already shown, and one whose pointers were all shown gets none."
        )
    )
    always = status.get("always_apply", [])
    if always:
        lines.append(render.line("Always-apply entries:"))
        lines.extend(
            render.line(f"{_one(item['path'])}: {_one(item['summary'])}".rstrip(": "), "  ")
            for item in always[:ALWAYS_SHOWN]
        )
        if len(always) > ALWAYS_SHOWN:
            more = len(always) - ALWAYS_SHOWN
            lines.append(render.line(f"{more} more always-apply entries not listed", "  "))
    return render.Report(tuple(lines))


def _one(value: object) -> str:
    """Return a catalog or status value as flattened text."""
    return flat(str(value))


def hook_json(event: str, header: str, report: render.Report) -> str:
    """Return the hookSpecificOutput line of an event: `header` (when given) over the
    report, fitted so that the whole line, JSON escapes included, fits in MAX_OUTPUT."""
    head = header + "\n" if header else ""
    room = MAX_OUTPUT - len(_hook_document(event, head))
    return _hook_document(event, head + render.fit(report, room, _json_len))


def _hook_document(event: str, context: str) -> str:
    """Return the printed JSON line carrying `context`."""
    document = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
    return json.dumps(document, ensure_ascii=False) + "\n"


def _json_len(text: str) -> int:
    """Return how many characters `text` takes inside a JSON string."""
    return len(json.dumps(text, ensure_ascii=False)) - 2
