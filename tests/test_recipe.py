"""The README's five-step recipe, followed literally in a new git repository: each command of
its block run as written (the install on PATH done as pipx does it: kroute's console scripts
linked into a bin directory on the PATH a harness gets), then a session of each harness run
through the hooks it committed, with the payloads Claude Code, Codex CLI and Gemini CLI send:
the first prompt gets pointers. A teammate's clone, with kroute on PATH, gets them too."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from router.integrations import install
from testing.paths import DEMO, FIXTURES, REPO
from testing.process import run
from testing.wait import eventually

pytestmark = pytest.mark.process

BIN = Path(sys.executable).parent
PAYLOADS = FIXTURES / "hook_payloads"
RECIPE_HEADING = "## Your own repository, in five steps"
# Each harness: its settings file, its session-start and prompt events, the payloads it sends,
# and the variable naming the project it sets in its hooks' environment (Codex sets none).
SESSIONS = {
    "claude": (
        ".claude/settings.json",
        ("SessionStart", "session_start.json"),
        ("UserPromptSubmit", "user_prompt_submit.json"),
        "CLAUDE_PROJECT_DIR",
    ),
    "codex": (
        ".codex/hooks.json",
        ("SessionStart", "codex_session_start.json"),
        ("UserPromptSubmit", "codex_user_prompt_submit.json"),
        None,
    ),
    "gemini": (
        ".gemini/settings.json",
        ("SessionStart", "gemini_session_start.json"),
        ("BeforeAgent", "gemini_before_agent.json"),
        "GEMINI_PROJECT_DIR",
    ),
}
PROMPTED = "docs/how-to/rotate-webhook-signing-key.md"  # what the recorded prompt is about


def recipe() -> list[str]:
    """Return the commands of the README's recipe block, comments dropped."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("```sh", lines.index(RECIPE_HEADING)) + 1
    end = lines.index("```", start)
    return [line.split("  #")[0].strip() for line in lines[start:end] if line.strip()]


def harness_env(home: Path, bin_dir: Path) -> dict[str, str]:
    """Return the environment a harness started from a desktop has: no virtualenv, a PATH
    with the tools pipx put on it."""
    keep = ("KROUTE_HOME", "XDG_RUNTIME_DIR", "LANG", "TMPDIR")
    return {
        **{k: os.environ[k] for k in keep if k in os.environ},
        "HOME": str(home),
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "GIT_AUTHOR_NAME": "Dev",
        "GIT_AUTHOR_EMAIL": "dev@example.invalid",
        "GIT_COMMITTER_NAME": "Dev",
        "GIT_COMMITTER_EMAIL": "dev@example.invalid",
    }


def follow(commands: list[str], workdir: Path, env: dict[str, str], bin_dir: Path) -> Path:
    """Run the recipe's commands as a person would; return the repository it ran in."""
    cwd = workdir
    for command in commands:
        words = shlex.split(command)
        if words[:2] in (["pipx", "install"], ["uv", "tool"]):
            bin_dir.mkdir(exist_ok=True)  # what pipx does: the console scripts, linked
            for script in ("kroute", "kroute-hook"):
                (bin_dir / script).symlink_to(BIN / script)
            continue
        if words[0] == "cd":
            cwd = workdir / words[1]
            continue
        done = run(["/bin/sh", "-c", command], cwd=cwd, env=env)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    return cwd


def run_hook(
    command: str, payload: str, root: Path, env: dict[str, str], project: str | None
) -> str:
    """Run one installed hook command as its harness does: through a shell, in the project,
    with the payload on stdin."""
    environment = {**env, **({project: str(root)} if project else {})}
    done = run(["/bin/sh", "-c", command], cwd=root, env=environment, stdin=payload)
    assert done.returncode == 0, done.stderr
    return done.stdout


def command_of(root: Path, settings: str, event: str) -> str:
    groups = json.loads((root / settings).read_text())["hooks"][event]
    (command,) = [
        h["command"] for g in groups for h in g["hooks"] if h["command"].startswith(install.MARKER)
    ]
    return str(command)


