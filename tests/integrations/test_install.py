"""`kroute install` and the git pre-commit hook, with real settings files and real commits."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from router.harnesses import printed
from router.integrations import install
from testing.paths import DEMO, FIXTURES, REPO
from testing.process import kroute, run

BIN = Path(sys.executable).parent


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    root = copy_tree(DEMO).resolve()
    git(root, "init", "-q")
    git(root, "config", "user.email", "dev@example.invalid")
    git(root, "config", "user.name", "Dev")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "demo")
    return root


def git(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", **env},
        timeout=120,
    )


# -- Claude Code settings -----------------------------------------------------------------------


@pytest.mark.process
def test_install_claude_merges_and_is_idempotent(repo: Path) -> None:
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    theirs: dict[str, Any] = {
        "permissions": {"allow": ["Bash(pytest:*)"]},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check-bash.sh"}]}
            ]
        },
    }
    settings.write_text(json.dumps(theirs, indent=2))
    dry = kroute("install", "claude", "--dry-run", cwd=repo)
    assert dry.returncode == 0 and "+" in dry.stdout and "dry run" in dry.stdout
    assert json.loads(settings.read_text()) == theirs  # nothing written
    first = kroute("install", "claude", cwd=repo)
    assert first.returncode == 0, first.stderr
    merged = json.loads(settings.read_text())
    assert merged["permissions"] == theirs["permissions"]
    pre = merged["hooks"]["PreToolUse"]
    assert pre[0] == theirs["hooks"]["PreToolUse"][0]  # their hook untouched, still first
    assert pre[1]["matcher"] == "Edit|MultiEdit|Write|NotebookEdit|Read"
    # the reads of the shadow log: Read only, after it ran
    assert [g["matcher"] for g in merged["hooks"]["PostToolUse"]] == ["Read"]
    for event in ("UserPromptSubmit", "SessionStart", "PreToolUse", "PostToolUse"):
        ours = [
            h
            for g in merged["hooks"][event]
            for h in g["hooks"]
            if h["command"].startswith(install.MARKER)
        ]
        assert len(ours) == 1
        shim = ours[0]["command"].split()[-1].replace('"$CLAUDE_PROJECT_DIR"', str(repo))
        assert Path(shim).is_file() and os.access(shim, os.X_OK)
        # shared settings name nothing of this machine: no socket, no venv, no absolute path
        assert "KROUTE_SOCKET" not in ours[0]["command"] and str(BIN) not in ours[0]["command"]
        assert str(repo) not in ours[0]["command"]
    assert "kroute-hook on PATH" in first.stdout
    again = kroute("install", "claude", cwd=repo)
    assert "already up to date" in again.stdout
    assert json.loads(settings.read_text()) == merged


@pytest.mark.process
def test_install_claude_shadow_and_refusing_a_broken_settings_file(repo: Path) -> None:
    kroute("install", "claude", "--shadow", cwd=repo)
    settings = repo / ".claude" / "settings.json"
    commands = [
        h["command"]
        for g in json.loads(settings.read_text())["hooks"]["UserPromptSubmit"]
        for h in g["hooks"]
    ]
    assert "KROUTE_MODE=shadow" in commands[0]
    settings.write_text("{ not json")
    broken = kroute("install", "claude", cwd=repo)
    assert broken.returncode == 1 and "is not valid JSON" in broken.stderr
    assert settings.read_text() == "{ not json"


@pytest.mark.process
def test_install_claude_user_scope_writes_under_home(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = kroute("install", "claude", "--user", cwd=repo, env={"HOME": str(home)})
    assert result.returncode == 0
    assert (home / ".claude" / "settings.json").is_file()


def commands_of(settings: Path, event: str) -> list[str]:
    return [
        h["command"]
        for g in json.loads(settings.read_text())["hooks"].get(event, [])
        for h in g["hooks"]
        if h["command"].startswith(install.MARKER)
    ]


@pytest.mark.process
def test_a_project_install_works_unchanged_in_another_checkout_with_another_bin_dir(
    repo: Path, tmp_path: Path
) -> None:
    assert kroute("install", "claude", cwd=repo).returncode == 0
    elsewhere = tmp_path / "teammate" / "checkout"
    shutil.copytree(repo, elsewhere)
    shutil.rmtree(repo)  # nothing of the first checkout is left to lean on
    bindir = tmp_path / "teammate" / "bin"  # their kroute-hook, not this venv's path
    bindir.mkdir()
    wrapper = bindir / "kroute-hook"
    wrapper.write_text(f'#!/bin/sh\nexec {BIN / "kroute-hook"} "$@"\n')
    wrapper.chmod(0o755)
    env = {
        "PATH": f"{bindir}:/usr/bin:/bin",
        "HOME": str(tmp_path / "teammate"),
        "CLAUDE_PROJECT_DIR": str(elsewhere),
        "KROUTE_HOME": os.environ["KROUTE_HOME"],
        "XDG_RUNTIME_DIR": os.environ["XDG_RUNTIME_DIR"],
        "KROUTE_HOOK_DEADLINE": "10",  # a cold in-process answer on a slow test machine
    }
    settings = elsewhere / ".claude" / "settings.json"
    (command,) = commands_of(settings, "UserPromptSubmit")
    data = (FIXTURES / "hook_payloads" / "user_prompt_submit.json").read_text()
    result = run(
        ["sh", "-c", command], cwd=elsewhere, env=env, stdin=data.replace("REPO", str(elsewhere))
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(printed.HEADER)
    assert "rotate-webhook-signing-key.md" in result.stdout


@pytest.mark.process
def test_local_scope_is_personal_and_leaves_the_shared_file_alone(repo: Path) -> None:
    assert kroute("install", "claude", "--local", cwd=repo).returncode == 0
    assert not (repo / ".claude" / "settings.json").exists()
    assert not (repo / ".claude" / "hooks").exists()  # the shipped shims, by absolute path
    (command,) = commands_of(repo / ".claude" / "settings.local.json", "UserPromptSubmit")
    assert str(BIN / "kroute-hook") in command and "KROUTE_SOCKET=" in command


@pytest.mark.process
@pytest.mark.parametrize("scope", ["--project", "--local", "--user"])
def test_uninstall_leaves_the_settings_byte_identical(
    repo: Path, tmp_path: Path, scope: str
) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home)}
    base = home if scope == "--user" else repo
    name = "settings.local.json" if scope == "--local" else "settings.json"
    settings = base / ".claude" / name
    settings.parent.mkdir(parents=True, exist_ok=True)
    theirs = {
        "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]},
        "model": "opus",
    }
    original = json.dumps(theirs, indent=2) + "\n"
    settings.write_text(original)
    assert kroute("install", "claude", scope, cwd=repo, env=env).returncode == 0
    assert settings.read_text() != original
    removed = kroute("uninstall", "claude", scope, cwd=repo, env=env)
    assert removed.returncode == 0, removed.stderr
    assert settings.read_bytes() == original.encode()
    assert not (repo / ".claude" / "hooks").exists()
    again = kroute("uninstall", "claude", scope, cwd=repo, env=env)
    assert "already up to date" in again.stdout and settings.read_bytes() == original.encode()


@pytest.mark.process
def test_uninstall_of_a_fresh_install_removes_all_it_created(repo: Path) -> None:
    kroute("install", "claude", cwd=repo)
    assert kroute("uninstall", "claude", cwd=repo).returncode == 0
    assert sorted(p.name for p in (repo / ".claude").iterdir()) == ["skills"]  # theirs stays
    assert git(repo, "status", "--porcelain").stdout == ""


@pytest.mark.process
@pytest.mark.parametrize(
    ("name", "file", "events", "timeout"),
    [
        (
            "codex",
            ".codex/hooks.json",
            ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"),
            5,
        ),
        ("gemini", ".gemini/settings.json", ("SessionStart", "BeforeAgent", "AfterTool"), 5000),
    ],
)
def test_install_codex_and_gemini_merge_and_are_idempotent(
    repo: Path, name: str, file: str, events: tuple[str, ...], timeout: int
) -> None:
    settings = repo / file
    settings.parent.mkdir()
    theirs = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "x"}]}]}}
    original = json.dumps(theirs, indent=2) + "\n"
    settings.write_text(original)
    assert kroute("install", name, cwd=repo).returncode == 0
    merged = json.loads(settings.read_text())
    assert merged["hooks"]["SessionStart"][0] == theirs["hooks"]["SessionStart"][0]
    for event in events:
        (command,) = commands_of(settings, event)
        assert str(repo) not in command and "KROUTE_SOCKET" not in command
        assert f".{name}/hooks/kroute/{name}/" in command
    items = [h for g in merged["hooks"][events[1]] for h in g["hooks"]]
    assert items[0]["timeout"] == timeout
    assert "KROUTE_HOOK_BUDGET=4.5 " in items[0]["command"]  # the timeout's 5 s, less 0.5
    assert "already up to date" in kroute("install", name, cwd=repo).stdout
    assert kroute("install", name, "--local", cwd=repo).returncode != 0  # no such scope
    assert kroute("uninstall", name, cwd=repo).returncode == 0
    assert settings.read_text() == original


@pytest.mark.process
@pytest.mark.parametrize(("name", "says"), [("codex", "/hooks"), ("gemini", "trust the folder")])
def test_codex_and_gemini_installs_say_how_to_trust_the_hooks(
    repo: Path, name: str, says: str
) -> None:
    installed = kroute("install", name, cwd=repo)
    assert installed.returncode == 0
    assert says in installed.stdout and "kroute doctor" in installed.stdout
    assert "trust" not in kroute("install", "claude", cwd=repo).stdout


def run_codex_hook(command: str, data: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run an installed Codex hook command as Codex runs it: through a login shell, in the
    session's directory, with kroute on PATH and no project-dir variable set."""
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_PROJECT_DIR")}
    environment["PATH"] = f"{BIN}:/usr/bin:/bin"
    return subprocess.run(
        ["/bin/sh", "-lc", command],
        input=data,
        capture_output=True,
        cwd=cwd,
        env=environment,
        timeout=60,
    )


