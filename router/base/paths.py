"""Where state, logs and sockets live (DESIGN 10). One resolver; the environment is passed
in by the caller, so nothing here reads os.environ. Standard library only (hooks import it).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from router.base import wire
from router.base.errors import StateError

MAX_SOCKET_PATH = wire.MAX_SOCKET_PATH
PRIVATE_MODE = 0o700  # every directory kroute makes: the owner only
FILE_MODE = 0o600  # logs and snapshots hold the user's prompts and documents
SHARED_BITS = 0o077  # any group or other permission on a directory kroute keeps private


# A plain class with slots: a dataclass or a NamedTuple would import dataclasses (and inspect)
# or typing, which cost every hook process time (`bench.py --imports`).
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
    can use, mode 0700 whatever the umask, its missing parents 0700 too. Returns it.

    Raises StateError when it exists but is not a real directory, belongs to another user or
    grants any group or other permission: like ssh-agent and tmux, kroute refuses a directory
    someone else may have created first (to bind a fake daemon where hooks send prompts)
    rather than chmod it, which would leave it in the other user's hands."""
    owner = os.geteuid() if uid is None else uid
    if _make(path):
        return path
    check_private(path, owner)
    return path


def prepare(path: Path, *, state: Path) -> Path:
    """Return `path`, a directory at or below the state dir `state`, with every directory
    from `state` down to it made 0700 where missing and checked where it exists: a real
    directory (not a symlink), the user's own, that no other user may write in (they may
    read a directory the user made readable; the files in it are 0600, see `open_private`).

    Raises StateError naming the first directory that is not, OSError when one cannot be
    made."""
    owner = os.geteuid()
    # as strings, each directory looked at once: every shadow line a daemon writes comes here
    top, full = os.fspath(state), os.fspath(path)
    if full != top and not full.startswith(top.rstrip(os.sep) + os.sep):
        raise ValueError(f"{path} is not in {state}")
    directories = [top]  # state first
    for part in full[len(top) :].split(os.sep):
        if part:
            directories.append(os.path.join(directories[-1], part))
    for directory in directories:
        try:
            info = os.lstat(directory)
        except FileNotFoundError:
            if _make(Path(directory)):
                continue
            info = os.lstat(directory)  # made by a racing process meanwhile
        _check(directory, info, owner, wire.READABLE_BITS)
    return path


def open_private(path: Path, flags: int) -> int:
    """Return a descriptor of the file `path` opened with `flags` (add os.O_CREAT to create
    it, mode 0600), never through a symbolic link; a file of the user's own that others
    could read is made 0600.

    Raises StateError when `path` is a symbolic link or not a regular file of the user's
    own, OSError when it cannot be opened."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise StateError(f"refusing {path}: it is a symbolic link", _todo(path)) from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
        os.close(fd)
        raise StateError(f"refusing {path}: it is not a file of your own", _todo(path))
    if stat.S_IMODE(info.st_mode) & SHARED_BITS:
        os.fchmod(fd, FILE_MODE)  # written under a loose umask by an older kroute
    return fd


def _make(path: Path) -> bool:
    """Create the directory `path` and its missing parents, each 0700 whatever the umask;
    return False when `path` already existed (it is left as it is)."""
    missing, probe = [], path
    while not os.path.lexists(probe):
        missing.append(probe)
        probe = probe.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=PRIVATE_MODE)
        except FileExistsError:  # made by a racing process meanwhile: the caller checks it
            if directory == path:
                return False
            continue
        os.chmod(directory, PRIVATE_MODE)  # ours, just made: the umask may have cut bits
    return bool(missing)


def _todo(path: Path | str) -> str:
    return (
        f"Remove it (rm -r {path}), or set XDG_RUNTIME_DIR (sockets) or KROUTE_HOME (logs) "
        "to a directory of your own"
    )


def check_private(path: Path, uid: int, *, allowed: int = 0) -> None:
    """Return when `path` is a real directory (not a symlink) owned by `uid` with no group or
    other permission beyond the `allowed` bits. Raises FileNotFoundError when it does not
    exist, StateError when it is not private."""
    _check(path, os.lstat(path), uid, allowed)


def _check(path: Path | str, info: os.stat_result, uid: int, allowed: int) -> None:
    """Return when `info` (`path`'s lstat) is of a private directory: see `check_private`.
    Raises StateError when it is not."""
    mode = info.st_mode
    loose = stat.S_IMODE(mode) & SHARED_BITS & ~allowed
    if stat.S_ISDIR(mode) and info.st_uid == uid and not loose:
        return
    todo = _todo(path)
    if not stat.S_ISDIR(info.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a directory"
        raise StateError(f"refusing {path}: it is {kind}", todo)
    if info.st_uid != uid:
        raise StateError(
            f"refusing {path}: it belongs to uid {info.st_uid}, not to you (uid {uid}); "
            "another user may have created it to catch what kroute sends",
            todo,
        )
    if stat.S_IMODE(info.st_mode) & SHARED_BITS & ~allowed:
        raise StateError(
            f"refusing {path}: other users may use it (mode {stat.S_IMODE(info.st_mode):04o}, "
            f"kroute needs {PRIVATE_MODE:04o})",
            f"Remove it (rm -r {path}) for kroute to make it afresh, or chmod 700 it if "
            "nothing in it came from another user",
        )
