"""What the paths that only ask a running daemon import (`--imports`): the hook
(`kroute-hook claude UserPromptSubmit`) and `kroute route TASK`, `kroute status` and
`kroute stop` with a daemon up on the demo catalog, beside `python -c pass` under the same
interpreter: the modules each imports (`python -X importtime`), how many milliseconds the
imports took, which are kroute's and which are not the standard library's, and the wall time
of each command. The figures that comments in the code once carried come from here."""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

from bench.paths import REPOSITORY
from bench.suite.hooks import PROMPT, demo
from router.serve import launcher

RUNS = 10  # of each command, in turn
# What the daemon-only paths leave out, each named by a comment in router/ that says why:
# each is imported alone and timed, so that the comments need not carry the figures.
AVOIDED = (
    "__future__",
    "typing",
    "dataclasses",
    "re",
    "json",
    "pathlib",
    "socket",
    "threading",
    "hashlib",
    "subprocess",
    "signal",
    "click",
    "router.runtime.engine",
)
SLOWEST = 6  # modules beyond `python -c pass` named per command, by cumulative time
HEADER = "import time: self [us] | cumulative | imported package"


@dataclass(frozen=True, slots=True)
class Imported:
    """One command's imports, as `python -X importtime` reports them."""

    modules: dict[str, tuple[int, int]]  # name -> (self, cumulative) microseconds
    exit: int

    @property
    def micros(self) -> int:
        """Return the microseconds every import took, each counted once (self times)."""
        return sum(own for own, _ in self.modules.values())


def parse(report: str) -> dict[str, tuple[int, int]]:
    """Return the modules of a `-X importtime` report on stderr: name -> (self, cumulative)
    microseconds; lines that are not the report's are left out."""
    out: dict[str, tuple[int, int]] = {}
    for line in report.splitlines():
        if not line.startswith("import time:") or line == HEADER:
            continue
        own, cumulative, name = line.removeprefix("import time:").split("|")
        out[name.strip()] = (int(own), int(cumulative))
    return out


