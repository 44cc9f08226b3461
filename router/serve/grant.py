"""A request's deadline, as the daemon reads it: the time its client grants it and whether
the client is still there.

A client sends the seconds it will wait in `wire.TIMEOUT_HEADER`; the server reads them
against this process's clock when the request arrives, makes a `Watch` of them and of the
connection, and holds it as the `current` stop while the request is answered (the daemon's
dispatch carries no more than the request itself). The routing endpoints hand it to the
engine, which asks it between the steps of a route (`router.core.deadline`): a request whose
time ran out while it waited for the lock, or whose client hung up, costs nothing more.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import select
import socket
import time
from collections.abc import Callable, Iterator

from router.core.deadline import Stop

MAX_BUDGET = 3600.0  # seconds: a larger grant is read as this (a bound, not an error)
# A request is first asked whether its client hung up once it has run this long (seconds):
# a quick route never pays for the question, a slow one learns within a few milliseconds.
PEEK_AFTER = 0.005
PEEK_EVERY = 0.002  # seconds between two questions (a poll and a peek: microseconds each)

_CURRENT: contextvars.ContextVar[Stop | None] = contextvars.ContextVar(
    "kroute_request_stop", default=None
)


def budget(value: str | None) -> float | None:
    """Return the seconds a client grants its request (the value of its timeout header, at
    most MAX_BUDGET), or None when it sends none. Raises ValueError for a value that is not
    a number of seconds above 0."""
    if value is None or not value.strip():
        return None
    seconds = float(value)
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(value)
    return min(seconds, MAX_BUDGET)


class Watch:
    """Whether the request on one connection should stop (a `deadline.Stop`): its deadline
    has passed, or its client has hung up. Once it says stop, it always does."""

    __slots__ = ("clock", "connection", "deadline", "peek_at", "stopped")

    def __init__(
        self,
        connection: socket.socket | None,
        began: float,
        granted: float | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.connection = connection
        self.deadline = None if granted is None else began + granted
        self.peek_at = began + PEEK_AFTER
        self.clock = clock
        self.stopped = False

    def __call__(self) -> bool:
        """Return True when the request should stop now. Reads the clock; asks the socket
        at most every PEEK_EVERY seconds, from PEEK_AFTER seconds after the request began."""
        if self.stopped:
            return True
        now = self.clock()
        if self.deadline is not None and now >= self.deadline:
            self.stopped = True
        elif self.connection is not None and now >= self.peek_at:
            self.peek_at = now + PEEK_EVERY
            self.stopped = hung_up(self.connection)
        return self.stopped


def hung_up(connection: socket.socket) -> bool:
    """Return whether the peer of a connection has closed it or reset it: the end of its
    stream is waiting to be read. False while it is open, also when it has sent more (a next
    request on the same connection). Never raises."""
    try:
        poller = select.poll()
        poller.register(connection, select.POLLIN)
        if not poller.poll(0):
            return False
        return connection.recv(1, socket.MSG_PEEK) == b""
    except (BlockingIOError, TimeoutError):  # nothing to read after all: still open
        return False
    except (OSError, ValueError):  # reset, or closed under us: nobody reads the answer
        return True


def current() -> Stop | None:
    """Return the stop of the request this thread is answering (None: answer it whole)."""
    return _CURRENT.get()


@contextlib.contextmanager
def answering(stop: Stop | None) -> Iterator[None]:
    """Hold `stop` as the current request's while the block runs."""
    token = _CURRENT.set(stop)
    try:
        yield
    finally:
        _CURRENT.reset(token)
