"""A pipe (`hooks/route`, or `POST /v1/hook/pipe/route`): a task and paths in, the answer out
as plain text. Nothing to install (`SETTINGS` is None). git's pre-commit hook pipes its task
the same way (`router.harnesses.git` takes `plan` and `wrap` from here)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from router.harnesses import events, printed
from router.route.render import Report

NAME = "pipe"
EVENTS = ("route",)
SETTINGS = None


def plan(event: str, payload: Mapping[str, Any], shared: dict[str, Any]) -> events.Ask:
    """Return what a piped task asks: its `task` and `paths` routed as they are."""
    return events.task(payload, shared)


def wrap(event: str, ask: events.Ask, report: Report, anchors: Sequence[str]) -> str:
    """Return what a pipe prints of a route's report: the report alone."""
    return printed.plain(report)
