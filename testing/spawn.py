"""Which test started a process: an audit hook sees every process the test run starts (through
subprocess, os.fork, os.posix_spawn, os.exec*, os.system), whichever thread starts it, and
tells it to the test that runs then. tests/conftest.py fails a test that started one and is
not marked `process`, so that `pytest -m "not process"` stays the quick loop."""

from __future__ import annotations

import sys
from typing import Any

MARKER = "process"
# the audit events raised before a process starts (os.exec* and os.spawn* raise os.exec and
# os.spawn; subprocess.Popen and the asyncio subprocesses raise subprocess.Popen)
STARTS = frozenset(
    {"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.exec",
     "os.system", "pty.spawn"}
)  # fmt: skip


class Watch:
    """The test running now, and the first process each test started (by node id)."""

    def __init__(self) -> None:
        self.test: str | None = None
        self.started: dict[str, str] = {}

    def hear(self, event: str, args: tuple[Any, ...]) -> None:
        """Note the first process the running test starts (an audit hook: never raises)."""
        if event in STARTS and self.test is not None and self.test not in self.started:
            self.started[self.test] = f"{event} {_program(event, args)}".strip()


def _program(event: str, args: tuple[Any, ...]) -> str:
    try:
        if event == "subprocess.Popen":
            argv = args[1]
            return str(argv[0] if isinstance(argv, (list, tuple)) else argv)
        if event in ("os.exec", "os.posix_spawn", "os.spawn", "os.system"):
            return str(args[0] if event == "os.system" else args[1])
    except (IndexError, TypeError):
        pass
    return ""


def watch() -> Watch:
    """Return a Watch that hears every process started from now on (an audit hook cannot be
    removed: call this once per test run)."""
    heard = Watch()
    sys.addaudithook(heard.hear)
    return heard
