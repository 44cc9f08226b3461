"""Whether a daemon is there, told without asking it: the files beside its socket (status,
root, start and serving locks) and whether its process lives.

Standard library only; the hook's fast path reads none of it (json is imported by the one
function that reads a status file).
"""

import os
import time

from router.client import trust
from router.client.locate import Places

TYPE_CHECKING = False  # not typing's: importing it costs every hook process (bench --imports)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

START_LOCK_SUFFIX = ".starting"
SERVING_LOCK_SUFFIX = ".lock"
ROOT_SUFFIX = ".root"
POLL = 0.01  # seconds between two looks at a process, where no pidfd tells of its exit
# Where the platform has it: a process's state, to tell a zombie (and its command line, to
# tell a daemon: `launcher`).
PROC = "/proc"
DEAD_STATES = frozenset("ZX")  # /proc/<pid>/stat states of a process that is gone but unreaped


def root_file(places: Places) -> "Path":
    """Return the file beside a daemon's socket that names the root and config it serves,
    one per line: the shims find a socket by reading these, which spawns no process (a
    hash in shell costs three)."""
    return places.status.with_suffix(ROOT_SUFFIX)


def start_lock(places: Places, pid: int) -> "Path":
    """Return the start lock of the daemon process `pid`: a file beside its socket, holding
    the pid, that exists from its spawn until its status file is written. One per process,
    so two daemons spawned at once (racing hooks) never overwrite each other's."""
    return places.runtime / f"{places.key}.{pid}{START_LOCK_SUFFIX}"


def serving_lock(places: Places) -> "Path":
    """Return the file a daemon holds an exclusive flock on from before it looks for another
    daemon of its root until it exits: of daemons spawned at once, one serves."""
    return places.runtime / f"{places.key}{SERVING_LOCK_SUFFIX}"


def start_locks(places: Places) -> "list[Path]":
    """Return the start locks beside a daemon's socket (none when the directory is missing)."""
    return sorted(places.runtime.glob(f"{places.key}.*{START_LOCK_SUFFIX}"))


def write_root(places: Places, root: "Path", config_file: "Path | None") -> None:
    """Write the daemon's root file (see `root_file`) in one step."""
    target = root_file(places)
    _replace(target, target.with_suffix(".root-tmp"), f"{root}\n{config_file or ''}\n")


def read_status(status: "Path") -> "dict[str, Any] | None":
    """Return a daemon's status file, or None when there is none (or it is unreadable)."""
    import json  # here, not above: the hook's fast path never reads a status file

    try:
        found = json.loads(status.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def write_status(status: "Path", document: "Mapping[str, Any]") -> None:
    """Replace a daemon's status file in one step (a reader never sees half of it)."""
    import json

    _replace(status, status.with_suffix(".tmp"), json.dumps(dict(document), sort_keys=True))


def _replace(target: "Path", temporary: "Path", text: str) -> None:
    """Write `text` to `temporary` (0600, never through a symlink) and rename it over
    `target`."""
    fd = trust.open_private(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    with open(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, target)


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
