"""The daemon's client: find the daemon of a repository (`locate`), make sure what answers
is the user's own (`trust`), ask it (`wire`), tell whether it is there (`presence`).
Starting and stopping it is `serve.launcher`'s.

Standard library only and light (no click, orjson, YAML, asyncio, pathlib or json at import),
so the hook, the CLI's shortcut, MCP and the launcher all use it. This module holds what
they ask through: a `Target`, `call`, and `state`.
"""

import os
import time

from router import __version__
from router.base.errors import DaemonError, UnansweredError
from router.client import locate, presence, trust, wire

TYPE_CHECKING = False  # not typing's: importing it costs every hook process (bench --imports)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

PROBE_TIMEOUT = 0.5  # seconds `state` waits for the socket to take a connection


# Plain classes with slots: a dataclass or a NamedTuple would import dataclasses (and inspect)
# or typing, which cost every hook process time (`bench.py --imports`).
class Target:
    """The daemon one repository root (and config file) is served by."""

    __slots__ = ("config_file", "places", "root")

    def __init__(self, root: "Path", config_file: "Path | None", places: locate.Places) -> None:
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

    def json(self) -> "Any":
        """Return the body decoded as JSON. Raises DaemonError when it is not JSON."""
        import json

        try:
            return json.loads(self.body)
        except ValueError:
            raise DaemonError(
                "the daemon answered something that is not JSON", "Restart it: kroute restart"
            ) from None


def target(root: "Path", config_file: "Path | None", env: "Mapping[str, str]") -> Target:
    """Return the target for a resolved repository root and config file."""
    return Target(root, config_file, locate.places(root, config_file, env))


# -- state ----------------------------------------------------------------------------------------


def read_status(t: Target) -> "dict[str, Any] | None":
    """Return the daemon's status file, or None when there is none (or it is unreadable).

    Raises DaemonError when the runtime dir is not the user's own (see `check_runtime`)."""
    check_runtime(t)
    return presence.read_status(t.places.status)


def check_runtime(t: Target) -> None:
    """Return when the target's runtime dir is missing, or a real directory owned by the
    current user that no one else may write in. Raises DaemonError otherwise: another user
    may have created it first, to serve a fake daemon or a status file naming a pid to kill."""
    try:  # noqa: SIM105  (contextlib: an import the hook does without)
        trust.check_private(t.places.runtime, os.geteuid(), allowed=trust.READABLE_BITS)
    except FileNotFoundError:
        pass


def answers(t: Target) -> bool:
    """Return whether the target's socket takes a connection (nothing is sent). Raises
    DaemonError when the socket or its directory is not the user's own."""
    try:
        sock = wire.dial(str(t.places.socket), time.monotonic() + PROBE_TIMEOUT)
    except TimeoutError:
        return True  # the backlog is full: a daemon listens, it is busy
    except OSError:
        return False
    sock.close()
    return True


def state(t: Target, version: str = __version__) -> tuple[str, str]:
    """Return (state, sentence): "running", "not-running", "died", "socket-missing" or
    "other-version", with a precise sentence for people. A daemon whose pid is gone (or a
    zombie) or whose socket takes no connection has "died".

    Raises DaemonError when the runtime dir, or the socket in it, is not the user's own."""
    found = read_status(t)
    if found is None:
        if t.places.socket.exists():
            return "died", f"a socket is left at {t.places.socket} but no status file"
        return "not-running", f"no daemon is running for {t.root}"
    pid = int(found.get("pid", 0))
    if not presence.alive(pid):
        return "died", f"the daemon (pid {pid}) died without cleaning up"
    if not t.places.socket.exists():
        return "socket-missing", f"the daemon (pid {pid}) is alive but its socket is missing"
    # A pid that exists proves little (killed and not yet reaped, or reused): ask the socket.
    if not answers(t):
        return "died", f"the daemon (pid {pid}) does not answer on {t.places.socket}"
    if found.get("version") != version:
        return (
            "other-version",
            f"the daemon (pid {pid}) runs version {found.get('version')}, this is {version}",
        )
    return "running", f"the daemon (pid {pid}) serves {t.root} on {t.places.socket}"


def clean(t: Target) -> None:
    """Remove a dead daemon's status file and socket."""
    for leftover in (t.places.status, t.places.socket, presence.root_file(t.places)):
        try:  # noqa: SIM105  (contextlib: an import the hook does without)
            leftover.unlink()
        except FileNotFoundError:
            pass


# -- requests -------------------------------------------------------------------------------------


def call(
    t: Target,
    method: str,
    path: str,
    body: "Mapping[str, Any] | bytes | None" = None,
    *,
    timeout: float = 5.0,
    version: str = __version__,
    source: str = "socket",
) -> Reply:
    """Send one request and return the reply; the daemon is told to stop working on it a
    little before `timeout` (`wire.granted`). Raises UnansweredError (a DaemonError) when
    the daemon does not answer within `timeout` seconds, DaemonError when the socket cannot
    be reached, or the socket, its directory or the process serving it is not the user's
    own (then nothing is sent)."""
    if isinstance(body, bytes):
        payload = body
    else:
        import json

        payload = json.dumps(body or {}).encode("utf-8")
    sent = wire.request(method, path, payload, version, source, wire.granted(timeout))
    try:
        code, answer = wire.exchange(str(t.places.socket), sent, time.monotonic() + timeout)
    except TimeoutError:
        raise UnansweredError(
            f"the daemon did not answer within {timeout:g} s", "Check it with: kroute status"
        ) from None
    except OSError as error:
        raise DaemonError(
            f"cannot reach the daemon at {t.places.socket}: {error.strerror or error}",
            "Start it with: kroute start",
        ) from None
    except ValueError:
        raise DaemonError(
            "the daemon sent a malformed reply", "Restart it: kroute restart"
        ) from None
    return Reply(code, answer)
