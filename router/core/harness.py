"""Harness adapters (DESIGN 11): what each harness event asks, and exactly what it prints.

Pure and standard library only: the service answers `POST /v1/hook/<harness>/<event>` with
these, and `kroute-hook` reads a payload's working directory with `decode` and `member`
without importing anything heavy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from router.core.shown import EM_DASH, EVIDENCE_INDENT, flat
from router.core.text import looks_like_path, may_be_path, path_readings

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
HEADER_PATH_ROOM = 240  # the file named in the PreToolUse header (its end is kept)
_MARKS = re.compile(r"(?: \[(?:unreviewed: |superseded by )[^\]]*\])+\Z")
EVENTS = {
    "claude": ("UserPromptSubmit", "SessionStart", "PreToolUse"),
    "git": ("pre-commit",),
    "pipe": ("route",),
    "codex": ("SessionStart", "UserPromptSubmit", "PreToolUse"),
    "gemini": ("SessionStart", "BeforeAgent", "AfterTool"),
}
# Codex CLI and Gemini CLI: the event where a prompt is routed, the event naming a file, and
# the tools whose input names it. Both print JSON only (hookSpecificOutput.additionalContext).
AGENT_PROMPT = {"codex": "UserPromptSubmit", "gemini": "BeforeAgent"}
AGENT_FILE = {"codex": "PreToolUse", "gemini": "AfterTool"}
GEMINI_FILE_TOOLS = ("read_file", "write_file", "replace")
# Codex edits files with apply_patch (its own tool, or a shell command carrying the patch);
# each file it touches is named on a header line of the patch.
PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$", re.MULTILINE)
FILE_TOOLS = ("Edit", "Write", "Read", "MultiEdit", "NotebookEdit")
# A long prompt is routed on its start and the paths it names (`prompt_body`): its words past
# the start are mostly pasted material, which would drown what the user asked.
PROMPT_TASK_CHARS = 4000
PROMPT_PATHS = 64
# SessionStart sources of a session that still holds what it was told (no orientation),
# those after which its context was emptied (what it was shown is forgotten), and those after
# which it holds a summary that may have dropped the orientation (a brief one is given again).
UNORIENTED_SOURCES = ("resume",)
RESET_SOURCES = ("clear", "compact")
BRIEF_SOURCES = ("compact",)
ALWAYS_SHOWN = 20  # always-apply entries listed by name at session start; the rest counted
# Prompts Claude Code or other tools wrote, not the user: routing them would inject noise.
ENVELOPES = re.compile(
    r"^\s*(<task-notification>|<cross-session-message|<command-name>|<command-message>|"
    r"<local-command-stdout>|<system-reminder>|Caveat: The messages below were generated)",
)
HEADER = "Documents of this repository's catalog that bear on this prompt (kroute):"
EDIT_HEADER = "Documents of this repository's catalog that govern {path} (kroute):"


NO_BODY: Mapping[str, Any] = MappingProxyType({})  # a Plan's default body, never to change


# A NamedTuple, not a dataclass: importing dataclasses (and inspect with it) would cost
# every hook process time (`bench.py --imports`).
class Plan(NamedTuple):
    """What a hook event asks of the router: a route request, an orientation, or nothing
    (`skip` says why)."""

    kind: str  # "route" | "orientation" | "skip"
    body: Mapping[str, Any] = NO_BODY
    skip: str | None = None
    session: str | None = None
    prompt_id: str | None = None
    cwd: str | None = None
    # The session's context was emptied (SessionStart after `clear` or `compact`): what it
    # was shown is gone, so the pointers already injected in it may be injected again.
    reset: bool = False
    brief: bool = False  # an orientation of one paragraph (after a compaction)


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
        return Plan("route", prompt_body(prompt), **common)
    if event == "SessionStart" and harness in ("claude", *AGENT_PROMPT):
        return _session_start(payload, common)
    if (harness, event) == ("claude", "PreToolUse"):
        tool_input = member(payload, "tool_input")
        tool_input = tool_input if isinstance(tool_input, dict) else {}
        path = member(tool_input, "file_path") or member(tool_input, "notebook_path")
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
    if harness in AGENT_PROMPT:
        return _plan_agent(harness, event, payload, common)
    return Plan("skip", skip="unknown-event", **common)


def _session_start(payload: Mapping[str, Any], common: dict[str, Any]) -> Plan:
    """Return what a SessionStart asks. It runs again on `resume`, `clear` and (Claude Code)
    `compact`: a resumed session still knows the catalog (nothing); a fresh context
    (`startup`, `clear`, or a payload naming no source) gets the orientation; a compacted
    one gets it in brief, since its summary may have dropped it."""
    source = _text(member(payload, "source")) or _text(member(payload, "trigger"))
    reset = source in RESET_SOURCES
    if source in UNORIENTED_SOURCES:
        return Plan("skip", skip=f"session-{source}", reset=reset, **common)
    return Plan("orientation", reset=reset, brief=source in BRIEF_SOURCES, **common)


def _plan_agent(
    harness: str, event: str, payload: Mapping[str, Any], common: dict[str, Any]
) -> Plan:
    """Return what a Codex CLI or Gemini CLI event asks (their payloads are Claude Code's
    shape: `prompt`, `tool_name`, `tool_input`, snake_case)."""
    if event == AGENT_PROMPT[harness]:
        prompt = member(payload, "prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return Plan("skip", skip="empty-prompt", **common)
        if prompt.lstrip().startswith("/"):
            return Plan("skip", skip="envelope", **common)
        return Plan("route", {"task": prompt, "strategy": "auto"}, **common)
    if event != AGENT_FILE[harness]:
        return Plan("skip", skip="unknown-event", **common)
    tool_input = member(payload, "tool_input")
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    tool = _text(member(payload, "tool_name")) or ""
    if harness == "gemini":
        path = member(tool_input, "file_path") or member(tool_input, "absolute_path")
        if tool and tool not in GEMINI_FILE_TOOLS:
            return Plan("skip", skip="not-a-file-tool", **common)
        paths = [path] if isinstance(path, str) and path else []
    else:
        patch = member(tool_input, "command") or member(tool_input, "input") or ""
        paths = PATCH_FILE.findall(patch) if isinstance(patch, str) else []
        if not paths:
            return Plan("skip", skip="not-a-file-tool", **common)
        cwd = common.get("cwd")
        paths = [p if p.startswith("/") or not cwd else f"{cwd.rstrip('/')}/{p}" for p in paths]
    if not paths:
        return Plan("skip", skip="no-file", **common)
    return Plan("route", {"task": "", "paths": paths, "focus": {"path": paths[0]}}, **common)


def prompt_body(prompt: str) -> dict[str, Any]:
    """Return the route request of a prompt. A long one (a pasted log, a diff, a file) is
    routed on its first PROMPT_TASK_CHARS characters, which say what is asked, plus the
    file paths named anywhere in it (at most PROMPT_PATHS), which anchor what governs them."""
    if len(prompt) <= PROMPT_TASK_CHARS:
        return {"task": prompt, "strategy": "auto"}
    head, tail = prompt[:PROMPT_TASK_CHARS], prompt[PROMPT_TASK_CHARS:]
    cut = head.rfind(" ")  # keep the last word whole: a cut path would anchor nothing
    if cut > 0:
        head, tail = head[:cut], head[cut:] + tail
    named = [
        w
        for w in dict.fromkeys(tail.split())
        if may_be_path(w) and any(map(looks_like_path, path_readings(w)))
    ]
    return {"task": head, "paths": named[:PROMPT_PATHS], "strategy": "auto"}


def render(harness: str, event: str, plan_: Plan, answer: Mapping[str, Any] | None) -> str:
    """Return exactly what the hook prints for a route document or orientation ("" for
    nothing). Plain text for UserPromptSubmit and pipes; hookSpecificOutput JSON for
    SessionStart and PreToolUse (advisory context only, never a permission decision)."""
    if answer is None or plan_.kind == "skip":
        return ""
    if plan_.kind == "orientation":
        oriented = orientation_text(answer, brief=plan_.brief)
        return _hook_json(event, "", oriented) if oriented else ""
    if not answer.get("pointers"):
        return ""
    report = str(answer.get("text", ""))
    if (harness, event) == ("claude", "PreToolUse"):
        anchors = answer.get("anchors") or plan_.body.get("paths") or [""]
        path = _shorten(flat(str(anchors[0])), HEADER_PATH_ROOM, keep_end=True)
        return _hook_json(event, EDIT_HEADER.format(path=path), report)
    if harness in AGENT_FILE:  # JSON only: Gemini CLI rejects any other stdout
        if event == AGENT_FILE[harness]:
            anchors = answer.get("anchors") or plan_.body.get("paths") or [""]
            path = _shorten(flat(str(anchors[0])), HEADER_PATH_ROOM, keep_end=True)
            return _hook_json(event, EDIT_HEADER.format(path=path), report)
        return _hook_json(event, HEADER, report)
    if harness == "claude":
        return f"{HEADER}\n{_clip(report, MAX_OUTPUT - len(HEADER) - 2, len)}\n"
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


def _hook_json(event: str, header: str, body: str) -> str:
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


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
