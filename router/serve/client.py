"""The thin daemon client: find the daemon of a repository, tell its state and ask it.
Starting and stopping it is `launcher`'s.

Standard library only (no click, orjson, YAML or asyncio), so a hook that imports it starts
in milliseconds. HTTP/1.1 over the Unix socket, one request per connection.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import struct
import time
from collections.abc import Mapping
from pathlib import Path

from router import __version__
from router.base import paths, protocol, wire
from router.base.errors import DaemonError, UnansweredError

# Not typing's: importing typing costs every hook process time (`bench.py --imports`; mypy
# and ruff go by the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

POLL = wire.POLL  # seconds between two looks at a socket or a process (`launcher`'s too)
PROBE_TIMEOUT = 0.5  # seconds `state` waits for the socket to take a connection
PROC = Path(wire.PROC)  # a process's command line, to tell a daemon (`launcher`)
READABLE_BITS = wire.READABLE_BITS  # what the runtime dir may grant group and other
PEERCRED_FORMAT = "3i"  # struct ucred: pid, uid, gid


# Plain classes with slots: a dataclass or a NamedTuple would import dataclasses (and inspect)
# or typing, which cost every hook process time (`bench.py --imports`).
class Target:
    """The daemon one repository root (and config file) is served by."""

    __slots__ = ("config_file", "places", "root")

    def __init__(self, root: Path, config_file: Path | None, places: paths.Places) -> None:
        self.root = root
        self.config_file = config_file
        self.places = places

    def __repr__(self) -> str:
        return f"Target(root={self.root!r}, config_file={self.config_file!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Target):
            return NotImplemented
        return (self.root, self.config_file, self.places) == (
            other.root,
            other.config_file,
            other.places,
        )

    def __hash__(self) -> int:
        return hash((self.root, self.config_file, self.places))


class Reply:
    """An HTTP answer from the daemon."""

    __slots__ = ("body", "status")

    def __init__(self, status: int, body: bytes) -> None:
        self.status = status
        self.body = body

    def __repr__(self) -> str:
        return f"Reply(status={self.status!r}, body={self.body!r})"

    def json(self) -> Any:
        """Return the body decoded as JSON. Raises DaemonError when it is not JSON."""
        try:
            return json.loads(self.body)
        except ValueError:
            raise DaemonError(
                "the daemon answered something that is not JSON", "Restart it: kroute restart"
            ) from None


def target(root: Path, config_file: Path | None, env: Mapping[str, str]) -> Target:
    """Return the target for a resolved repository root and config file."""
    return Target(root, config_file, protocol.places_of(root, config_file, env))


# -- state ----------------------------------------------------------------------------------------


def read_status(t: Target) -> dict[str, Any] | None:
    """Return the daemon's status file, or None when there is none (or it is unreadable).

    Raises DaemonError when the runtime dir is not the user's own (see `check_runtime`)."""
    check_runtime(t)
    return protocol.read_status(t.places.status)


def check_runtime(t: Target) -> None:
    """Return when the target's runtime dir is missing, or a real directory owned by the
    current user that no one else may write in. Raises DaemonError otherwise: another user
    may have created it first, to serve a fake daemon or a status file naming a pid to kill."""
    with contextlib.suppress(FileNotFoundError):
        paths.check_private(t.places.runtime, os.geteuid(), allowed=READABLE_BITS)


def answers(t: Target) -> bool:
    """Return whether the target's socket takes a connection (nothing is sent). Raises
    DaemonError when the socket or its directory is not the user's own."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            _open(sock, t.places.socket, time.monotonic() + PROBE_TIMEOUT)
    except TimeoutError:
        return True  # the backlog is full: a daemon listens, it is busy
    except OSError:
        return False
    return True


def state(t: Target, version: str = __version__) -> tuple[str, str]:
    """Return (state, sentence): "running", "not-running", "died", "socket-missing" or
    "other-version", with a precise sentence for people. A daemon whose pid is gone (or a
    zombie) or whose socket takes no connection has "died".

    Raises DaemonError when the runtime dir, or the socket in it, is not the user's own."""
    status = read_status(t)
    if status is None:
        if t.places.socket.exists():
            return "died", f"a socket is left at {t.places.socket} but no status file"
        return "not-running", f"no daemon is running for {t.root}"
    pid = int(status.get("pid", 0))
    if not wire.alive(pid):
        return "died", f"the daemon (pid {pid}) died without cleaning up"
    if not t.places.socket.exists():
        return "socket-missing", f"the daemon (pid {pid}) is alive but its socket is missing"
    # A pid that exists proves little (killed and not yet reaped, or reused): ask the socket.
    if not answers(t):
        return "died", f"the daemon (pid {pid}) does not answer on {t.places.socket}"
    if status.get("version") != version:
        return (
            "other-version",
            f"the daemon (pid {pid}) runs version {status.get('version')}, this is {version}",
        )
    return "running", f"the daemon (pid {pid}) serves {t.root} on {t.places.socket}"


