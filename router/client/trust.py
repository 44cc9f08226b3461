"""Whether what kroute reads or writes is the user's alone: the runtime dir, a daemon's
socket and the process serving it, and the state dirs and files kroute keeps (DESIGN 10).
Like ssh-agent and tmux, kroute refuses what another user may have created first (to catch
the prompts sent there, or to name a pid to signal) rather than take it over.

Standard library only and light: the hook checks a socket with it before it connects.
"""

import errno
import os
import stat
import sys

from router.base.errors import DaemonError, StateError

TYPE_CHECKING = False  # not typing's: importing it costs every hook process (bench --imports)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

PRIVATE_MODE = 0o700  # every directory kroute makes: the owner only
FILE_MODE = 0o600  # logs and snapshots hold the user's prompts and documents
SHARED_BITS = 0o077  # any group or other permission on a directory kroute keeps private
# Group and other may read and enter the runtime dir; none but its owner may write in it, or
# another user could have put a socket or a status file (a pid to signal) there.
READABLE_BITS = 0o055
PEERCRED_SIZE = 12  # struct ucred: pid, uid, gid (three ints)


def own_socket(address: str) -> None:
    """Return when `address` is a socket owned by the current user, in a runtime dir that is
    the user's own (see `check_private`). Raises StateError or DaemonError when it is not,
    FileNotFoundError when it is missing."""
    uid = os.geteuid()
    check_private(os.path.dirname(address), uid, allowed=READABLE_BITS)
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


def check_peer(sock: "Any", address: str, pid: int = 0) -> None:
    """Return when the process serving the connected Unix socket `sock` runs as the current
    user (and, `pid` given, is that process). Without SO_PEERCRED the platform cannot tell:
    that passes unless a `pid` is asked for. Raises DaemonError otherwise."""
    import _socket

    peercred = getattr(_socket, "SO_PEERCRED", None)
    if peercred is None:
        if pid:
            raise DaemonError(f"refusing {address}: this platform cannot tell who serves it")
        return
    creds = sock.getsockopt(_socket.SOL_SOCKET, peercred, PEERCRED_SIZE)
    peer = int.from_bytes(creds[0:4], sys.byteorder)
    peer_uid = int.from_bytes(creds[4:8], sys.byteorder)
    if peer_uid != os.geteuid():
        raise DaemonError(
            f"refusing {address}: it is served by pid {peer} of uid {peer_uid}, not by you "
            f"(uid {os.geteuid()})",
            "Stop that process, or set XDG_RUNTIME_DIR to a directory of your own",
        )
    if pid and peer != pid:
        raise DaemonError(
            f"refusing {address}: it is served by pid {peer}, not by the daemon its status "
            f"file names (pid {pid})",
            "Restart it: kroute restart",
        )


def private_dir(path: "Path", uid: int | None = None) -> "Path":
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


def prepare(path: "Path", *, state: "Path") -> "Path":
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
            if _make(directory):
                continue
            info = os.lstat(directory)  # made by a racing process meanwhile
        _check(directory, info, owner, READABLE_BITS)
    return path


def open_private(path: "str | Path", flags: int) -> int:
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


def _make(path: "str | Path") -> bool:
    """Create the directory `path` and its missing parents, each 0700 whatever the umask;
    return False when `path` already existed (it is left as it is)."""
    target = os.fspath(path)
    missing, probe = [], target
    while not os.path.lexists(probe):
        missing.append(probe)
        probe = os.path.dirname(probe) or "."
    for directory in reversed(missing):
        try:
            os.mkdir(directory, PRIVATE_MODE)
        except FileExistsError:  # made by a racing process meanwhile: the caller checks it
            if directory == target:
                return False
            continue
        os.chmod(directory, PRIVATE_MODE)  # ours, just made: the umask may have cut bits
    return bool(missing)


def _todo(path: "str | Path") -> str:
    return (
        f"Remove it (rm -r {path}), or set XDG_RUNTIME_DIR (sockets) or KROUTE_HOME (logs) "
        "to a directory of your own"
    )


def check_private(path: "str | Path", uid: int, *, allowed: int = 0) -> None:
    """Return when `path` is a real directory (not a symlink) owned by `uid` with no group or
    other permission beyond the `allowed` bits. Raises FileNotFoundError when it does not
    exist, StateError when it is not private."""
    _check(path, os.lstat(path), uid, allowed)


def _check(path: "str | Path", info: os.stat_result, uid: int, allowed: int) -> None:
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
