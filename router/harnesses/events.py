"""What a hook event asks of the router (DESIGN 11): a route request, an orientation, or
nothing, read from the harness's payload. The parts every harness shares; each harness's
module (`claude`, `codex`, `gemini`, `git`, `pipe`) says which of them its events take.

Pure and standard library only (a payload is read with `router.client.payload`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from router.client.payload import member
from router.core.text import looks_like_path, may_be_path, path_readings

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

NO_BODY: Mapping[str, Any] = MappingProxyType({})  # an Ask's default body, never to change


# A NamedTuple, not a dataclass: importing dataclasses (and inspect with it) would cost
# every hook process time (`bench.py --imports`).
class Ask(NamedTuple):
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


def text(value: Any) -> str | None:
    """Return `value` when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def common(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Return the members of an Ask every event's payload may name: session, prompt, cwd."""
    return {
        "session": text(member(payload, "session_id")),
        "prompt_id": text(member(payload, "prompt_id")),
        "cwd": text(member(payload, "cwd")),
    }


def tool_input(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return the payload's `tool_input` object ({} when it has none)."""
    found = member(payload, "tool_input")
    return found if isinstance(found, dict) else {}


def session_start(payload: Mapping[str, Any], shared: dict[str, Any]) -> Ask:
    """Return what a SessionStart asks. It runs again on `resume`, `clear` and (Claude Code)
    `compact`: a resumed session still knows the catalog (nothing); a fresh context
    (`startup`, `clear`, or a payload naming no source) gets the orientation; a compacted
    one gets it in brief, since its summary may have dropped it."""
    source = text(member(payload, "source")) or text(member(payload, "trigger"))
    reset = source in RESET_SOURCES
    if source in UNORIENTED_SOURCES:
        return Ask("skip", skip=f"session-{source}", reset=reset, **shared)
    return Ask("orientation", reset=reset, brief=source in BRIEF_SOURCES, **shared)


def task(payload: Mapping[str, Any], shared: dict[str, Any]) -> Ask:
    """Return what a task handed over whole asks (a git commit's, a pipe's): its `task` and
    `paths` routed as they are."""
    asked = member(payload, "task")
    paths = member(payload, "paths") or []
    if not isinstance(asked, str) or not (asked.strip() or paths):
        return Ask("skip", skip="empty-task", **shared)
    return Ask("route", {"task": asked, "paths": list(paths)}, **shared)


def agent_prompt(payload: Mapping[str, Any], shared: dict[str, Any]) -> Ask:
    """Return what a Codex CLI or Gemini CLI prompt asks: the prompt routed whole, a slash
    command not at all."""
    prompt = member(payload, "prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return Ask("skip", skip="empty-prompt", **shared)
    if prompt.lstrip().startswith("/"):
        return Ask("skip", skip="envelope", **shared)
    return Ask("route", {"task": prompt, "strategy": "auto"}, **shared)


def agent_event(event: str, payload: Mapping[str, Any], shared: dict[str, Any]) -> Ask:
    """Return what a Codex CLI or Gemini CLI event other than its file tool's asks: a
    SessionStart, the orientation (`session_start`); its prompt event, the prompt routed
    whole (`agent_prompt`)."""
    if event == "SessionStart":
        return session_start(payload, shared)
    return agent_prompt(payload, shared)


def files(paths: list[str], shared: dict[str, Any]) -> Ask:
    """Return what a tool naming `paths` asks: what governs them, the first in focus."""
    if not paths:
        return Ask("skip", skip="no-file", **shared)
    return Ask("route", {"task": "", "paths": paths, "focus": {"path": paths[0]}}, **shared)


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
