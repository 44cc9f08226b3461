"""A request's deadline on the daemon's side (router.serve.grant): the client's grant, its
clock, and whether the client is still there, on real connected sockets."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from router.serve import grant


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    server, client = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    server.settimeout(5.0)  # as the server's connections are: a timeout, not blocking
    yield server, client
    server.close()
    client.close()


@pytest.mark.parametrize(
    ("value", "seconds"),
    [(None, None), ("", None), ("  ", None), ("0.45", 0.45), ("2", 2.0), ("1e9", 3600.0)],
)
def test_a_grant_is_read_as_seconds(value: str | None, seconds: float | None) -> None:
    assert grant.budget(value) == seconds


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon", "0.4s"])
def test_a_grant_that_is_no_number_of_seconds_above_zero_is_refused(value: str) -> None:
    with pytest.raises(ValueError):
        grant.budget(value)


def test_the_deadline_counts_from_the_arrival_and_once_passed_stays_passed() -> None:
    clock = Clock()
    watch = grant.Watch(None, clock.now, 0.5, clock)
    clock.now += 0.49
    assert not watch()
    clock.now += 0.02
    assert watch()
    clock.now -= 1.0  # whatever the clock says next, a stopped request stays stopped
    assert watch()
    assert not grant.Watch(None, clock.now, None, clock)()  # no grant, no connection: never


def test_a_client_that_hangs_up_stops_its_request(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    server, client = pair
    clock = Clock()
    watch = grant.Watch(server, clock.now, None, clock)
    clock.now += grant.PEEK_AFTER
    assert not watch()  # still there
    client.close()
    assert not watch()  # asked again only PEEK_EVERY later
    clock.now += grant.PEEK_EVERY
    assert watch()


def test_a_quick_request_never_asks_its_socket(pair: tuple[socket.socket, socket.socket]) -> None:
    server, client = pair
    client.close()
    clock = Clock()
    watch = grant.Watch(server, clock.now, None, clock)
    clock.now += grant.PEEK_AFTER / 2
    assert not watch()  # gone, but a route this young is not worth a system call


def test_more_bytes_from_the_client_are_no_hang_up(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    server, client = pair
    client.sendall(b"GET /v1/status HTTP/1.1\r\n")  # a next request on the same connection
    assert not grant.hung_up(server)
    assert server.recv(64).startswith(b"GET")  # the peek left it to be read
    client.shutdown(socket.SHUT_RDWR)
    assert grant.hung_up(server)


def test_the_current_stop_is_the_one_held_by_this_thread() -> None:
    seen: list[object] = []

    def stop() -> bool:
        return True

    assert grant.current() is None
    with grant.answering(stop):
        assert grant.current() is stop
        other = threading.Thread(target=lambda: seen.append(grant.current()))
        other.start()
        other.join()
    assert grant.current() is None
    assert seen == [None]  # another thread answers another request