def imported(command: list[str], data: bytes, env: dict[str, str], cwd: Path) -> Imported:
    """Run `command` under `python -X importtime` (its first element a Python script or
    `-c`) and return what it imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *command],
        input=data,
        env=env,
        cwd=cwd,
        capture_output=True,
    )
    return Imported(parse(done.stderr.decode("utf-8", "replace")), done.returncode)


def wall(command: list[str], data: bytes, env: dict[str, str], cwd: Path) -> float:
    """Return the seconds `command` (run by this interpreter) took, start to exit."""
    began = time.perf_counter()
    subprocess.run([sys.executable, *command], input=data, env=env, cwd=cwd, capture_output=True)
    return time.perf_counter() - began


def commands(root: Path) -> dict[str, tuple[list[str], bytes]]:
    """Return, by label, each command measured and what it reads on stdin."""
    bin_dir = Path(sys.executable).parent
    hook = json.dumps({**PROMPT, "cwd": str(root)}).encode()
    kroute = str(bin_dir / "kroute")
    return {
        "`python -c pass`": (["-c", "pass"], b""),
        "hook: `kroute-hook claude UserPromptSubmit`": (
            [str(bin_dir / "kroute-hook"), "claude", "UserPromptSubmit"],
            hook,
        ),
        "`kroute route TASK`": ([kroute, "route", PROMPT["prompt"]], b""),
        "`kroute status`": ([kroute, "status"], b""),
        "`kroute stop`": ([kroute, "stop"], b""),
    }


def bench_imports(workdir: Path, runs: int = RUNS) -> str:
    """Return the imports table: per command its wall time, the milliseconds its imports
    took and the modules it imports beyond `python -c pass` (kroute's, and those outside
    the standard library), with a daemon up on the demo catalog (one started again before
    each `kroute stop`)."""
    root, target, env = demo(workdir)
    env.pop("KROUTE_CONFIG", None)  # the daemon-only paths need the config found from cwd
    work = commands(root)
    seen: dict[str, list[Imported]] = {label: [] for label in work}
    walls: dict[str, list[float]] = {label: [] for label in work}
    launcher.ensure(target, env)
    try:
        for _ in range(runs):  # in turn, so that the machine's drift falls on all alike
            for label, (command, data) in work.items():
                launcher.ensure(target, env)  # `kroute stop` ended it
                walls[label].append(wall(command, data, env, root))
                launcher.ensure(target, env)
                seen[label].append(imported(command, data, env, root))
    finally:
        launcher.stop(target)
    return imports_table(seen, walls) + "\n\n" + avoided_table(env, root, runs)


def outside(name: str) -> bool:
    """Return whether module `name` was found outside the standard library (a name tried
    and not found, as `wire` tries `_sha2` before `_sha256`, is not)."""
    top = name.split(".")[0]
    if top in sys.stdlib_module_names or top in sys.builtin_module_names:
        return False
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    if spec is None or spec.origin in (None, "built-in", "frozen"):
        return False
    folders = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib")}
    return not any(spec.origin.startswith(folder + os.sep) for folder in folders)


def imports_table(seen: dict[str, list[Imported]], walls: dict[str, list[float]]) -> str:
    """Return the table of what each command imported (`seen`, every run) and took (`walls`,
    seconds), and its slowest modules beyond `python -c pass`."""
    base_label = next(iter(seen))
    base = set(seen[base_label][0].modules)
    lines = [
        f"Imports with a daemon up on the demo catalog ({len(walls[base_label])} runs each, in "
        f"turn; load {os.getloadavg()[0]:.1f}; this interpreter: {sys.executable})",
        "| command | wall p50 (ms) | imports p50 (ms) | modules | beyond `python -c pass` "
        "| of them kroute's | outside the standard library | exit |",
        "|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    slowest = []
    for label, runs in seen.items():
        last = runs[-1].modules
        beyond = [name for name in last if name not in base]
        own = [name for name in beyond if name.split(".")[0] == "router"]
        foreign = sorted({n.split(".")[0] for n in beyond if outside(n)} - {"router"})
        millis = statistics.median(run.micros for run in runs) / 1000
        lines.append(
            f"| {label} | {statistics.median(walls[label]) * 1000:.1f} | {millis:.1f} "
            f"| {len(last)} | {len(beyond)} | {len(own)} | {', '.join(foreign) or 'none'} "
            f"| {max(run.exit for run in runs)} |"
        )
        if beyond:
            top = sorted(beyond, key=lambda name: -last[name][1])[:SLOWEST]
            named = ", ".join(f"{name} {last[name][1] / 1000:.1f}" for name in top)
            slowest.append(f"  {label}: {named}")
    if slowest:
        lines += ["", "Slowest imports beyond `python -c pass`, cumulative ms (last run):"]
        lines += slowest
    return "\n".join(lines)


def avoided_table(env: dict[str, str], cwd: Path, runs: int) -> str:
    """Return the table of what importing each AVOIDED module alone costs beyond
    `python -c pass`: its cumulative import time (median of `runs`) and the modules it
    brings."""
    # -S: no site, so that no .pth file's imports (an editable install's finder imports re
    # and pathlib) hide a module's cost; the checkout and site-packages come by PYTHONPATH.
    bare = {
        **env,
        "PYTHONPATH": os.pathsep.join([str(REPOSITORY), sysconfig.get_paths()["purelib"]]),
    }
    base = set(imported(["-S", "-c", "pass"], b"", bare, cwd).modules)
    lines = [
        "What the daemon-only paths leave out: each module imported alone (`python -S -c "
        f"'import X'`), beyond `python -S -c pass` ({runs} runs each, median)",
        "| module | import, cumulative (ms) | modules it brings |",
        "|---|---:|---:|",
    ]
    for module in AVOIDED:
        command = ["-S", "-c", f"import {module}"]
        reports = [imported(command, b"", bare, cwd) for _ in range(runs)]
        brought = [name for name in reports[-1].modules if name not in base]
        spent = statistics.median(
            sum(r.modules[name][0] for name in brought if name in r.modules) for r in reports
        )
        lines.append(f"| {module} | {spent / 1000:.1f} | {len(brought)} |")
    return "\n".join(lines)
