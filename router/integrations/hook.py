"""The `kroute-hook` script (DESIGN 11): one hook event, answered within its deadline.

Standard library only, so a hook starts in milliseconds. It asks the daemon, telling it the
time left before the deadline. When none answers, the first thing it does is start one,
detached (no engine imported); then it waits for that daemon, or for one still loading its
catalog, within the budget the harness gives the hook (KROUTE_HOOK_BUDGET, which `kroute
install` writes), and prints its answer when the load ends in time. A session's start does
not wait: it starts the daemon, which loads while the person types. A daemon that answered
(a payload over its cap) or took the request and ran out of time is never asked again: the
hook prints nothing. Every failure prints nothing and exits 0: a hook never harms the agent.
"""

import _thread
import os
import sys
import time

from router import __version__
from router.base.errors import DaemonError
from router.client import locate, wire

# Not typing's: importing typing costs every hook process time (`bench.py --imports`; mypy
# and ruff go by the name). The fast path (a daemon answers) imports nothing else: no
# pathlib, socket, json, re, threading or harness, each paid by every prompt
# (`router.client.locate`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

DEADLINE = 1.0  # seconds a hook may take before it gives up, silently
DEADLINE_ENV = "KROUTE_HOOK_DEADLINE"
# The seconds the harness lets the hook run, less a margin (`kroute install` writes it): what
# a hook may spend waiting for a daemon that starts or loads. Unset, it waits no longer than
# its deadline.
BUDGET_ENV = "KROUTE_HOOK_BUDGET"
# Events that open a session: their hook starts the daemon and waits no longer than its
# deadline, so that the catalog loads while the person types the first prompt. A read
# (PostToolUse) is only logged: the agent never waits on a catalog that loads for it.
NO_WAIT = frozenset({"SessionStart", "PostToolUse"})
RESTART = 409  # a daemon of another version: it is replaced, and this hook waits for that
LOADING = 503  # a daemon still loading its catalog: this hook waits for it, within budget
ABSENT = 0  # no daemon answered: none listens, or not as a daemon would
POLL = 0.05  # seconds between two asks of a daemon that is starting or loading
# The longest a hook stays past its deadline to start a daemon it found missing (a busy
# machine can take that long to fork one), within the harnesses' timeouts kroute writes.
SPAWN_WAIT = 3.0
MAX_SECONDS = 600.0  # the longest deadline or budget read: the harnesses' own longest default
MIN_WAIT = 0.01  # seconds: a daemon found this late is still asked, briefly


class Window:
    """The two deadlines of one hook, on the monotonic clock: `until` for an answer from a
    running daemon, `longest` for one from a daemon that starts or loads (the budget). The
    hook keeps to `until` while it reads its payload (`opened` says when that is done), since
    a harness that never closes stdin must not cost it the budget; `waking` holds until it
    knows a daemon runs, or has started one."""

    __slots__ = ("longest", "opened", "until", "waking")

    def __init__(self, until: float, longest: float) -> None:
        self.until = until
        self.longest = max(until, longest)
        self.opened = False
        self.waking = True


def window(event: str, env: "Mapping[str, str]", now: float | None = None) -> Window:
    """Return the deadlines of a hook for `event` starting `now` (default: now), from its
    environment (DEADLINE_ENV, BUDGET_ENV)."""
    now = time.monotonic() if now is None else now
    deadline = _seconds(env, DEADLINE_ENV, DEADLINE)
    budget = 0.0 if event in NO_WAIT else _seconds(env, BUDGET_ENV, 0.0)
    return Window(now + deadline, now + budget)


def main(argv: list[str] | None = None) -> int:
    """Run one hook: `kroute-hook <harness> <event>` with the payload on stdin. Prints what
    the harness must see, or nothing; always returns 0, within the deadline (within the
    budget once it waits for a daemon that starts or loads)."""
    args = sys.argv[1:] if argv is None else argv
    if os.environ.get("KROUTE_SKIP") == "1" or len(args) != 2:
        return 0
    harness, event = args
    began = time.monotonic()
    times = window(event, os.environ, began)
    done = _thread.allocate_lock()
    done.acquire()
    out: list[str] = []

    def work() -> None:
        try:
            raw = sys.stdin.buffer.read()
            times.opened = True
            out.append(answer(harness, event, raw, os.environ, times))
        except BaseException:  # a hook fails open, whatever went wrong
            pass
        finally:
            done.release()

    # The work runs aside so that a harness that never closes stdin, or anything else that
    # blocks, costs at most the deadline; past the payload, every step keeps to the window.
    _thread.start_new_thread(work, ())
    finished = done.acquire(timeout=times.until - began)
    # a daemon not yet started is started whatever the deadline: else a busy machine never
    # gets one, and every prompt after pays the same
    while not finished and times.opened and times.waking:
        if time.monotonic() >= began + SPAWN_WAIT:
            break
        finished = done.acquire(timeout=POLL)
    if not finished and times.opened:
        finished = done.acquire(timeout=max(0.0, times.longest - time.monotonic()))
    if finished and out and out[0]:
        try:
            sys.stdout.write(out[0])
            sys.stdout.flush()
        except OSError:
            pass
    return 0


