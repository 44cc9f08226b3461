"""Shared test fixtures: an isolated KROUTE_HOME, and paths to fixtures and corpora."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
DEMO = FIXTURES / "catalogs" / "demo"
# The shared corpora sit beside the checkout (../shared); KROUTE_SHARED overrides.
SHARED = Path(os.environ.get("KROUTE_SHARED", REPO.parent / "shared"))
CORPORA = SHARED / "corpora"
# A headless Chromium, where one is installed (Debian: chromium, or chromium-headless-shell):
# the tests that render the HTML report in a real browser skip, saying so, without one.
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-headless-shell")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", help="Rewrite golden files from current output."
    )


@pytest.fixture(autouse=True)
def kroute_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Point KROUTE_HOME (state, logs, shadow) and the runtime dir at a fresh temp dir, so no
    test touches the real home; clear config and color variables."""
    home = tmp_path_factory.mktemp("kroute-home")
    monkeypatch.setenv("KROUTE_HOME", str(home))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(home / "run"))
    monkeypatch.delenv("KROUTE_CONFIG", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    yield home
    _stop_daemons(home / "run" / "kroute")


def _stop_daemons(runtime: Path) -> None:
    """Kill every daemon a test left running under its runtime dir: those serving (status
    files) and those a hook spawned that are still starting (start locks)."""
    pids = []
    for status in runtime.glob("*.json"):
        try:
            pids.append(int(json.loads(status.read_text())["pid"]))
        except (OSError, ValueError, KeyError):
            continue
    for lock in runtime.glob("*.starting"):
        try:
            pids.append(int(lock.read_text().strip()))
        except (OSError, ValueError):
            continue
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue


@pytest.fixture
def corpus() -> Iterator[Path]:
    """The shared corpora directory; a test that needs it is skipped, with the reason, when
    it is missing: a fresh clone proves the product from `fixtures/` alone."""
    if not CORPORA.is_dir():
        pytest.skip(f"shared corpora not found at {CORPORA}; set KROUTE_SHARED to read them")
    yield CORPORA


@pytest.fixture
def copy_tree(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Copy a fixture tree into a temp dir and return the copy."""

    def copy(source: Path, name: str = "repo") -> Path:
        target = tmp_path / name
        shutil.copytree(source, target)
        return target

    return copy


def kroute(
    *args: str, cwd: Path | None = None, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real `kroute` console script of this environment."""
    exe = Path(sys.executable).with_name("kroute")
    return subprocess.run(
        [str(exe), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


HEAVY_MODULES = ("click", "watchfiles", "yaml", "orjson", "asyncio")


def heavy_imports(module: str) -> list[str]:
    """Return which heavy modules importing `module` pulls in, in a fresh interpreter."""
    probe = f"import sys, {module}; print(*[m for m in {HEAVY_MODULES!r} if m in sys.modules])"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    return result.stdout.split()


T = TypeVar("T")


def within(seconds: float, call: Callable[[], T], fifos: Iterable[Path] = ()) -> T:
    """Return what `call()` returns, run in a daemon thread; fail the test when it is still
    running after `seconds` (opening `fifos` for writing first, to free a blocked reader)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as error:  # handed to the test's thread below
            box["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        for fifo in fifos:
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"still running after {seconds} s")
    if "error" in box:
        raise box["error"]
    return cast(T, box["value"])


class Countdown:
    """A stop that says go on `left` times, then stop (and counts how often it was asked)."""

    def __init__(self, left: int) -> None:
        self.left = left
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        self.left -= 1
        return self.left < 0


def eventually(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Wait for a condition reached asynchronously, such as a daemon's (not a timing
    assertion: the time is only how long to wait before giving up)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()
