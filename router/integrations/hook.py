"""The `kroute-hook` script (DESIGN 11): one hook event, answered within its deadline.

Standard library only, so a hook starts in milliseconds. It asks the daemon, telling it the
time left before the deadline; when none answers it starts one in the background and answers
in process this once. A daemon that answered (still loading, a payload over its cap) or
took the request and ran out of time is never asked again, nor is the hook answered in
process: it prints nothing. Every failure prints nothing and exits 0: a hook never harms the
agent.
"""

import _socket
import _thread
import os
import stat
import sys
import time

from router import __version__
from router.base import wire

# Not typing's: importing typing costs every hook process some 3 ms (mypy and ruff go by the
# name). The fast path (a daemon answers) imports nothing else: no pathlib, socket, json, re,
# threading or harness, each milliseconds of every prompt (`wire`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

DEADLINE = 1.0  # seconds a hook may take before it gives up, silently
RESTART = 409  # a daemon of another version: it is replaced, and this hook answered here
MIN_WAIT = 0.01  # seconds: a daemon found this late is still asked, briefly
PEERCRED_SIZE = 12  # struct ucred: pid, uid, gid (three ints)


class NotOurs(OSError):
    """The socket, its directory or the process serving it is not the user's own: nothing
    is sent there (the slow path's client says what is wrong)."""


def main(argv: list[str] | None = None) -> int:
    """Run one hook: `kroute-hook <harness> <event>` with the payload on stdin. Prints what
    the harness must see, or nothing; always returns 0, within the deadline."""
    args = sys.argv[1:] if argv is None else argv
    if os.environ.get("KROUTE_SKIP") == "1" or len(args) != 2:
        return 0
    harness, event = args
    deadline = _deadline(os.environ)
    until = time.monotonic() + deadline
    done = _thread.allocate_lock()
    done.acquire()
    out: list[str] = []

    def work() -> None:
        try:
            out.append(answer(harness, event, sys.stdin.buffer.read(), os.environ, until))
        except BaseException:  # a hook fails open, whatever went wrong
            pass
        finally:
            done.release()

    # The work runs aside so that a harness that never closes stdin, or anything else that
    # blocks, costs at most the deadline.
    _thread.start_new_thread(work, ())
    if done.acquire(timeout=deadline) and out and out[0]:
        try:
            sys.stdout.write(out[0])
            sys.stdout.flush()
        except OSError:
            pass
    return 0


def answer(
    harness: str, event: str, raw: bytes, env: "Mapping[str, str]", until: float | None = None
) -> str:
    """Return what the hook prints: the daemon's answer, else (starting a daemon in the
    background for next time, unless the runtime directory is not the user's) the in-process
    one. `until` is the hook's deadline on the monotonic clock (default: its deadline from
    now); what is left of it is the daemon's. A daemon that answers anything but 200 or 409,
    or nothing in time, gets "" (nothing printed): it is never asked again."""
    until = time.monotonic() + _deadline(env) if until is None else until
    # The payload is read only for its working directory, which CLAUDE_PROJECT_DIR overrides:
    # with it set, the fast path decodes no JSON.
    start = env.get("CLAUDE_PROJECT_DIR") or _cwd(raw) or os.getcwd()
    found = wire.find_config(start)
    if found is None:
        return ""
    root, config_file = os.path.realpath(os.path.dirname(found)), os.path.realpath(found)
    endpoint = f"/v1/hook/{harness}/{event}?mode={env.get('KROUTE_MODE', 'live')}"
    try:
        status, body = ask(root, config_file, endpoint, raw, env, until)
    except TimeoutError:
        return ""  # it took the request and stops at the same deadline: asking again is more work
    except (OSError, ValueError):
        status, body = RESTART, b""  # none answers here, or not as a daemon would
    if status == 200:
        return body.decode("utf-8")
    if status != RESTART:
        return ""  # loading (503), over the body cap (413): its answer stands
    return _in_process(root, config_file, harness, event, raw, env)


def ask(
    root: str, config_file: str, endpoint: str, raw: bytes, env: "Mapping[str, str]", until: float
) -> tuple[int, bytes]:
    """Return the status and body of the daemon's answer to POST `endpoint` with `raw`,
    once its socket and the process serving it are known to be the user's own.

    Raises NotOurs (nothing sent) when they are not, TimeoutError when the daemon does not
    answer by `until`, another OSError when none listens, ValueError for a reply that is not
    HTTP."""
    uid = os.geteuid()
    name = wire.key(root, config_file)
    directory = wire.socket_dir(env, uid, name)
    address = os.path.join(directory, f"{name}.sock")
    _own(os.lstat(directory), uid, stat.S_ISDIR, wire.READABLE_BITS)
    _own(os.lstat(address), uid, stat.S_ISSOCK, 0o7777)
    left = max(MIN_WAIT, until - time.monotonic())
    request = wire.request("POST", endpoint, raw, __version__, "socket", wire.granted(left))
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        wire.connect(sock, address, time.monotonic() + left)
        peercred = getattr(_socket, "SO_PEERCRED", None)
        if peercred is not None:
            creds = sock.getsockopt(_socket.SOL_SOCKET, peercred, PEERCRED_SIZE)
            if int.from_bytes(creds[4:8], sys.byteorder) != uid:
                raise NotOurs("the daemon's socket is served by another user")
        sock.sendall(request)
        raw_reply = wire.receive(sock, until)
    finally:
        sock.close()
    return wire.reply(raw_reply)


def _own(info: os.stat_result, uid: int, kind: "Any", allowed: int) -> None:
    """Raise NotOurs unless the file is of `kind`, owned by `uid`, with no permission for
    group or other beyond `allowed`."""
    if not kind(info.st_mode) or info.st_uid != uid or info.st_mode & 0o077 & ~allowed:
        raise NotOurs("not the user's own")


def _in_process(
    root: str, config_file: str, harness: str, event: str, raw: bytes, env: "Mapping[str, str]"
) -> str:
    """Return the answer made in this process, having started a daemon in the background
    for next time (the slow path: heavy imports, this once).

    Raises StateError, and answers nothing, when the state dir is not the user's alone:
    the prompt would be logged where another user reads it."""
    from pathlib import Path

    from router.base import paths
    from router.serve import client, service

    target = client.target(Path(root), Path(config_file), env)
    state = target.places.state
    paths.prepare(state, state=state)
    _start_in_background(target, env)
    return service.hook_in_process(target.root, target.config_file, harness, event, raw, env)


def _start_in_background(target: "Any", env: "Mapping[str, str]") -> None:
    """Start a daemon for next time without waiting for it (a hook must not block). Two
    hooks racing here start two daemons; the second finds the first's lock and leaves.
    Starts none when the runtime directory is not the user's own (squatted)."""
    from router.base.errors import DaemonError
    from router.serve import client, launcher

    try:
        current = client.state(target)[0]
        if current in ("not-running", "died"):
            client.clean(target)
            launcher.spawn(target, env)
        elif current in ("other-version", "socket-missing"):
            launcher.respawn(target, env)
    except DaemonError:
        return


def _deadline(env: "Mapping[str, str]") -> float:
    try:
        return max(0.05, float(env.get("KROUTE_HOOK_DEADLINE", DEADLINE)))
    except ValueError:
        return DEADLINE


def _cwd(raw: bytes) -> str | None:
    """Return the working directory the hook's payload names (see `harness.decode`), or
    None."""
    from router.core.harness import decode, member

    payload = decode(raw)
    value = member(payload, "cwd") if payload else None
    return value if isinstance(value, str) and value else None
