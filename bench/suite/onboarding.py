"""A new user's first minutes (issue 35), for `bench.py --onboarding`: the README's first
command run as written in a copy of this checkout (a fresh venv, pip's cache off, as on a
fresh machine), with its wall time, the size of the environment it made and the packages in
it; and the time `kroute mcp` takes to answer `initialize` to the official SDK's client,
spawn to answer, in turn with another checkout's server (`--against`) when one is given, in
the same slices of the machine. Figures, not assertions.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.paths import DEMO, REPOSITORY

# What the first command must not install: the test, lint and type tools, and the extras.
DEVELOPER_ONLY = ("pytest", "hypothesis", "ruff", "mypy", "mcp", "onnxruntime", "tokenizers")


def first_command(readme: Path) -> str:
    """Return the first line of the README's first shell block."""
    lines = readme.read_text(encoding="utf-8").splitlines()
    start = lines.index("```sh") + 1
    return lines[start]


def quickstart(workdir: Path) -> dict[str, Any]:
    """Run the README's first command in a copy of the checkout's tracked and new files;
    return its wall time, exit code, the venv's size and its packages."""
    target = workdir / "quickstart"
    shutil.rmtree(target, ignore_errors=True)
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    for name in listed:
        source = REPOSITORY / name
        if source.is_symlink() or source.is_file():  # router/data/hooks is a symlink
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name, follow_symlinks=False)
    command = first_command(target / "README.md")
    home = Path(tempfile.mkdtemp(prefix="kroute-quickstart-home-"))
    env = {**os.environ, "PIP_NO_CACHE_DIR": "1", "KROUTE_HOME": str(home)}
    env.pop("VIRTUAL_ENV", None)
    began = time.monotonic()
    done = subprocess.run(["sh", "-c", command], cwd=target, env=env, capture_output=True)
    seconds = time.monotonic() - began
    venv = target / ".venv"
    size = sum(p.stat().st_size for p in venv.rglob("*") if p.is_file() and not p.is_symlink())
    listing = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
        capture_output=True,
        text=True,
    ).stdout.split()
    packages = sorted(line.split("==")[0].lower() for line in listing)
    running = subprocess.run(
        [str(venv / "bin" / "kroute"), "status", "--catalog", "fixtures/catalogs/demo"],
        cwd=target,
        env=env,
        capture_output=True,
        text=True,
    )
    return {
        "command": command,
        "seconds": seconds,
        "exit": done.returncode,
        "pointers": done.stdout.decode("utf-8", "replace").count("\u2014"),
        "venv_mb": size / 1e6,
        "packages": packages,
        "developer_only": [p for p in packages if p in DEVELOPER_ONLY],
        "daemon_left": running.returncode == 0,
    }


def initialize_times(checkouts: list[Path], runs: int, workdir: Path) -> dict[str, list[float]]:
    """Return, per checkout, the seconds from spawning its `kroute mcp` (this interpreter,
    the checkout first on the path) to the answer to `initialize`, `runs` times, in turn."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    repo = workdir / "mcp-demo"
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(DEMO, repo)

    async def once(checkout: Path) -> float:
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "router", "mcp"], cwd=repo, env=env
        )
        began = time.monotonic()
        with open(os.devnull, "w") as quiet:
            async with (
                stdio_client(server, errlog=quiet) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return time.monotonic() - began

    times: dict[str, list[float]] = {str(c): [] for c in checkouts}
    for _ in range(runs):
        for checkout in checkouts:
            times[str(checkout)].append(anyio.run(once, checkout))
    return times


def bench(workdir: Path, against: Path | None, runs: int) -> str:
    """Return the onboarding table."""
    load = os.getloadavg()[0]
    first = quickstart(workdir)
    lines = [
        f"README's first command (load {load:.1f} before it):",
        f"  {first['command']}",
        f"  exit {first['exit']}, {first['pointers']} pointers, {first['seconds']:.1f} s, "
        f"venv {first['venv_mb']:.0f} MB, {len(first['packages'])} packages: "
        f"{', '.join(first['packages'])}",
        f"  test/lint/type tools or extras installed: {first['developer_only'] or 'none'}; "
        f"daemon left running: {'yes' if first['daemon_left'] else 'no'}",
    ]
    checkouts = [REPOSITORY] + ([against.resolve()] if against else [])
    times = initialize_times(checkouts, runs, workdir)
    lines.append(
        f"kroute mcp, spawn to initialize answered ({runs} runs, in turn; load "
        f"{os.getloadavg()[0]:.1f} after):"
    )
    for checkout, seconds in times.items():
        lines.append(
            f"  {checkout}: median {statistics.median(seconds):.2f} s, "
            f"min {min(seconds):.2f}, max {max(seconds):.2f}"
        )
    return "\n".join(lines)