def answer(
    harness: str,
    event: str,
    raw: bytes,
    env: "Mapping[str, str]",
    times: Window | None = None,
) -> str:
    """Return what the hook prints: the daemon's answer. When none answers, one is started
    first (detached), and waited for within `times.longest`, as is a daemon still loading;
    when none can be started, the answer is made in process. A daemon that answers anything
    else, or nothing by `times.until`, gets "" (nothing printed): it is never asked again."""
    times = window(event, env) if times is None else times
    # The payload is read only for its working directory, which CLAUDE_PROJECT_DIR overrides:
    # with it set, the fast path decodes no JSON.
    start = env.get("CLAUDE_PROJECT_DIR") or _cwd(raw) or os.getcwd()
    found = locate.find_config(start)
    if found is None:
        return ""
    root, config_file = os.path.realpath(os.path.dirname(found)), os.path.realpath(found)
    endpoint = f"{wire.HOOK_PREFIX}{harness}/{event}?mode={env.get('KROUTE_MODE', 'live')}"
    try:
        status, body = ask(root, config_file, endpoint, raw, env, times.until)
    except DaemonError:  # the socket or its serving process is not the user's own
        return _in_process(root, config_file, harness, event, raw, env)
    except TimeoutError:
        return ""  # it took the request and stops at the same deadline: asking again is more work
    except (OSError, ValueError):
        status, body = ABSENT, b""
    if status in (ABSENT, RESTART):
        # the daemon first, before anything that takes time, so that it outlives this hook
        woken = wake(root, config_file, env)
        times.waking = False
        if not woken:
            return _in_process(root, config_file, harness, event, raw, env)
    elif status == 200:
        return body.decode("utf-8")
    elif status != LOADING:
        return ""  # over the body cap (413): its answer stands
    return _await(root, config_file, endpoint, raw, env, times.longest)


def _await(
    root: str, config_file: str, endpoint: str, raw: bytes, env: "Mapping[str, str]", until: float
) -> str:
    """Return the answer of a daemon that starts or loads, asked again every POLL seconds
    until `until`: "" when it has not answered by then, or answers anything but 200 once
    it no longer starts or loads."""
    while time.monotonic() + POLL < until:
        time.sleep(POLL)
        try:
            status, body = ask(root, config_file, endpoint, raw, env, until)
        except (DaemonError, TimeoutError):
            return ""
        except (OSError, ValueError):
            continue  # not listening yet, or the daemon being replaced
        if status == 200:
            return body.decode("utf-8")
        if status not in (LOADING, RESTART):
            return ""
    return ""


def ask(
    root: str, config_file: str, endpoint: str, raw: bytes, env: "Mapping[str, str]", until: float
) -> tuple[int, bytes]:
    """Return the status and body of the daemon's answer to POST `endpoint` with `raw`,
    once its socket and the process serving it are known to be the user's own.

    Raises DaemonError (nothing sent) when they are not, TimeoutError when the daemon does
    not answer by `until`, another OSError when none listens, ValueError for a reply that is
    not HTTP."""
    address = locate.socket(root, config_file, env, os.geteuid())
    left = max(MIN_WAIT, until - time.monotonic())
    sent = wire.request("POST", endpoint, raw, __version__, "socket", wire.granted(left))
    return wire.exchange(address, sent, time.monotonic() + left)


def _in_process(
    root: str, config_file: str, harness: str, event: str, raw: bytes, env: "Mapping[str, str]"
) -> str:
    """Return the answer made in this process (heavy imports), for when no daemon can serve:
    the runtime directory is not the user's own.

    Raises StateError, and answers nothing, when the state dir is not the user's alone:
    the prompt would be logged where another user reads it."""
    from pathlib import Path

    from router import client
    from router.client import trust
    from router.serve import service

    target = client.target(Path(root), Path(config_file), env)
    state = target.places.state
    trust.prepare(state, state=state)
    return service.hook_in_process(target.root, target.config_file, harness, event, raw, env)


def wake(root: str, config_file: str, env: "Mapping[str, str]") -> bool:
    """Start the repository's daemon detached, without waiting for it and without importing
    the engine, unless one is starting already; replace one of another version. Returns
    whether one runs or starts now (False: the runtime directory is not the user's own, or
    the spawn failed). Two hooks racing here may start two; the second finds the first and
    leaves."""
    from pathlib import Path

    from router import client
    from router.base.errors import KrouteError
    from router.serve import launcher

    target = client.target(Path(root), Path(config_file), env)
    try:
        current = client.state(target)[0]
        if current in ("other-version", "socket-missing"):
            launcher.respawn(target, env)
        elif current in ("not-running", "died") and not launcher.starting(target):
            client.clean(target)
            launcher.spawn(target, env)
    except (KrouteError, OSError):
        return False
    return True


def _seconds(env: "Mapping[str, str]", name: str, default: float) -> float:
    """Return the seconds the variable `name` sets (0.05 to MAX_SECONDS), `default` when it
    is unset or not a number."""
    try:
        value = float(env.get(name, default))
    except ValueError:
        return default
    return min(MAX_SECONDS, max(0.05, value)) if value == value else default  # NaN: unset


def _cwd(raw: bytes) -> str | None:
    """Return the working directory the hook's payload names (see `router.client.payload`), or
    None."""
    from router.client.payload import decode, member

    payload = decode(raw)
    value = member(payload, "cwd") if payload else None
    return value if isinstance(value, str) and value else None
