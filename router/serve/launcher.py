"""Starting and stopping the daemon of a repository, for its clients: spawn it detached (the
start lock names it until its status file does), wait until it has loaded its catalog, stop
it and any still starting, replace it from a detached process, and ask it, starting or
replacing it as needed. Finding it and talking to it are `client`'s.

Standard library only, like `client`: the hook's slow path starts a daemon from here for the
next prompt.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from router import __version__, client
from router.base import errors
from router.base.errors import DaemonError, OutrunError, RequestError
from router.client import Target, locate, presence, trust

# Not typing's: importing typing costs every hook process time (`bench.py --imports`; mypy
# and ruff go by the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    # Imported where they are used: subprocess (and locale, threading with it) and signal
    # cost time (`bench.py --imports`) that a hook that starts no daemon (its slow path
    # imports this module) need not pay.
    import subprocess
    from typing import Any

START_WAIT = 10.0  # seconds `start` waits for a daemon to listen and load its catalog
STOP_WAIT = 3.0
LOADING_POLL = 0.05  # how often a client waiting for a loading daemon asks again
EXEC_WAIT = 1.0  # seconds a spawned process may take from its fork to its exec
LOCK_MODE = 0o600  # a start lock names a pid to signal: none but its owner may write it
LAST_WORDS = 4096  # bytes at the end of a daemon's log read for why it exited at start
# What /proc/<pid>/cmdline of a daemon `spawn` started holds: `python -m router serve`.
DAEMON_ARGS = ("router", "serve")


def spawn(t: Target, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start a detached daemon for the target without waiting for it. Its output goes to
    the log file in the state dir."""
    import subprocess

    trust.prepare(t.places.log.parent, state=t.places.state)
    trust.private_dir(t.places.runtime)
    command = [sys.executable, "-m", *DAEMON_ARGS, "--catalog", str(t.root)]
    if t.config_file is not None:
        command += ["--config", str(t.config_file)]
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    with os.fdopen(trust.open_private(t.places.log, flags), "ab") as log:
        child = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            env=dict(env),
            cwd=str(t.root),
        )
    # Popen returns once the child has exec'd, long before the daemon has loaded its catalog
    # and written its status file: until then the lock is how `stop` finds it.
    _write_start_lock(t.places, child.pid)
    return child


def _write_start_lock(places: locate.Places, pid: int) -> None:
    """Create the start lock of daemon `pid` (see `presence.start_lock`), mode 0600."""
    lock = presence.start_lock(places, pid)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    with os.fdopen(os.open(lock, flags, LOCK_MODE), "w", encoding="utf-8") as out:
        out.write(f"{pid}\n")


def drop_start_lock(places: locate.Places, pid: int | None = None) -> None:
    """Remove the start lock of daemon `pid` (default: this process), if there is one: the
    daemon calls it once its status file is written, and when it exits."""
    with contextlib.suppress(FileNotFoundError):
        presence.start_lock(places, os.getpid() if pid is None else pid).unlink()


def starting(t: Target) -> list[int]:
    """Return the pids of the target's daemons that are still starting (spawned, no status
    file yet), checked to be kroute daemons of this root. Removes locks of dead processes.

    Raises DaemonError when the runtime dir is not the user's own (see `client.check_runtime`)."""
    client.check_runtime(t)
    pids = []
    for lock in presence.start_locks(t.places):
        try:
            pid = int(lock.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            pid = 0
        if presence.alive(pid) and _serves_soon(pid, t.root):
            pids.append(pid)
        else:
            with contextlib.suppress(FileNotFoundError):
                lock.unlink()
    return pids


def _serves_soon(pid: int, root: Path) -> bool:
    """Return `_serves`, giving a process just spawned up to EXEC_WAIT seconds to become
    the daemon: between its fork and its exec, /proc shows the spawner's command line."""
    deadline = time.monotonic() + EXEC_WAIT
    while not _serves(pid, root):
        if time.monotonic() >= deadline or not presence.alive(pid):
            return False
        time.sleep(presence.POLL)
    return True


def _serves(pid: int, root: Path) -> bool:
    """Return whether process `pid` is a kroute daemon of `root`, as far as /proc tells (True
    without /proc: the lock's owner and mode are all there is to go on). A reused pid must
    not be signalled."""
    if not os.path.isdir(presence.PROC):
        return True
    try:
        raw = Path(presence.PROC, str(pid), "cmdline").read_bytes()
    except OSError:
        return False
    args = raw.decode("utf-8", errors="replace").split("\0")
    return all(word in args for word in DAEMON_ARGS) and str(root) in args


def respawn(t: Target, env: Mapping[str, str]) -> None:
    """Replace the target's daemon from a detached process (`kroute restart`), without
    waiting: for hooks, which must not block on a slow stop."""
    import subprocess

    command = [sys.executable, "-m", "router", "restart", "--catalog", str(t.root)]
    if t.config_file is not None:
        command += ["--config", str(t.config_file)]
    subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=dict(env),
        cwd=str(t.root),
    )