@pytest.mark.process
@pytest.mark.parametrize("in_git", [True, False])
def test_the_codex_command_runs_in_a_monorepo_subproject_and_outside_git(
    tmp_path: Path, in_git: bool
) -> None:
    top = tmp_path / "mono"
    project = top / "services" / "billing"  # kroute.toml here, the git root two levels up
    shutil.copytree(DEMO, project)
    if in_git:
        git(top, "init", "-q")
    assert kroute("install", "codex", cwd=project).returncode == 0
    assert kroute("start", cwd=project).returncode == 0
    (command,) = commands_of(project / ".codex" / "hooks.json", "UserPromptSubmit")
    assert "git rev-parse" not in command
    data = (FIXTURES / "hook_payloads" / "codex_user_prompt_submit.json").read_bytes()
    data = data.replace(b"REPO", str(project / "src").encode())
    result = run_codex_hook(command, data, project / "src")  # a session below the root
    assert result.returncode == 0, result.stderr
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "rotate-webhook-signing-key.md" in context
    nowhere = run_codex_hook(command, data, tmp_path)  # no shim above: nothing, and exit 0
    assert (nowhere.returncode, nowhere.stdout, nowhere.stderr) == (0, b"", b"")
    assert kroute("stop", cwd=project).returncode == 0


