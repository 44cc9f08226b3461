"""Every harness by name, behind one protocol: what an event asks (`plan`) and exactly what
the hook prints for the router's answer (`wrap` for a route's report, `orient` for a
session's start). The service answers `POST /v1/hook/<harness>/<event>` with these;
`kroute install` reads their `SETTINGS`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from router.harnesses import claude, codex, events, gemini, git, pipe, printed
from router.harnesses.events import Ask
from router.harnesses.settings import Settings
from router.route.render import Report


class Harness(Protocol):
    """What a harness's module holds."""

    NAME: str
    EVENTS: tuple[str, ...]  # the events whose hooks are answered
    SETTINGS: Settings | None  # None: installed otherwise (git), or not at all (pipe)

    def plan(self, event: str, payload: Mapping[str, Any], shared: dict[str, Any]) -> Ask:
        """Return what `event` (one of EVENTS) asks, given the members every payload shares."""
        ...

    def wrap(self, event: str, ask: Ask, report: Report, anchors: Sequence[str]) -> str:
        """Return what the hook prints of a route's report (`anchors`: the paths the route
        was anchored on, which a file event's header names)."""
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


def wrap(
    harness: str, name: str, ask: Ask, report: Report | None, anchors: Sequence[str] = ()
) -> str:
    """Return exactly what the hook prints for a route's report ("" for nothing: a report
    with no pointer, or an event that asked no route): advisory context only, never a
    permission decision."""
    found = BY_NAME.get(harness)
    if report is None or ask.kind != "route" or not report.pointed or found is None:
        return ""
    return found.wrap(name, ask, report, anchors)


def orient(name: str, ask: Ask, status: Mapping[str, Any] | None) -> str:
    """Return exactly what the hook prints for a session's orientation, given the catalog's
    status ("" for nothing: an empty catalog, or an event that asked no orientation)."""
    if status is None or ask.kind != "orientation":
        return ""
    return printed.oriented(name, status, brief=ask.brief)
