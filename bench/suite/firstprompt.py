"""The first prompts of a session (issue 31), for `bench.py --first-prompt`: fresh clones of a
repository holding 1,000 or 5,000 real documents (the shared corpora's Markdown files,
replicated), no daemon and no snapshot, two busy processes loading both cores. Each run
installs the hooks as `kroute install claude --local` writes them and runs them as Claude Code
does (its 5 s timeout kills a hook, whose output is then lost): SessionStart, then the first
prompt as soon as it returned (no typing time: the worst case), then the second once the
agent has answered the first (`turn` seconds later, the least an agent's answer takes); and
the two prompts alone, without SessionStart. It reports, per hook, whether it printed
pointers and how long it took, and whether a daemon process lives once the first hook has
returned. Figures, not assertions.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.paths import REPOSITORY
from router import client
from router.client import presence
from router.harnesses import printed
from router.serve import launcher

STARTER = REPOSITORY / "router" / "data" / "starter.toml"
CLAUDE_TIMEOUT = 5.0  # seconds: what `kroute install claude` writes, and Claude Code enforces
BUSY = "while True: pass"
PROMPTS = (
    "how do I set up a compose file with networks and volumes for a web service",
    "write a decision record about which message queue we pick and why",
)
TURN = 5.0  # seconds between the first prompt's hook and the second: the agent's answer
LEFT_OUT = {"README.md", "LICENSE.md", "SOURCE.md"}  # the corpora's own notes, not documents


def corpus_files(corpora: Path) -> list[Path]:
    """Return the Markdown documents of the shared corpora, in a fixed order."""
    return sorted(
        path
        for path in corpora.rglob("*.md")
        if path.name not in LEFT_OUT and path.is_file() and ".git" not in path.parts
    )


def template(workdir: Path, corpora: Path, size: int) -> Path:
    """Return a git repository of `size` real documents (the corpora's files replicated,
    each copy under a folder of its own) and the starter kroute.toml, made once under
    `workdir`."""
    repo = workdir / f"first-prompt-{size}"
    if (repo / ".git").is_dir():
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    sources = corpus_files(corpora)
    for i in range(size):
        source = sources[i % len(sources)]
        target = repo / "docs" / f"copy{i // len(sources)}" / source.relative_to(corpora)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    shutil.copyfile(STARTER, repo / "kroute.toml")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "documents"]):
        subprocess.run(
            ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", *args],
            cwd=repo,
            check=True,
            capture_output=True,
        )
    return repo


def hook_commands(clone: Path, env: dict[str, str]) -> dict[str, str]:
    """Return the Claude Code hook commands `kroute install claude --local` writes in the
    clone, by event."""
    kroute = str(Path(sys.executable).with_name("kroute"))
    subprocess.run(
        [kroute, "install", "claude", "--local"],
        cwd=clone,
        env=env,
        check=True,
        capture_output=True,
    )
    settings = json.loads((clone / ".claude" / "settings.local.json").read_text())
    return {event: groups[0]["hooks"][0]["command"] for event, groups in settings["hooks"].items()}


def run_hook(
    command: str, payload: dict[str, Any], clone: Path, env: dict[str, str]
) -> dict[str, Any]:
    """Run one hook command as Claude Code does; return how long it took and whether it
    printed pointers (a hook killed at the timeout printed nothing)."""
    began = time.monotonic()
    try:
        done = subprocess.run(
            ["sh", "-c", command],
            input=json.dumps(payload).encode(),
            capture_output=True,
            cwd=clone,
            env={**env, "CLAUDE_PROJECT_DIR": str(clone)},
            timeout=CLAUDE_TIMEOUT,
        )
        out = done.stdout.decode("utf-8", errors="replace")
    except subprocess.TimeoutExpired:
        out = ""
    return {
        "seconds": round(time.monotonic() - began, 3),
        "pointers": printed.HEADER in out,
        "printed": bool(out.strip()),
    }


def daemon_lives(target: client.Target) -> bool:
    """Return whether a daemon process of the target lives: serving, or spawned and still
    starting."""
    status = client.read_status(target) or {}
    if presence.alive(int(status.get("pid", 0))):
        return True
    return target.places.runtime.is_dir() and bool(launcher.starting(target))


def one_run(repo: Path, session_start: bool, turn: float) -> dict[str, Any]:
    """Return the figures of one run on a fresh clone of `repo` (fresh state, no daemon)."""
    scratch = Path(tempfile.mkdtemp(prefix="kroute-first-"))
    clone = scratch / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    clone = clone.resolve()
    env = {
        **os.environ,
        "KROUTE_HOME": str(scratch / "home"),
        "XDG_RUNTIME_DIR": str(scratch / "run"),
    }
    commands = hook_commands(clone, env)
    target = client.target(clone, clone / "kroute.toml", env)
    busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(2)]
    steps: list[dict[str, Any]] = []
    try:
        session = {"session_id": "bench", "cwd": str(clone)}
        events = [("SessionStart", {**session, "hook_event_name": "SessionStart"})]
        events = events if session_start else []
        for prompt in PROMPTS:
            events.append(
                (
                    "UserPromptSubmit",
                    {**session, "hook_event_name": "UserPromptSubmit", "prompt": prompt},
                )
            )
        for i, (event, payload) in enumerate(events):
            if event == "UserPromptSubmit" and i and events[i - 1][0] == event:
                time.sleep(turn)
            step = {"event": event, **run_hook(commands[event], payload, clone, env)}
            step["daemon_after"] = daemon_lives(target)
            steps.append(step)
        loaded = _load_seconds(target)
    finally:
        for process in busy:
            process.kill()
            process.wait()
        launcher.stop(target)
        shutil.rmtree(scratch, ignore_errors=True)
    return {"steps": steps, "load_seconds": loaded}


def _load_seconds(target: client.Target, wait: float = 60.0) -> float | None:
    """Return how long the daemon took to load the catalog (waiting up to `wait` seconds
    for it to finish), or None when it did not say."""
    launcher.ready(target, wait)
    try:
        document = client.call(target, "GET", "/v1/status", timeout=5.0).json()
    except Exception:  # a figure missing from the table, not a failed bench
        return None
    load = document.get("load") or {}
    return load.get("seconds")


def bench(
    workdir: Path, corpora: Path, sizes: tuple[int, ...], runs: int, turn: float = TURN
) -> str:
    """Return the table of the first prompts' runs (or why the bench was skipped)."""
    if not corpora.is_dir() or not corpus_files(corpora):
        return f"first prompt: skipped, no shared corpora at {corpora} (set KROUTE_SHARED)"
    lines = [
        "| documents | run | hooks run | first hook: daemon lives | SessionStart | prompt 1 | "
        "prompt 2 | daemon's load (s) |",
        "|---:|---:|---|---|---|---|---|---:|",
    ]
    for size in sizes:
        repo = template(workdir, corpora, size)
        for session_start in (True, False):
            for run in range(1, runs + 1):
                print(f"first prompt: {size:,} documents, run {run}", file=sys.stderr, flush=True)
                figures = one_run(repo, session_start, turn)
                steps = figures["steps"]
                prompts = [_cell(s) for s in steps if s["event"] == "UserPromptSubmit"]
                start = _cell(steps[0]) if session_start else "(not run)"
                load = figures["load_seconds"]
                which = "SessionStart, prompts" if session_start else "prompts"
                lines.append(
                    f"| {size:,} | {run} | {which} "
                    f"| {'yes' if steps[0]['daemon_after'] else 'NO'} | {start} | {prompts[0]} "
                    f"| {prompts[1]} | {'?' if load is None else f'{load:.2f}'} |"
                )
    lines.append(
        "\nEach cell: pointers printed (or not) and the hook's seconds, under two busy "
        f"processes; a hook is killed at Claude Code's {CLAUDE_TIMEOUT:g} s. The second "
        f"prompt comes {turn:g} s after the first returned."
    )
    return "\n".join(lines)


def _cell(step: dict[str, Any]) -> str:
    said = "pointers" if step["pointers"] else ("printed" if step["printed"] else "nothing")
    return f"{said}, {step['seconds']:.2f} s"
