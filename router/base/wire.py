"""What a client needs to find a repository's daemon and speak to it, as plain strings: the
config file above a directory, the daemon's key and socket, the request it sends and the
status of the reply, and whether its process lives. `paths`, `protocol` and `client` build on
these; `kroute-hook`'s fast path and the CLI's (`router.cli.shortcut`) use them alone, so this
module imports nothing beyond what the interpreter has loaded at start (no pathlib, re,
socket or json: each costs every prompt milliseconds).
"""

import os
import time

# No `from __future__ import annotations` here or in the hook: importing __future__ costs
# every hook process time, so annotations naming what only type checkers import are quoted.
# SHA-256 from Python's own implementation where it has one: `hashlib` loads OpenSSL, which
# costs every hook process more; the digest is the same. (Not typing's TYPE_CHECKING:
# importing typing costs every hook process time too; mypy and ruff go by the name.) What
# each costs: `bench.py --imports`.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from hashlib import sha256
    from typing import Any
else:
    try:
        from _sha2 import sha256  # Python 3.12 on
    except ImportError:
        try:
            from _sha256 import sha256  # Python 3.11
        except ImportError:
            from hashlib import sha256

CONFIG_NAME = "kroute.toml"
VERSION_HEADER = "X-Kroute-Version"
SOURCE_HEADER = "X-Kroute-Source"  # who emits the route, for the shadow log
# The seconds a client will wait for its answer (a decimal, e.g. `0.45`): a route stops at
# that deadline and answers silence with reason `deadline` (the hooks' shims send it too).
TIMEOUT_HEADER = "X-Kroute-Timeout"
# The daemon is told a deadline this much before the client gives up (seconds, at most a
# tenth of its timeout), so that an answer cut short at the deadline still reaches it.
ANSWER_MARGIN = 0.05
# Group and other may read and enter the runtime dir; none but its owner may write in it, or
# another user could have put a socket or a status file (a pid to signal) there.
READABLE_BITS = 0o055
# A request naming the digest of the config file it read (`?config=`) is answered only by a
# daemon whose config in force has that digest: else 412 (see `service`).
CONFIG_QUERY = "config"
STALE_CONFIG = 412
BACKLOG_POLL = 0.01  # seconds between two connection attempts while the backlog is full
# AF_UNIX paths are limited to 108 bytes on Linux (104 on macOS); stay well under both.
MAX_SOCKET_PATH = 100
POLL = 0.01  # seconds between two looks at a process, where no pidfd tells of its exit
# Where the platform has it: a process's state, to tell a zombie (and its command line, to
# tell a daemon: `launcher`).
PROC = "/proc"
DEAD_STATES = frozenset("ZX")  # /proc/<pid>/stat states of a process that is gone but unreaped


def find_config(start: str) -> str | None:
    """Return the nearest kroute.toml at or above the directory `start` (made absolute),
    or None."""
    directory = os.path.abspath(start)
    while True:
        candidate = os.path.join(directory, CONFIG_NAME)
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def key(root: str, config_file: str) -> str:
    """Return the short name of a daemon: a hash of its repository root and config file
    ("" for none)."""
    return sha256(f"{root}\0{config_file}".encode()).hexdigest()[:12]


def runtime_dir(env: "Mapping[str, str]", uid: int) -> str:
    """Return the directory of the user's daemon sockets: $XDG_RUNTIME_DIR/kroute, else
    /tmp/kroute-<uid>."""
    if env.get("XDG_RUNTIME_DIR"):
        return os.path.join(env["XDG_RUNTIME_DIR"], "kroute")
    return f"/tmp/kroute-{uid}"


def socket_dir(env: "Mapping[str, str]", uid: int, name: str) -> str:
    """Return the runtime dir that holds the socket of the daemon `name` (see `key`): the
    user's, unless a socket path in it would be too long, then /tmp/kroute-<uid>."""
    runtime = runtime_dir(env, uid)
    if len(os.path.join(runtime, f"{name}.sock")) > MAX_SOCKET_PATH:
        return f"/tmp/kroute-{uid}"
    return runtime


def digest(config: bytes) -> str:
    """Return the digest of a config file's bytes, as `config.Config.digest` names it."""
    return sha256(config).hexdigest()[:16]


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


def alive(pid: int) -> bool:
    """Return whether a process with this pid exists and has not died: a zombie (killed, not
    yet reaped by its parent) counts as dead."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except OSError:
        return False
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Return whether /proc says the process is dead but unreaped (False without /proc)."""
    try:
        with open(f"{PROC}/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return False
    # "pid (comm) S ...": the command may hold spaces and parentheses, so the state is the
    # first field after the last ")".
    fields = text.rpartition(")")[2].split()
    return bool(fields) and fields[0] in DEAD_STATES


def halt(pid: int, signals: "tuple[int | None, ...]", wait: float) -> None:
    """Send `pid` each signal in turn (None: none, just wait) until it is dead, waiting up to
    `wait` seconds after each. Returns when it is dead or the signals are spent."""
    for sig in signals:
        if sig is not None:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return
        if _ended(pid, wait):
            return


def _ended(pid: int, wait: float) -> bool:
    """Return whether process `pid` is dead, waiting up to `wait` seconds for it: told by a
    pidfd the moment it exits where the platform has one, else looked at every POLL s."""
    deadline = time.monotonic() + wait
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # no pidfd here, or the process is gone already
        fd = -1
    if fd >= 0:
        import select  # built in: no import cost to speak of, and only a stop needs it

        try:
            select.select([fd], [], [], wait)
        finally:
            os.close(fd)
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(POLL)
    return not alive(pid)