@pytest.mark.process
def test_matchers_cover_every_file_writing_tool(repo: Path) -> None:
    for name, file, event in [
        ("claude", ".claude/settings.json", "PreToolUse"),
        ("codex", ".codex/hooks.json", "PreToolUse"),
        ("gemini", ".gemini/settings.json", "AfterTool"),
    ]:
        assert kroute("install", name, cwd=repo).returncode == 0
        (group,) = json.loads((repo / file).read_text())["hooks"][event]
        tools = set(group["matcher"].split("|"))
        assert {
            "claude": {"Edit", "MultiEdit", "Write", "NotebookEdit"},
            "codex": {"apply_patch"},
            "gemini": {"write_file", "replace"},
        }[name] <= tools, name


@pytest.mark.process
def test_the_budget_follows_a_timeout_kept_from_an_earlier_install(repo: Path) -> None:
    assert kroute("install", "claude", cwd=repo).returncode == 0
    settings = repo / ".claude" / "settings.json"
    merged = json.loads(settings.read_text())
    merged["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"] = 8  # the user's own
    settings.write_text(json.dumps(merged))
    assert kroute("install", "claude", cwd=repo).returncode == 0
    (command,) = commands_of(settings, "UserPromptSubmit")
    assert "KROUTE_HOOK_BUDGET=7.5 " in command
    (command,) = commands_of(settings, "SessionStart")
    assert "KROUTE_HOOK_BUDGET=4.5 " in command