def start(t: Target, env: Mapping[str, str], *, wait: float = START_WAIT) -> int:
    """Start a detached daemon for the target and wait until it answers. Returns its pid.

    Raises OutrunError (a DaemonError) when a daemon another start spawned serves instead,
    DaemonError when it exits at start (with its reason) or does not come up within `wait`
    seconds."""
    import subprocess

    try:
        child = spawn(t, env)
    except OSError as error:
        raise DaemonError(
            f"cannot start the daemon: {error.strerror or error} ({error.filename})",
            f"Make {t.places.state} writable, or set KROUTE_HOME to a directory of your own",
        ) from None
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise _stood_down(t, deadline) or _exited(t, child.returncode)
        found = client.read_status(t)
        if found and found.get("pid") == child.pid and t.places.socket.exists():
            ready(t, deadline - time.monotonic())
            if client.state(t)[0] != "running":  # it wrote its status, then died
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.wait(STOP_WAIT)
                raise _exited(t, child.returncode)
            return child.pid
        time.sleep(presence.POLL)
    raise DaemonError(
        f"the daemon did not come up within {wait:g} s", f"See its log: {t.places.log}"
    )


def _stood_down(t: Target, deadline: float) -> OutrunError | None:
    """Return OutrunError when another daemon holds the target's serving lock (the one spawned
    here exited because of it), once that one runs or `deadline` passes; else None."""
    if not serving_held(t.places):
        return None
    while time.monotonic() < deadline and client.state(t)[0] != "running":
        time.sleep(presence.POLL)
    current, sentence = client.state(t)
    if current == "running":
        return OutrunError(f"already running: {sentence}")
    return OutrunError(f"already starting: another start spawned a daemon for {t.root}")


def _exited(t: Target, status: int | None) -> DaemonError:
    """Return the error of a daemon that exited at start with `status` (None: it is alive
    but does not answer), saying why: the last line of its log, or why its log cannot be
    written (a full or read-only disk), which is likely what killed it."""
    import datetime

    log = t.places.log
    how = "does not answer" if status is None else f"exited at start with status {status}"
    try:
        with log.open("rb") as handle:
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - LAST_WORDS))
            lines = handle.read().decode("utf-8", errors="replace").replace("\0", "").split("\n")
        said = next((line.strip() for line in reversed(lines) if line.strip()), "")
        stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        with log.open("a", encoding="utf-8") as handle:
            handle.write(f"{stamp} kroute start: the daemon {how}\n")
    except OSError as error:
        return DaemonError(
            f"the daemon {how}: its log {log} cannot be written ({error.strerror or error})",
            "Free some space on that disk or make it writable, or set KROUTE_HOME elsewhere",
        )
    reason = f": {said}" if said else ""
    return DaemonError(f"the daemon {how}{reason}", f"See its log: {log}")


