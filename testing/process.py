"""The real programs a test runs as processes: the `kroute` script of this environment, git,
and a fresh interpreter that says what importing a module loads."""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

HEAVY_MODULES = ("click", "watchfiles", "yaml", "orjson", "asyncio")


def kroute(
    *args: str, cwd: Path | None = None, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real `kroute` console script of this environment and return what it did."""
    exe = Path(sys.executable).with_name("kroute")
    return run([str(exe), *args], cwd=cwd, env={**os.environ, **(env or {})}, stdin=stdin)


def run(
    args: list[str], *, cwd: Path | None, env: dict[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `args` in `cwd` with exactly the environment `env`, `stdin` on its standard input,
    text in and out (UTF-8); return what it did."""
    return subprocess.run(
        args,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )


def git(repo: Path, *args: str) -> None:
    """Run git in `repo` as a test author; raise CalledProcessError when it fails."""
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        timeout=120,
    )


def script_imports(script: Path) -> set[str | None]:
    """Return the modules a Python script imports, read from its source (not run; None for
    a relative `from . import`)."""
    tree = ast.parse(script.read_text(encoding="utf-8"))
    return {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }


def heavy_imports(module: str) -> list[str]:
    """Return which heavy modules importing `module` pulls in, in a fresh interpreter."""
    probe = f"import sys, {module}; print(*[m for m in {HEAVY_MODULES!r} if m in sys.modules])"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    return result.stdout.split()


def stop_daemons(runtime: Path) -> None:
    """Kill every daemon left running under a runtime dir: those serving (status files) and
    those a hook spawned that are still starting (start locks)."""
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