# -- whether the hooks can run ------------------------------------------------------------------

# What a harness started from a desktop or another terminal has: no virtualenv on PATH.
BARE_PATH = {"PATH": "/usr/bin:/bin", "VIRTUAL_ENV": ""}


@pytest.mark.process
def test_install_and_status_say_kroute_hook_is_not_on_path_and_how_to_fix_it(
    repo: Path,
) -> None:
    installed = kroute("install", "claude", cwd=repo, env=BARE_PATH)
    assert installed.returncode == 0, installed.stderr  # written; the hooks need kroute-hook
    assert "kroute-hook is not on PATH" in installed.stderr
    assert "pipx install" in installed.stderr and "--local" in installed.stderr
    status = kroute("status", cwd=repo, env=BARE_PATH)
    assert "kroute-hook is not on PATH" in status.stdout and "--local" in status.stdout
    on_path = kroute("status", cwd=repo, env={"PATH": f"{BIN}:/usr/bin:/bin", "VIRTUAL_ENV": ""})
    assert "kroute-hook is not on PATH" not in on_path.stdout
    assert "claude hooks (project" in on_path.stdout and "can run" in on_path.stdout


@pytest.mark.process
def test_a_virtualenv_active_in_the_installing_shell_does_not_count(repo: Path) -> None:
    active = {"PATH": f"{BIN}:/usr/bin:/bin", "VIRTUAL_ENV": str(BIN.parent)}
    installed = kroute("install", "claude", cwd=repo, env=active)
    assert "kroute-hook is not on PATH" in installed.stderr
    assert "activated virtualenv" in installed.stderr


@pytest.mark.process
def test_a_local_install_writes_the_absolute_command_and_can_run_without_path(
    repo: Path,
) -> None:
    installed = kroute("install", "claude", "--local", cwd=repo, env=BARE_PATH)
    assert "not on PATH" not in installed.stderr and "can run" in installed.stderr
    (command,) = commands_of(repo / ".claude" / "settings.local.json", "UserPromptSubmit")
    assert command.startswith(f"{install.MARKER}{BIN / 'kroute-hook'} ")


@pytest.mark.process
def test_status_names_a_shim_that_is_not_executable(repo: Path) -> None:
    assert kroute("install", "claude", cwd=repo).returncode == 0
    shim = repo / ".claude" / "hooks" / "kroute" / "claude" / "user-prompt-submit"
    shim.chmod(0o644)
    status = kroute("status", cwd=repo)
    assert f"the hook shim {shim} is not executable" in status.stdout
    assert f"chmod +x {shim}" in status.stdout


@pytest.mark.process
def test_status_says_when_the_hook_interpreter_cannot_start_the_daemon(
    repo: Path, tmp_path: Path
) -> None:
    bindir = tmp_path / "bare" / "bin"  # a kroute-hook whose Python has no kroute
    bindir.mkdir(parents=True)
    hook = bindir / "kroute-hook"
    hook.write_text(f"#!{sys.base_prefix}/bin/python3 -I\nraise SystemExit(0)\n")
    hook.chmod(0o755)
    assert kroute("install", "claude", cwd=repo).returncode == 0
    status = kroute("status", cwd=repo, env={"PATH": f"{bindir}:/usr/bin:/bin", "VIRTUAL_ENV": ""})
    assert "cannot start the daemon" in status.stdout
    assert "No module named 'router'" in status.stdout


# -- git ------------------------------------------------------------------------------------------


