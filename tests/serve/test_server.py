"""The HTTP transport (router.serve.server) on a real Unix socket, with a stub service; and
request deadlines end to end, on a real daemon."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from router import client
from router.base.errors import DaemonError
from router.logbook import shadow
from router.serve import grant, server
from testing.paths import FIXTURES
from testing.process import kroute
from testing.wait import eventually


class Stub:
    """A service that answers with what it was asked, and whether its stop says stop."""

    version = "0.0.0-test"

    def dispatch(
        self, method: str, path: str, body: bytes, source: str = "socket"
    ) -> tuple[int, Any]:
        stop = grant.current()
        return 200, {"method": method, "path": path, "stopped": None if stop is None else stop()}

    def after(self) -> None:
        pass


@pytest.fixture
def address(tmp_path: Path) -> Iterator[str]:
    path = str(tmp_path / "s.sock")
    httpd = server.Server(path, Stub())
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield path
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def exchange(address: str, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(address)
        sock.sendall(raw)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        (b"GET / HTTP/one.one\r\n\r\n", 400, "bad_http"),
        (b"GET /" + b"x" * 70_000 + b" HTTP/1.1\r\n\r\n", 414, "uri_too_long"),
        (b"GET / HTTP/1.1\r\nX-Big: " + b"y" * 70_000 + b"\r\n\r\n", 431, "headers_too_large"),
        (b"BREW /v1/route HTTP/1.1\r\nHost: k\r\n\r\n", 501, "not_implemented"),
    ],
)
def test_framing_errors_are_json_like_every_other_error(
    address: str, raw: bytes, status: int, code: str
) -> None:
    got, headers, body = exchange(address, raw)
    assert got == status
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body)["error"]["code"] == code


def test_a_request_reaches_the_service(address: str) -> None:
    got, _, body = exchange(address, b"GET /v1/status HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert got == 200
    assert json.loads(body) == {"method": "GET", "path": "/v1/status", "stopped": False}


def test_the_clients_timeout_becomes_the_requests_deadline(address: str) -> None:
    head = b"GET /v1/status HTTP/1.1\r\nConnection: close\r\nX-Kroute-Timeout: %s\r\n\r\n"
    _, _, body = exchange(address, head % b"30")
    assert json.loads(body)["stopped"] is False
    _, _, body = exchange(address, head % b"0.000000001")  # spent before the service runs
    assert json.loads(body)["stopped"] is True
    got, _, body = exchange(address, head % b"soon")
    assert got == 400 and json.loads(body)["error"]["code"] == "bad_request"


# -- deadlines on a real daemon --------------------------------------------------------------

SLOW = FIXTURES / "catalogs" / "slow-triggers"
# 1,000 words in lines of 50: each of the catalog's 600 intent patterns backtracks over a
# line of it for milliseconds, so routing it whole takes seconds (see the fixture's
# kroute.toml); a short task is routed in a few milliseconds.
LONG_TASK = "\n".join(
    " ".join(["alpha", "beta", "gamma", "delta", "epsilon"] * 10) for _ in range(20)
)
SHORT_TASK = "berth007 tide table"
# Long enough for the daemon to have read the long route and taken the lock for it.
UNDER_WAY = 0.3
# A short route sent once the long one's client has gone answers well within this, where the
# long route left running would hold it for seconds.
ABANDONED_WITHIN = 1.0


@pytest.fixture
def slow(copy_tree: Callable[[Path], Path]) -> client.Target:
    repo = copy_tree(SLOW).resolve()
    assert kroute("start", cwd=repo).returncode == 0
    return client.target(repo, repo / "kroute.toml", os.environ)


def route_request(task: str, timeout: float | None = None) -> bytes:
    body = json.dumps({"task": task}).encode()
    grant = f"X-Kroute-Timeout: {timeout}\r\n" if timeout is not None else ""
    head = (
        f"POST /v1/route HTTP/1.1\r\nConnection: close\r\nContent-Length: {len(body)}\r\n"
        f"{grant}\r\n"
    )
    return head.encode() + body


def routed(target: client.Target, task: str, timeout: float | None = None) -> dict[str, Any]:
    status, _, body = exchange(str(target.places.socket), route_request(task, timeout))
    assert status == 200
    document: dict[str, Any] = json.loads(body)
    return document


def silence_reasons(target: client.Target, count: int) -> dict[str, str | None]:
    """Return task -> the silence reason of its route in the shadow log, once it holds
    `count` (the daemon writes a route's line just after its answer; two routes that end
    together may be written in either order)."""
    directory = shadow.log_dir(Path(os.environ["KROUTE_HOME"]), target.places.key)
    until = time.monotonic() + 10
    while True:
        lines = list(shadow.read(directory)) if directory.exists() else []
        if len(lines) >= count or time.monotonic() > until:
            return {line["task"]: (line.get("silence") or {}).get("reason") for line in lines}
        time.sleep(0.02)


@pytest.mark.process
def test_a_route_abandoned_by_its_client_stops_and_a_short_route_answers_at_once(
    slow: client.Target,
) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as abandoned:
        abandoned.connect(str(slow.places.socket))
        abandoned.sendall(route_request(LONG_TASK))  # no deadline: only its going stops it
        time.sleep(UNDER_WAY)
    began = time.monotonic()
    short = routed(slow, SHORT_TASK)
    waited = time.monotonic() - began
    assert short["pointers"][0]["id"] == "tide-skill-007"
    assert waited < ABANDONED_WITHIN, waited
    # the long route stopped: routed whole, it would have been silent for reaching nothing
    assert silence_reasons(slow, 2) == {LONG_TASK: "deadline", SHORT_TASK: None}


@pytest.mark.process
def test_a_route_stops_at_its_clients_deadline_and_says_so(slow: client.Target) -> None:
    document = routed(slow, LONG_TASK, timeout=0.2)
    assert (document["status"], document["pointers"]) == ("no_match", [])
    assert document["silence"]["reason"] == "deadline"
    assert document["terms"] == ["alpha", "beta", "gamma", "delta", "epsilon"]


@pytest.mark.process
def test_a_route_is_answered_while_another_is_under_way(slow: client.Target) -> None:
    """Routes take no lock: one is not held behind another (issue 33)."""
    answers: dict[str, dict[str, Any]] = {}
    long = threading.Thread(target=lambda: answers.update(long=routed(slow, LONG_TASK, 3.0)))
    long.start()
    time.sleep(UNDER_WAY)
    short = routed(slow, SHORT_TASK, timeout=5)
    under_way = long.is_alive()
    long.join()
    assert short["pointers"][0]["id"] == "tide-skill-007"
    assert under_way  # answered before the long route ended
    # the long one ends either way: at its deadline, or whole on a quick machine (it reaches
    # nothing), never held behind the short one
    assert answers["long"]["silence"]["reason"] in {"deadline", "no_document_reached"}


# -- slow connections -------------------------------------------------------------------------

# How long a test trickles bytes before it concludes the daemon would hold the connection
# forever: well past REQUEST_TIMEOUT, however loaded the machine.
TRICKLE_FOR = 6 * server.REQUEST_TIMEOUT
TRICKLE_EVERY = 0.5  # seconds between two bytes of a trickling client (under IDLE_TIMEOUT)


@pytest.fixture
def demo(copy_tree: Callable[[Path], Path]) -> client.Target:
    repo = copy_tree(FIXTURES / "catalogs" / "demo").resolve()
    assert kroute("start", cwd=repo).returncode == 0
    return client.target(repo, repo / "kroute.toml", os.environ)


def daemon_threads(target: client.Target) -> int:
    daemon = client.read_status(target)
    assert daemon is not None
    pid = daemon["pid"]
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("Threads:")).split()[1])


@pytest.mark.process
def test_a_client_that_trickles_its_request_is_dropped(demo: client.Target) -> None:
    request = route_request("rotate the webhook signing key")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(demo.places.socket))
        sock.settimeout(TRICKLE_EVERY)
        dropped = False
        give_up = time.monotonic() + TRICKLE_FOR
        for byte in request[:-1]:  # never the whole request
            if time.monotonic() > give_up:
                break
            try:
                sock.sendall(bytes([byte]))
                dropped = sock.recv(1) == b""
            except TimeoutError:
                continue  # still held: send the next byte
            except OSError:
                dropped = True
            if dropped:
                break
        assert dropped
    assert routed(demo, "rotate the webhook signing key")["pointers"]


@pytest.mark.process
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="no /proc to count threads")
def test_connections_that_send_nothing_take_bounded_threads_and_routes_are_answered(
    demo: client.Target,
) -> None:
    assert client.call(demo, "GET", "/v1/status", timeout=30).status == 200  # loaded
    held = []
    try:
        for _ in range(3 * server.MAX_HANDLERS):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(str(demo.places.socket))
            sock.sendall(b"POST /v1/route HTTP/1.1\r\n")  # and nothing more
            held.append(sock)
        assert routed(demo, "rotate the webhook signing key")["pointers"]
        # the loader, watcher, keeper... besides one thread per connection answered
        assert daemon_threads(demo) <= server.MAX_HANDLERS + 16
    finally:
        for sock in held:
            sock.close()


# -- a daemon killed between a route and its line ---------------------------------------------


def lock_waiters(path: Path) -> int:
    """Return how many processes wait for a lock on `path` (/proc/locks' "->" lines)."""
    inode = f":{os.stat(path).st_ino} "
    lines = Path("/proc/locks").read_text().splitlines()
    return sum(1 for line in lines if "->" in line and inode in line)


@pytest.mark.process
@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="no /proc/locks to see a waiter")
def test_a_route_its_client_received_is_logged_before_a_kill(demo: client.Target) -> None:
    """The test holds the day's log locked, so the daemon stops where it writes the line;
    killed there, it must not have sent the answer already."""
    import datetime
    import fcntl
    import signal

    task = "rotate the webhook signing key"
    assert routed(demo, task)["pointers"]  # loaded, and the day's log exists
    directory = shadow.log_dir(Path(os.environ["KROUTE_HOME"]), demo.places.key)
    day = datetime.datetime.now(datetime.UTC).date().isoformat()
    log = shadow.log_path(Path(os.environ["KROUTE_HOME"]), demo.places.key, day)
    before = len(list(shadow.read(directory)))
    replies: list[client.Reply] = []

    def ask() -> None:
        with contextlib.suppress(DaemonError):  # no answer: the daemon died first
            body = {"task": "retry a failed delivery"}
            replies.append(client.call(demo, "POST", "/v1/route", body, timeout=60))

    with log.open("ab") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        asking = threading.Thread(target=ask, daemon=True)
        asking.start()
        assert eventually(lambda: lock_waiters(log) > 0, seconds=60)
        daemon = client.read_status(demo)
        assert daemon is not None
        os.kill(daemon["pid"], signal.SIGKILL)
        asking.join(60)
    records = list(shadow.read(directory))
    answered = bool(replies) and replies[0].status == 200
    if answered:
        assert [r["task"] for r in records[before:]] == ["retry a failed delivery"]
    else:
        assert len(records) == before
