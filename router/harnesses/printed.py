"""What a hook prints around the router's answer (DESIGN 11): the orientation of a session's
start, a header over a route's text report, plain text or an event's hookSpecificOutput JSON,
all within the room a harness takes. Each harness's module says which its events print.

Pure and standard library only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from router.core.shown import EM_DASH, EVIDENCE_INDENT, flat

MAX_OUTPUT = 8000  # Claude Code caps injected hook output at 10,000 characters
POINTER_INDENT = "  "  # render.POINTER_INDENT (render imports too much for the hook client)
CUT_NOTE = POINTER_INDENT + "(more pointers cut to keep this short)"
ELLIPSIS = "\u2026"
# Room for each part of a line once a report is too long to print whole. Long summaries are
# shortened before any pointer is dropped: a shortened pointer still leads to its document.
HEAD_ROOM = 200  # a pointer line's path and title
SUMMARY_ROOM = 300  # a pointer line's summary
MARKS_ROOM = 120  # its `[unreviewed: …]` and `[superseded by …]` markers, kept after it
LINE_ROOM = 400  # any other line: an evidence line, an orientation line
HEADER_PATH_ROOM = 240  # the file named in a file event's header (its end is kept)
_MARKS = re.compile(r"(?: \[(?:unreviewed: |superseded by )[^\]]*\])+\Z")
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
    return EDIT_HEADER.format(path=_shorten(flat(str(anchors[0])), HEADER_PATH_ROOM, keep_end=True))


def oriented(event: str, status: Mapping[str, Any], *, brief: bool) -> str:
    """Return the hookSpecificOutput line of a session's orientation ("" for an empty
    catalog)."""
    text = orientation_text(status, brief=brief)
    return hook_json(event, "", text) if text else ""


def plain(report: str, header: str = "") -> str:
    """Return a text report printed as plain text, under `header` when given, clipped to
    MAX_OUTPUT."""
    if header:
        return f"{header}\n{_clip(report, MAX_OUTPUT - len(header) - 2, len)}\n"
    return _clip(report, MAX_OUTPUT - 1, len) + "\n"


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
    return _hook_document(event, head + _clip(body, room, _json_len))


def _hook_document(event: str, context: str) -> str:
    """Return the printed JSON line carrying `context`."""
    document = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
    return json.dumps(document, ensure_ascii=False) + "\n"


def _json_len(text: str) -> int:
    """Return how many characters `text` takes inside a JSON string."""
    return len(json.dumps(text, ensure_ascii=False)) - 2


def _clip(text: str, room: int, cost: Callable[[str], int]) -> str:
    """Return a report (or an orientation) that takes at most `room` as `cost` measures it.

    Every line is flattened again, its indent kept, so that nothing but a pointer line
    carries an em dash. Text that fits is returned whole. Otherwise every long line is
    shortened, and if that is not enough, whole units are kept from the start (a pointer line
    with its evidence line, or any other line) and the rest is replaced by CUT_NOTE."""
    units = _units([_clean(line) for line in text.split("\n")])
    whole = "\n".join("\n".join(unit) for unit in units)
    if cost(whole) <= room:
        return whole
    blocks = ["\n".join(_shorten_line(line) for line in unit) for unit in units]
    whole = "\n".join(blocks)
    if cost(whole) <= room:
        return whole
    kept: list[str] = []
    used = cost(CUT_NOTE)
    for block in blocks:
        used += cost(block) + cost("\n")
        if used > room:
            break
        kept.append(block)
    return "\n".join([*kept, CUT_NOTE])


def _clean(line: str) -> str:
    """Return one report line flattened: a line holding an em dash is a pointer line (its
    first em dash the separator, any other a plain dash); any other keeps its indent."""
    if EM_DASH in line:
        head, _, tail = line.partition(EM_DASH)
        return POINTER_INDENT + f"{flat(head)} {EM_DASH} {flat(tail)}".strip()
    body = flat(line)
    return line[: len(line) - len(line.lstrip(" "))] + body if body else ""


def _units(lines: list[str]) -> list[tuple[str, ...]]:
    """Return clean lines grouped into what may be cut: a pointer line with the evidence line
    under it, or any other line alone. A pointer line with no evidence line is dropped."""
    units: list[tuple[str, ...]] = []
    pointer: str | None = None
    for line in lines:
        if pointer is not None and line.startswith(EVIDENCE_INDENT) and EM_DASH not in line:
            units.append((pointer, line))
            pointer = None
            continue
        pointer = None
        if EM_DASH in line:
            pointer = line
        else:
            units.append((line,))
    return units


def _shorten_line(line: str) -> str:
    """Return a clean line with each long part shortened: a pointer line's path and title,
    its summary and its markers apart (the em dash and the markers stay); any other line
    as a whole."""
    if EM_DASH not in line:
        indent = line[: len(line) - len(line.lstrip(" "))]
        return indent + _shorten(line[len(indent) :], LINE_ROOM)
    head, _, tail = line.partition(EM_DASH)
    marks = _MARKS.search(tail)
    start = marks.start() if marks else len(tail)
    summary = _shorten(tail[:start].strip(), SUMMARY_ROOM)
    shown = f"{_shorten(head.strip(), HEAD_ROOM)} {EM_DASH} {summary}".strip()
    return POINTER_INDENT + shown + _shorten(tail[start:], MARKS_ROOM)


def _shorten(text: str, room: int, *, keep_end: bool = False) -> str:
    """Return `text`, or when it is longer than `room` characters its start (its end when
    `keep_end`) with an ellipsis where the rest was, `room` characters in all."""
    if len(text) <= room:
        return text
    if keep_end:
        return ELLIPSIS + text[len(text) - room + 1 :]
    return text[: room - 1] + ELLIPSIS
