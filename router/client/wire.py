"""How a client speaks to the daemon: HTTP/1.1 over its Unix socket, one request per
connection, the socket and the process serving it checked first (`trust`).

Standard library only and light (`_socket`, not `socket`, which imports enum and selectors):
the hook's fast path and the CLI's (`router.cli.shortcut`) send their requests with it.
"""

import _socket
import time

from router.client import trust

TYPE_CHECKING = False  # not typing's: importing it costs every hook process (bench --imports)
if TYPE_CHECKING:
    from typing import Any

VERSION_HEADER = "X-Kroute-Version"
SOURCE_HEADER = "X-Kroute-Source"  # who emits the route, for the shadow log
# The seconds a client will wait for its answer (a decimal, e.g. `0.45`): a route stops at
# that deadline and answers silence with reason `deadline` (the hooks' shims send it too).
TIMEOUT_HEADER = "X-Kroute-Timeout"
HOOK_PREFIX = "/v1/hook/"  # POST /v1/hook/<harness>/<event>: exactly what the hook prints
# The daemon is told a deadline this much before the client gives up (seconds, at most a
# tenth of its timeout), so that an answer cut short at the deadline still reaches it.
ANSWER_MARGIN = 0.05
# A request naming the digest of the config file it read (`?config=`, `locate.digest`) is
# answered only by a daemon whose config in force has that digest: else 412 (see `service`).
CONFIG_QUERY = "config"
STALE_CONFIG = 412
BACKLOG_POLL = 0.01  # seconds between two connection attempts while the backlog is full


def request(
    method: str, path: str, payload: bytes, version: str, source: str, granted: float
) -> bytes:
    """Return one HTTP/1.1 request to the daemon, `granted` being the seconds it may work
    on it (TIMEOUT_HEADER)."""
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: kroute\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
        f"{VERSION_HEADER}: {version}\r\n{SOURCE_HEADER}: {source}\r\n"
        f"{TIMEOUT_HEADER}: {granted:.3f}\r\n\r\n"
    )
    return head.encode("ascii") + payload


def granted(timeout: float) -> float:
    """Return the seconds the daemon is told it may work on a request whose client waits
    `timeout` seconds: a little less, so that an answer cut short still arrives."""
    return max(0.001, timeout - min(ANSWER_MARGIN, timeout / 10))


def connect(sock: "Any", address: str, deadline: float) -> None:
    """Connect `sock` (a Unix stream socket, `socket`'s or `_socket`'s) to `address`,
    retrying while the daemon's listen backlog is full (EAGAIN) until `deadline` on the
    monotonic clock. Raises TimeoutError past it, another OSError when none listens."""
    while True:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        try:
            sock.connect(address)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise TimeoutError from None
            time.sleep(BACKLOG_POLL)


def dial(address: str, deadline: float, pid: int = 0) -> "Any":
    """Return a socket connected to the daemon at `address` once the socket is known to be
    the user's own, and the process that accepted is the user's too (`pid` given: is that
    process). The caller closes it. Raises StateError or DaemonError when either is someone
    else's (nothing has been sent), TimeoutError or another OSError when it cannot connect."""
    trust.own_socket(address)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connect(sock, address, deadline)
        trust.check_peer(sock, address, pid)
    except BaseException:
        sock.close()
        raise
    return sock


def exchange(address: str, sent: bytes, deadline: float, pid: int = 0) -> tuple[int, bytes]:
    """Return the status and body of the daemon's reply to the request `sent` to `address`
    (see `dial` for the checks made first). Raises what `dial` raises, TimeoutError when no
    whole reply came by `deadline`, ValueError when it is not HTTP."""
    sock = dial(address, deadline, pid)
    try:
        sock.sendall(sent)
        raw = receive(sock, deadline)
    finally:
        sock.close()
    return reply(raw)


def receive(sock: "Any", deadline: float) -> bytes:
    """Return all the daemon sends on `sock` until it closes the connection (one request per
    connection). Raises TimeoutError when that has not happened by `deadline`."""
    chunks: list[bytes] = []
    while True:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def reply(raw: bytes) -> tuple[int, bytes]:
    """Return the status and body of the daemon's reply. Raises ValueError when it is not
    an HTTP reply."""
    head, _, body = raw.partition(b"\r\n\r\n")
    try:
        return int(head.split(b" ", 2)[1]), body
    except IndexError:
        raise ValueError("not an HTTP reply") from None
