"""Every harness by name, behind one protocol: what an event asks (`plan`) and exactly what
the hook prints for the router's answer (`wrap`). The service answers
`POST /v1/hook/<harness>/<event>` with these; `kroute install` reads their `SETTINGS`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from router.harnesses import claude, codex, events, gemini, git, pipe, printed
from router.harnesses.events import Ask
from router.harnesses.settings import Settings


class Harness(Protocol):
    """What a harness's module holds."""

    NAME: str
    EVENTS: tuple[str, ...]  # the events whose hooks are answered
    SETTINGS: Settings | None  # None: installed otherwise (git), or not at all (pipe)

    def plan(self, event: str, payload: Mapping[str, Any], shared: dict[str, Any]) -> Ask:
        """Return what `event` (one of EVENTS) asks, given the members every payload shares."""
        ...

    def wrap(self, event: str, ask: Ask, report: str, answer: Mapping[str, Any]) -> str:
        """Return what the hook prints of a route's text report."""
        ...


BY_NAME: dict[str, Harness] = {h.NAME: h for h in (claude, git, pipe, codex, gemini)}
EVENTS = {name: harness.EVENTS for name, harness in BY_NAME.items()}
# the agent harnesses `kroute install <name>` writes settings for
AGENTS = {name: h.SETTINGS for name, h in BY_NAME.items() if h.SETTINGS is not None}


def plan(harness: str, name: str, payload: Mapping[str, Any] | None) -> Ask:
    """Return what the event `name` of `harness` asks of the router. Never raises."""
    if payload is None:
        return Ask("skip", skip="bad-payload")
    shared = events.common(payload)
    found = BY_NAME.get(harness)
    if found is None or name not in found.EVENTS:
        return Ask("skip", skip="unknown-event", **shared)
    return found.plan(name, payload, shared)


def wrap(harness: str, name: str, ask: Ask, answer: Mapping[str, Any] | None) -> str:
    """Return exactly what the hook prints for a route document or orientation ("" for
    nothing): advisory context only, never a permission decision."""
    if answer is None or ask.kind == "skip":
        return ""
    if ask.kind == "orientation":
        return printed.oriented(name, answer, brief=ask.brief)
    report = printed.routed(answer)
    found = BY_NAME.get(harness)
    if report is None or found is None:
        return ""
    return found.wrap(name, ask, report, answer)
