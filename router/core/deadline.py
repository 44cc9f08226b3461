"""Stopping a route part way: a request's deadline, as the core sees it.

The core reads no clock. An edge that gives a request a deadline (the daemon's server: the
client's remaining time, or the client hanging up) passes a `Stop`, a callable saying
whether the request should stop now; the core asks it between the steps of a route and at
coarse intervals inside the long ones (per scoring term, per trigger, per named path), never
per posting. A route it stops answers silence with reason `deadline`.
"""

from __future__ import annotations

from collections.abc import Callable

Stop = Callable[[], bool]  # True: stop now


class AbandonedError(Exception):
    """A route was stopped before it finished: its `Stop` said so."""


def check(stop: Stop | None) -> None:
    """Return when there is no stop or it says to go on. Raises AbandonedError otherwise."""
    if stop is not None and stop():
        raise AbandonedError