def clean(t: Target) -> None:
    """Remove a dead daemon's status file and socket."""
    for leftover in (t.places.status, t.places.socket, protocol.root_file(t.places)):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()


# -- requests -------------------------------------------------------------------------------------


def call(
    t: Target,
    method: str,
    path: str,
    body: Mapping[str, Any] | bytes | None = None,
    *,
    timeout: float = 5.0,
    version: str = __version__,
    source: str = "socket",
) -> Reply:
    """Send one request and return the reply; the daemon is told to stop working on it a
    little before `timeout` (`wire.granted`). Raises UnansweredError (a
    DaemonError) when the daemon does not answer within `timeout` seconds, DaemonError when
    the socket cannot be reached, or the socket, its directory or the process serving it is
    not the user's own (then nothing is sent)."""
    payload = body if isinstance(body, bytes) else json.dumps(body or {}).encode("utf-8")
    request = wire.request(method, path, payload, version, source, wire.granted(timeout))
    deadline = time.monotonic() + timeout
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            _open(sock, t.places.socket, deadline)
            sock.sendall(request)
            raw = wire.receive(sock, deadline)
    except TimeoutError:
        raise UnansweredError(
            f"the daemon did not answer within {timeout:g} s", "Check it with: kroute status"
        ) from None
    except OSError as error:
        raise DaemonError(
            f"cannot reach the daemon at {t.places.socket}: {error.strerror or error}",
            "Start it with: kroute start",
        ) from None
    return _parse(raw)


def _open(sock: socket.socket, address: Path, deadline: float) -> None:
    """Connect to the daemon's socket once it is known to be the user's own, and check that
    the process that accepted is the user's too. Raises DaemonError when either is someone
    else's (nothing has been sent), OSError or TimeoutError when it cannot connect."""
    _check_socket(address)
    wire.connect(sock, str(address), deadline)
    _check_peer(sock, address)


def _check_socket(address: Path) -> None:
    """Return when `address` is a socket owned by the current user, in a directory that is
    the user's own. Raises DaemonError when it is not, FileNotFoundError when it is missing."""
    uid = os.geteuid()
    paths.check_private(address.parent, uid, allowed=READABLE_BITS)
    info = os.lstat(address)
    if not stat.S_ISSOCK(info.st_mode):
        wrong = "it is not a socket"
    elif info.st_uid != uid:
        wrong = f"it belongs to uid {info.st_uid}, not to you (uid {uid})"
    else:
        return
    raise DaemonError(
        f"refusing {address}: {wrong}; another user may have put it there",
        f"Remove it (rm {address}), or set XDG_RUNTIME_DIR to a directory of your own",
    )


def _check_peer(sock: socket.socket, address: Path) -> None:
    """Return when the process serving the connected socket runs as the current user (or
    the platform cannot tell: no SO_PEERCRED). Raises DaemonError otherwise."""
    peercred = getattr(socket, "SO_PEERCRED", None)
    if peercred is None:
        return
    creds = sock.getsockopt(socket.SOL_SOCKET, peercred, struct.calcsize(PEERCRED_FORMAT))
    pid, uid, _gid = struct.unpack(PEERCRED_FORMAT, creds)
    if uid != os.geteuid():
        raise DaemonError(
            f"refusing {address}: it is served by pid {pid} of uid {uid}, not by you "
            f"(uid {os.geteuid()})",
            "Stop that process, or set XDG_RUNTIME_DIR to a directory of your own",
        )


def _parse(raw: bytes) -> Reply:
    try:
        status, body = wire.reply(raw)
    except ValueError:
        raise DaemonError(
            "the daemon sent a malformed reply", "Restart it: kroute restart"
        ) from None
    return Reply(status, body)
