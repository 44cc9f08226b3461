"""The hooks end to end on the demo catalog (`--hooks`), beside a bare curl round trip: the
shell shim's fast path, `kroute-hook` with a daemon and its slow path, and the CLI's
`route`, `status`, `stop` and `--help` of a regular install beside `python -c pass`."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench import install
from bench.paths import DEMO, HOOKS, REPOSITORY
from bench.probe import curl, percentile
from router import __version__, client
from router.catalog import config
from router.serve import launcher

PROMPT = {
    "session_id": "bench",
    "hook_event_name": "UserPromptSubmit",
    "prompt": "the webhook signing key leaked, rotate it today",
}
HOOK_VENV = "hook-venv"
WARM_UP = 5
RATIOS = (
    ("regular", "bare", "kroute-hook (regular install) / bare curl"),
    ("help", "python", "`kroute --help` / `python -c pass`"),
    ("route", "python", "`kroute route TASK` / `python -c pass`"),
    ("status", "python", "`kroute status` / `python -c pass`"),
    ("stop", "python", "`kroute stop` / `python -c pass`"),
)
ROWS = (
    ("bare", "bare curl round trip, GET /v1/status"),
    ("installed", "hook shim as `kroute install claude` writes it (socket known)"),
    ("fast", "hook shim finding the socket itself (user-scope install)"),
    ("with_daemon", "kroute-hook with a running daemon (this editable dev install)"),
    ("regular", "kroute-hook with a running daemon (a regular install)"),
    ("slow", "kroute-hook slow path (in process, starts a daemon)"),
    ("python", "`python -c pass` (the regular install's interpreter)"),
    ("help", "`kroute --help` (a regular install)"),
    ("route", "`kroute route TASK` with a running daemon (a regular install)"),
    ("status", "`kroute status` with a running daemon (a regular install)"),
    ("stop", "`kroute stop` of a running daemon (a regular install)"),
)


def timed(command: list[str], data: bytes, env: dict[str, str], cwd: Path) -> float:
    """Return the seconds `command` took with `data` on its stdin; raise CalledProcessError
    when it failed."""
    began = time.perf_counter()
    subprocess.run(command, input=data, env=env, cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - began


def settle(target: client.Target, seconds: float = 10.0) -> None:
    """Wait until a daemon a hook started in the background is up (or none is coming), so
    that stopping it does not race its start."""
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        if client.state(target)[0] == "running":
            return
        time.sleep(0.05)


def installed_hook(workdir: Path) -> tuple[Path | None, str]:
    """Return `kroute-hook` as a user's regular install has it (this checkout installed,
    not editable, with its dependencies, into a venv of its own under `workdir`) and a line
    saying what was done; (None, why) when it could not be made. `kroute` is beside it.

    The suite's venv holds an editable install, whose import finder makes every Python
    start under it import pathlib, re and importlib.util before the hook runs (the imports
    suite shows what that costs)."""
    venv = workdir / HOOK_VENV
    why = install.venv(venv, str(REPOSITORY))
    if why is not None:
        return None, f"hooks: no regular install in {venv} ({why})"
    return venv / "bin" / "kroute-hook", f"hooks: installed this checkout into {venv}"


def demo(workdir: Path) -> tuple[Path, client.Target, dict[str, str]]:
    """Return a fresh copy of the demo catalog under `workdir`, its daemon's target and the
    environment its hooks run in."""
    root = workdir / "demo"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(DEMO, root)
    cfg = config.load(root / "kroute.toml")
    env = dict(os.environ)
    env.update(
        CLAUDE_PROJECT_DIR=str(root),
        KROUTE_HOOK_BIN=str(Path(sys.executable).with_name("kroute-hook")),
        KROUTE_VERSION=__version__,
    )
    return root, client.target(cfg.root, cfg.file, env), env


def bench_hooks(workdir: Path, runs: int = 30) -> str:
    """Return a table of end-to-end hook latency on the demo catalog: the shell shim's fast
    path (curl to a running daemon), `kroute-hook` with a daemon, and its slow path (no
    daemon: it answers in process and starts one), against a bare curl round trip."""
    root, target, env = demo(workdir)
    data = json.dumps({**PROMPT, "cwd": str(root)}).encode()
    user_hook, said = installed_hook(workdir)
    print(said, file=sys.stderr, flush=True)
    hook_bin = [env["KROUTE_HOOK_BIN"], "claude", "UserPromptSubmit"]
    slow = []
    for _ in range(max(5, runs // 3)):
        settle(target)
        launcher.stop(target)
        slow.append(timed(hook_bin, data, env, root))
    settle(target)  # the slow path starts a daemon in the background: let it come up first
    launcher.stop(target)
    launcher.ensure(target, env)  # a daemon the slow path started may come up meanwhile
    commands = each_command(root, target, env, data, user_hook)
    times: dict[str, list[float]] = {name: [] for name in commands}
    shim = [str(HOOKS / "claude" / "user-prompt-submit")]
    try:
        for _ in range(WARM_UP):
            timed(shim, data, env, root)
        # Each round times every command once, in turn, so that the machine's drift falls on
        # all of them alike and their ratios hold.
        for _ in range(runs):
            for name, command in commands.items():
                times[name].append(command())
        if user_hook is not None:  # `kroute stop` ends the daemon: one started for each
            stop = [str(user_hook.with_name("kroute")), "stop"]
            for _ in range(max(5, runs // 3)):
                launcher.ensure(target, env)
                times.setdefault("stop", []).append(timed(stop, b"", env, root))
    finally:
        launcher.stop(target)
    return hooks_table({**times, "slow": slow})


def each_command(
    root: Path, target: client.Target, env: dict[str, str], data: bytes, user_hook: Path | None
) -> dict[str, Callable[[], float]]:
    """Return, by name, each command the hooks table times, as a call that runs it once and
    returns its seconds (a regular install's only when `user_hook` is one)."""
    baked = {**env, "KROUTE_SOCKET": str(target.places.socket)}
    shim = [str(HOOKS / "claude" / "user-prompt-submit")]
    hook_bin = [env["KROUTE_HOOK_BIN"], "claude", "UserPromptSubmit"]
    commands: dict[str, Callable[[], float]] = {
        "bare": lambda: curl(target.places.socket, "/v1/status"),
        "installed": lambda: timed(shim, data, baked, root),
        "fast": lambda: timed(shim, data, env, root),
        "with_daemon": lambda: timed(hook_bin, data, env, root),
    }
    if user_hook is None:
        return commands
    regular_python = str(user_hook.with_name("python"))
    kroute = str(user_hook.with_name("kroute"))
    return commands | {
        "regular": lambda: timed([str(user_hook), *hook_bin[1:]], data, env, root),
        "python": lambda: timed([regular_python, "-c", "pass"], b"", env, root),
        "help": lambda: timed([kroute, "--help"], b"", env, root),
        "route": lambda: timed([kroute, "route", PROMPT["prompt"]], b"", env, root),
        "status": lambda: timed([kroute, "status"], b"", env, root),
    }


def hooks_table(times: dict[str, list[float]]) -> str:
    """Return the hooks table of `times` (seconds by command name) and its ratios; a command
    not timed (no regular install could be made, said on stderr) has no row."""
    lines = ["| hook on the demo catalog | p50 (ms) | p90 (ms) |", "|---|---:|---:|"]
    for name, label in ROWS:
        values = times.get(name)
        if values:
            lines.append(
                f"| {label} | {statistics.median(values) * 1000:.1f} | "
                f"{percentile(values, 0.9) * 1000:.1f} |"
            )
    for over, under, said in RATIOS:
        if times.get(over) and times.get(under):
            ratio = statistics.median(times[over]) / statistics.median(times[under])
            lines.append(f"\n{said}, p50: {ratio:.2f}x")
    return "\n".join(lines)