@pytest.mark.process
def test_pre_commit_advises_blocks_on_catalog_errors_and_can_be_skipped(repo: Path) -> None:
    assert kroute("install", "git", cwd=repo).returncode == 0
    assert "already up to date" in kroute("install", "git", cwd=repo).stdout

    source = repo / "src" / "billing" / "invoice.py"
    source.write_text(source.read_text() + "\n# rounding note\n")
    git(repo, "add", "src/billing/invoice.py")
    advised = git(repo, "commit", "-qm", "touch invoice")
    assert advised.returncode == 0, advised.stderr
    assert "documents governing staged files" in advised.stderr
    assert "docs/specs/invoice-builder.md" in advised.stderr

    broken = repo / "docs" / "decisions" / "0012-broken.md"
    broken.write_text("---\nid: TW-DR-0012\nsummary: [unclosed\n---\n")
    git(repo, "add", str(broken))
    blocked = git(repo, "commit", "-qm", "broken doc")
    assert blocked.returncode != 0
    assert "docs/decisions/0012-broken.md:3: error:" in blocked.stderr
    assert "KROUTE_SKIP=1" in blocked.stderr

    skipped = git(repo, "commit", "-qm", "broken doc anyway", KROUTE_SKIP="1")
    assert skipped.returncode == 0, skipped.stderr


@pytest.mark.process
def test_the_staged_version_is_checked_not_the_working_tree(repo: Path) -> None:
    kroute("install", "git", cwd=repo)
    doc = repo / "docs" / "decisions" / "0013-staged.md"
    doc.write_text("---\nid: TW-DR-0013\nsummary: [unclosed\n---\n")
    git(repo, "add", str(doc))
    doc.write_text("---\nid: TW-DR-0013\nsummary: fixed in the tree only\n---\n")
    assert git(repo, "commit", "-qm", "x").returncode != 0


def foreign_pre_commit(repo: Path) -> Path:
    """Write a pre-commit hook of another tool into the repository's hooks; return it."""
    hooks = Path(git(repo, "rev-parse", "--git-path", "hooks").stdout.strip())
    hooks = hooks if hooks.is_absolute() else repo / hooks
    hooks.mkdir(parents=True, exist_ok=True)
    theirs = hooks / "pre-commit"
    theirs.write_text("#!/bin/sh\necho their-hook-ran >&2\n")
    theirs.chmod(0o755)
    return theirs


@pytest.mark.process
def test_a_foreign_pre_commit_hook_is_kept_and_still_runs(repo: Path) -> None:
    theirs = foreign_pre_commit(repo)
    hooks = theirs.parent
    dry = kroute("install", "git", "--dry-run", cwd=repo)
    assert "move" in dry.stdout and "pre-commit.local" in dry.stdout
    assert "their-hook-ran" in theirs.read_text()
    assert kroute("install", "git", cwd=repo).returncode == 0
    assert (hooks / "pre-commit.local").read_text() == "#!/bin/sh\necho their-hook-ran >&2\n"
    (repo / "notes.txt").write_text("x")
    git(repo, "add", "notes.txt")
    result = git(repo, "commit", "-qm", "notes")
    assert result.returncode == 0 and "their-hook-ran" in result.stderr


def test_pre_commit_framework_manifest() -> None:
    import yaml

    manifest = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert manifest[0]["id"] == "kroute"
    assert manifest[0]["entry"] == "kroute precommit"
    assert manifest[0]["pass_filenames"] is False
    assert manifest[0]["verbose"] is True  # else the framework hides the pointers


@pytest.mark.process
def test_uninstall_git_restores_the_foreign_hook_and_removes_its_own(repo: Path) -> None:
    theirs = foreign_pre_commit(repo)
    hooks = theirs.parent
    kroute("install", "git", cwd=repo)
    assert kroute("uninstall", "git", cwd=repo).returncode == 0
    assert theirs.read_text() == "#!/bin/sh\necho their-hook-ran >&2\n"
    assert not (hooks / "pre-commit.local").exists()
    assert "already up to date" in kroute("uninstall", "git", cwd=repo).stdout  # not ours
    theirs.unlink()
    kroute("install", "git", cwd=repo)
    kroute("uninstall", "git", cwd=repo)
    assert not theirs.exists()