def hold_serving(places: locate.Places) -> int | None:
    """Take the serving lock of `places` for this process (see `presence.serving_lock`).
    Returns its descriptor, to keep open while the daemon lives (its exit, even by a kill,
    releases it), or None when another process holds it. Raises OSError when the lock file
    cannot be opened."""
    import fcntl

    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(presence.serving_lock(places), flags, LOCK_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def serving_held(places: locate.Places) -> bool:
    """Return whether a daemon holds the serving lock of `places` (it runs or is starting)."""
    try:
        fd = hold_serving(places)
    except OSError:
        return False
    if fd is None:
        return True
    os.close(fd)  # releases it
    return False


def ready(t: Target, wait: float) -> bool:
    """Return whether the target's daemon has loaded its catalog, waiting up to `wait`
    seconds while it says it is loading (a daemon that cannot be asked counts as ready:
    the request that follows says what is wrong)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            reply = client.call(
                t, "GET", "/v1/status", timeout=max(0.1, deadline - time.monotonic())
            )
            loading = reply.status == 200 and reply.json().get("phase") == "loading"
        except (DaemonError, ValueError, AttributeError):
            return True
        if not loading:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(LOADING_POLL)


def stop(t: Target, *, wait: float = STOP_WAIT) -> bool:
    """Stop the target's daemon, and any still starting: ask the running one to shut down,
    then signal them. Returns whether one was running or starting. Stale files are removed
    either way.

    Raises DaemonError when the runtime dir is not the user's own (see `client.check_runtime`)."""
    import signal

    # Locks first: a daemon drops its lock only once its status file is written, so one that
    # finishes starting meanwhile is in the status file read next.
    early = starting(t)
    found = client.read_status(t)
    pid = int(found.get("pid", 0)) if found else 0
    running = presence.alive(pid)
    if running:
        with contextlib.suppress(DaemonError):
            version = str(found and found.get("version"))
            client.call(t, "POST", "/v1/shutdown", timeout=1.0, version=version)
        presence.halt(pid, (None, signal.SIGTERM, signal.SIGKILL), wait)
    for other in early:
        if other != pid:
            # Still loading, it listens to nothing yet: its signal handlers come later.
            presence.halt(other, (signal.SIGTERM, signal.SIGKILL), wait)
            drop_start_lock(t.places, other)
    client.clean(t)
    return running or bool(early)


def ensure(t: Target, env: Mapping[str, str], version: str = __version__) -> bool:
    """Make sure a daemon of this version serves the target: start one when none runs,
    clean up after a dead one, replace one of another version. Returns whether this call
    started it (False: one ran, or another start's daemon came up first). Raises
    DaemonError."""
    current, _ = client.state(t, version)
    if current == "running":
        return False
    if current in ("other-version", "socket-missing"):
        stop(t)
    elif not serving_held(t.places):  # a daemon starting may be writing its files now
        client.clean(t)
    try:
        start(t, env)
    except OutrunError:  # another start's daemon serves: as good
        return False
    return True


def ask(
    t: Target,
    env: Mapping[str, str],
    path: str,
    body: Mapping[str, Any],
    *,
    timeout: float = 5.0,
    version: str = __version__,
    source: str = "socket",
) -> Any:
    """Return the decoded answer of POST `path`, starting or replacing the daemon as needed.

    A daemon of another version answers 409 `restart`: it is replaced and asked again.
    Raises DaemonError when no daemon can serve, or it answers with an error."""
    ensure(t, env, version)
    reply = client.call(t, "POST", path, body, timeout=timeout, version=version, source=source)
    if reply.status == 409:
        stop(t)
        start(t, env)
        reply = client.call(t, "POST", path, body, timeout=timeout, version=version, source=source)
    if reply.status == 503 and ready(t, timeout):
        reply = client.call(t, "POST", path, body, timeout=timeout, version=version, source=source)
    document = reply.json()
    if reply.status != 200:
        message = errors.message_of(document) or f"the daemon answered {reply.status}"
        if reply.status in (400, 404, 413):  # the request's fault (404: an unknown entry)
            raise RequestError(message)
        raise DaemonError(message, f"See the daemon's log: {t.places.log}")
    return document
