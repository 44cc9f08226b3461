"""Where state, logs and sockets live (DESIGN 10). One resolver; the environment is passed
in by the caller, so nothing here reads os.environ. Standard library only (hooks import it).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from router.base import wire
from router.base.errors import DaemonError

MAX_SOCKET_PATH = wire.MAX_SOCKET_PATH
PRIVATE_MODE = 0o700  # the runtime and log directories: the owner only
SHARED_BITS = 0o077  # any group or other permission on a directory kroute keeps private


# A plain class with slots: a dataclass or a NamedTuple would import dataclasses (and inspect)
# or typing, which cost every hook process some 12 ms.
class Places:
    """The files of one repository's daemon."""

    __slots__ = ("key", "log", "runtime", "socket", "state", "status")

    def __init__(
        self, *, key: str, runtime: Path, socket: Path, status: Path, state: Path, log: Path
    ) -> None:
        self.key = key  # short hash naming this root + config
        self.runtime = runtime  # 0700 directory holding the socket and the status file
        self.socket = socket
        self.status = status
        self.state = state  # $KROUTE_HOME: logs, shadow log
        self.log = log

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"Places({fields})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Places):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, name) for name in self.__slots__))


def key(root: Path, config_file: Path | None) -> str:
    """Return the short name of a daemon: a hash of its repository root and config file."""
    return wire.key(str(root), str(config_file or ""))


def state_dir(env: Mapping[str, str]) -> Path:
    """Return $KROUTE_HOME, else $XDG_STATE_HOME/kroute, else ~/.local/state/kroute."""
    if env.get("KROUTE_HOME"):
        return Path(env["KROUTE_HOME"])
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / "kroute"
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".local" / "state" / "kroute"


def runtime_dir(env: Mapping[str, str], uid: int) -> Path:
    """Return $XDG_RUNTIME_DIR/kroute, else /tmp/kroute-<uid>."""
    return Path(wire.runtime_dir(env, uid))


def places(root: Path, config_file: Path | None, env: Mapping[str, str], uid: int) -> Places:
    """Return the socket, status and log paths of the daemon for `root`. A runtime dir too
    deep for a socket path falls back to /tmp/kroute-<uid>."""
    name = key(root, config_file)
    runtime = Path(wire.socket_dir(env, uid, name))
    state = state_dir(env)
    return Places(
        key=name,
        runtime=runtime,
        socket=runtime / f"{name}.sock",
        status=runtime / f"{name}.json",
        state=state,
        log=state / "logs" / f"{name}.log",
    )


def private_dir(path: Path, uid: int | None = None) -> Path:
    """Create `path` (and parents) as a directory only `uid` (default: the effective uid)
    can use, mode 0700. Returns it.

    Raises DaemonError when it exists but is not a real directory, belongs to another user or
    grants any group or other permission: like ssh-agent and tmux, kroute refuses a directory
    someone else may have created first (to bind a fake daemon where hooks send prompts)
    rather than chmod it, which would leave it in the other user's hands."""
    owner = os.geteuid() if uid is None else uid
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=PRIVATE_MODE)
    except FileExistsError:
        check_private(path, owner)
        return path
    os.chmod(path, PRIVATE_MODE)  # ours, just made: the umask may have cut the owner's bits
    check_private(path, owner)
    return path


def check_private(path: Path, uid: int, *, allowed: int = 0) -> None:
    """Return when `path` is a real directory (not a symlink) owned by `uid` with no group or
    other permission beyond the `allowed` bits. Raises FileNotFoundError when it does not
    exist, DaemonError when it is not private."""
    info = os.lstat(path)
    todo = (
        f"Remove it (rm -r {path}), or set XDG_RUNTIME_DIR (sockets) or KROUTE_HOME (logs) "
        "to a directory of your own"
    )
    if not stat.S_ISDIR(info.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a directory"
        raise DaemonError(f"refusing {path}: it is {kind}", todo)
    if info.st_uid != uid:
        raise DaemonError(
            f"refusing {path}: it belongs to uid {info.st_uid}, not to you (uid {uid}); "
            "another user may have created it to catch what kroute sends",
            todo,
        )
    if stat.S_IMODE(info.st_mode) & SHARED_BITS & ~allowed:
        raise DaemonError(
            f"refusing {path}: other users may use it (mode {stat.S_IMODE(info.st_mode):04o}, "
            f"kroute needs {PRIVATE_MODE:04o})",
            f"Remove it (rm -r {path}) for kroute to make it afresh, or chmod 700 it if "
            "nothing in it came from another user",
        )