def first_prompt(root: Path, name: str, env: dict[str, str]) -> str:
    """Start a session of the harness in `root` (its SessionStart starts the daemon, which
    loads while the person types) and return what its first prompt's hook prints."""
    settings, (start, start_payload), (prompt, prompt_payload), project = SESSIONS[name]

    def payload(file: str) -> str:
        return (PAYLOADS / file).read_text(encoding="utf-8").replace("REPO", str(root))

    run_hook(command_of(root, settings, start), payload(start_payload), root, env, project)
    status = [str(BIN / "kroute"), "status", "--json"]

    def loaded() -> bool:
        done = run(status, cwd=root, env=env)
        return done.returncode == 0 and json.loads(done.stdout).get("phase") != "loading"

    assert eventually(loaded, 60), "no daemon came up after SessionStart"
    return run_hook(command_of(root, settings, prompt), payload(prompt_payload), root, env, project)


def test_the_five_steps_give_pointers_on_the_first_prompt_of_each_harness(tmp_path: Path) -> None:
    commands = recipe()
    assert [c.split()[:2] for c in commands if c.startswith("kroute")] == [
        ["kroute", "init"],
        ["kroute", "check"],
        ["kroute", "install"],
        ["kroute", "install"],
        ["kroute", "install"],
    ]
    repo = tmp_path / "your-repo"  # a team's repository: the demo's documents, no kroute yet
    shutil.copytree(DEMO, repo, ignore=shutil.ignore_patterns("kroute.toml"))
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = tmp_path / "pipx-bin"
    env = harness_env(home, bin_dir)
    for git in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "Our code and docs"]):
        subprocess.run(["git", *git], cwd=repo, env=env, check=True)
    assert follow(commands, tmp_path, env, bin_dir) == repo
    committed = subprocess.run(
        ["git", "show", "--stat", "--format=", "HEAD"], cwd=repo, capture_output=True, text=True
    ).stdout
    for name in (
        "kroute.toml",
        ".claude/settings.json",
        ".codex/hooks.json",
        ".gemini/settings.json",
    ):
        assert name in committed, committed

    for name in SESSIONS:
        printed = first_prompt(repo, name, env)
        text = (
            printed
            if name == "claude"
            else json.loads(printed)["hookSpecificOutput"]["additionalContext"]
        )
        assert PROMPTED in text, (name, printed)

    teammate = tmp_path / "teammate"  # a clone: what was committed, and kroute on PATH
    subprocess.run(["git", "clone", "-q", str(repo), str(teammate)], check=True, env=env)
    assert PROMPTED in first_prompt(teammate, "claude", env)


def test_the_first_commands_install_light_then_the_developers_tools(tmp_path: Path) -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("```sh") + 1
    first, second = lines[start : lines.index("```", start)]
    venv, install_light, route = first.split(" && ")
    assert venv == "python3 -m venv .venv"
    assert install_light == ".venv/bin/pip install -q -e ."  # no extra: no test, lint, type tool
    assert second.startswith(".venv/bin/pip install -q -e '.[test]' && ")
    assert second.endswith(".venv/bin/python -m pytest -q")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert not {d.split(">")[0] for d in project["dependencies"]} & {"pytest", "ruff", "mypy"}
    test_extra = project["optional-dependencies"]["test"]
    assert "knowledge-router[lint,mcp,meaning]" in test_extra  # the developer gets everything
    assert "pip install --quiet -e '.[test]'" in (REPO / ".ci" / "run").read_text()
    # the route as written, with this environment's kroute: pointers, and nothing left running
    words = shlex.split(route)
    assert words[:2] == [".venv/bin/kroute", "route"] and "--no-daemon" in words
    done = subprocess.run(
        [str(BIN / "kroute"), *words[1:]], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.count("\u2014") >= 3, done.stderr
    status = subprocess.run(
        [str(BIN / "kroute"), "status", "--catalog", str(DEMO)], capture_output=True, text=True
    )
    assert status.returncode == 1 and status.stdout.startswith("not-running")
