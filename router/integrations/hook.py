"""The `kroute-hook` console script (DESIGN 11): one hook event, answered within its deadline.

Standard library only, so a hook starts in milliseconds. It asks the daemon, telling it the
time left before the deadline; when none answers it starts one in the background and answers
in process this once. A daemon that answered (still loading, a payload over its cap) or
took the request and ran out of time is never asked again, nor is the hook answered in
process: it prints nothing. Every failure prints nothing and exits 0: a hook never harms the
agent.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from router.base import protocol

# Not typing's: importing typing costs every hook process some 3 ms (mypy and ruff go by the
# name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEADLINE = 1.0  # seconds a hook may take before it gives up, silently
RESTART = 409  # a daemon of another version: it is replaced, and this hook answered here
MIN_WAIT = 0.01  # seconds: a daemon found this late is still asked, briefly


def main(argv: list[str] | None = None) -> int:
    """Run one hook: `kroute-hook <harness> <event>` with the payload on stdin. Prints what
    the harness must see, or nothing; always returns 0, within the deadline."""
    args = sys.argv[1:] if argv is None else argv
    if os.environ.get("KROUTE_SKIP") == "1" or len(args) != 2:
        return 0
    harness, event = args
    deadline = _deadline(os.environ)
    until = time.monotonic() + deadline
    done = threading.Event()
    out: list[str] = []

    def work() -> None:
        try:
            out.append(answer(harness, event, sys.stdin.buffer.read(), os.environ, until))
        except BaseException:  # a hook fails open, whatever went wrong
            pass
        finally:
            done.set()

    threading.Thread(target=work, daemon=True).start()
    if done.wait(deadline) and out and out[0]:
        try:
            sys.stdout.write(out[0])
            sys.stdout.flush()
        except OSError:
            pass
    return 0


def answer(
    harness: str, event: str, raw: bytes, env: Mapping[str, str], until: float | None = None
) -> str:
    """Return what the hook prints: the daemon's answer, else (starting a daemon in the
    background for next time, unless the runtime directory is not the user's) the in-process
    one. `until` is the hook's deadline on the monotonic clock (default: its deadline from
    now); what is left of it is the daemon's. A daemon that answers anything but 200 or 409,
    or nothing in time, gets "" (nothing printed)."""
    from router.serve import client

    # The payload is read only for its working directory, which CLAUDE_PROJECT_DIR overrides:
    # with it set, the fast path imports no harness (its regular expressions, unicodedata).
    target = locate(None if env.get("CLAUDE_PROJECT_DIR") else _payload(raw), env)
    if target is None:
        return ""
    # Straight to the socket: `call` refuses one that is not the user's own before it sends
    # a byte, and what went wrong is worked out only when no daemon answered.
    try:
        endpoint = f"/v1/hook/{harness}/{event}?mode={env.get('KROUTE_MODE', 'live')}"
        left = _deadline(env) if until is None else until - time.monotonic()
        reply = client.call(target, "POST", endpoint, raw, timeout=max(MIN_WAIT, left))
        if reply.status == 200:
            return reply.body.decode("utf-8")
        if reply.status != RESTART:
            return ""  # loading (503), over the body cap (413): its answer stands
    except client.Unanswered:
        return ""  # it stops at the same deadline: asking again, here, is more work
    except Exception:
        pass
    _start_in_background(target, env)
    from router.serve import service  # the in-process path: heavy imports, this once

    return service.hook_in_process(target.root, target.config_file, harness, event, raw, env)


def locate(payload: Mapping[str, Any] | None, env: Mapping[str, str]) -> Any:
    """Return the daemon target for the repository the hook runs in, or None when there is
    no kroute.toml above the project directory."""
    from router.serve import client

    start = env.get("CLAUDE_PROJECT_DIR") or (payload and _cwd(payload)) or os.getcwd()
    found = protocol.find_config(Path(start))
    if found is None:
        return None
    return client.target(found.parent.resolve(), found.resolve(), env)


def _start_in_background(target: Any, env: Mapping[str, str]) -> None:
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


def _deadline(env: Mapping[str, str]) -> float:
    try:
        return max(0.05, float(env.get("KROUTE_HOOK_DEADLINE", DEADLINE)))
    except ValueError:
        return DEADLINE


def _payload(raw: bytes) -> dict[str, Any] | None:
    """Return the hook's payload decoded (see `harness.decode`), or None."""
    from router.core.harness import decode

    return decode(raw)


def _cwd(payload: Mapping[str, Any]) -> str | None:
    """Return the payload's working directory, or None when it names none."""
    from router.core.harness import member

    value = member(payload, "cwd")
    return value if isinstance(value, str) and value else None
