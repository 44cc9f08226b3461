"""How a client speaks to the daemon (router.client.wire): the requests and replies the daemon
reads and writes, over a socket that takes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.client import wire


def test_a_request_carries_its_length_version_and_deadline() -> None:
    raw = wire.request("POST", "/v1/route", b'{"task": "x"}', "1.2.3", "hook", 0.4567)
    head, _, body = raw.partition(b"\r\n\r\n")
    assert body == b'{"task": "x"}'
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /v1/route HTTP/1.1"
    assert "Content-Length: 13" in lines
    assert f"{wire.VERSION_HEADER}: 1.2.3" in lines
    assert f"{wire.SOURCE_HEADER}: hook" in lines
    assert f"{wire.TIMEOUT_HEADER}: 0.457" in lines


def test_a_reply_gives_its_status_and_body() -> None:
    assert wire.reply(b"HTTP/1.1 409 Conflict\r\nA: b\r\n\r\n{}") == (409, b"{}")
    with pytest.raises(ValueError):
        wire.reply(b"garbage")
    with pytest.raises(ValueError):
        wire.reply(b"HTTP/1.1 abc\r\n\r\n")


def test_the_daemon_is_granted_a_little_less_than_the_client_waits() -> None:
    assert wire.granted(1.0) == pytest.approx(1.0 - wire.ANSWER_MARGIN)
    assert wire.granted(0.2) == pytest.approx(0.18)  # at most a tenth of a short wait
    assert wire.granted(0.0) == 0.001


def test_receive_reads_until_the_daemon_closes_and_no_longer_than_the_deadline() -> None:
    import socket
    import time

    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 100_000)
        theirs.shutdown(socket.SHUT_WR)
        assert (
            wire.receive(ours, time.monotonic() + 5) == b"HTTP/1.1 200 OK\r\n\r\n" + b"x" * 100_000
        )
    ours, theirs = socket.socketpair()
    with ours, theirs:  # the peer never closes: the deadline ends it
        began = time.monotonic()
        with pytest.raises(TimeoutError):
            wire.receive(ours, began + 0.2)
        assert time.monotonic() - began < 2


def test_connect_to_a_socket_nobody_serves_fails_at_once(tmp_path: Path) -> None:
    import socket
    import time

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        with pytest.raises(OSError) as failure:
            wire.connect(sock, str(tmp_path / "none.sock"), time.monotonic() + 5)
        assert not isinstance(failure.value, TimeoutError)
