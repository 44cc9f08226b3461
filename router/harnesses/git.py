"""git's pre-commit hook: the staged paths (and the commit's task, when there is one) routed,
the answer printed as plain text. Installed as a git hook, not through settings (`SETTINGS`
is None; `router.integrations.install.plan_git`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from router.harnesses import events, printed

NAME = "git"
EVENTS = ("pre-commit",)
SETTINGS = None


def plan(event: str, payload: Mapping[str, Any], shared: dict[str, Any]) -> events.Ask:
    """Return what a pre-commit asks."""
    if event == "pre-commit":
        return events.task(payload, shared)
    return events.Ask("skip", skip="unknown-event", **shared)


def wrap(event: str, ask: events.Ask, report: str, answer: Mapping[str, Any]) -> str:
    """Return what a pre-commit prints of a route's text report: the report alone."""
    return printed.plain(report)
