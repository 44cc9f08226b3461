"""`kroute doctor`: each problem a hook can meet on a machine, set up on purpose in a real
repository with real settings files, and found with its fix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from router import __version__
from testing.paths import DEMO
from testing.process import kroute

pytestmark = pytest.mark.process

BIN = Path(sys.executable).parent
ON_PATH = f"{BIN}:/usr/bin:/bin"  # kroute and kroute-hook, as pipx or uv would put them


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    root = copy_tree(DEMO).resolve()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home directory of the user's own, with nothing of any harness in it yet."""
    directory = tmp_path / "home"
    directory.mkdir()
    return directory


def doctor(
    repo: Path, home: Path, path: str = ON_PATH, *, text: bool = False, **env: str
) -> dict[str, Any]:
    """Run `kroute doctor --json` as the user would in `repo`; return its report with the
    exit code as `exit`, and with `text` the text form's lines as `lines` (its exit code
    checked to be the same)."""
    environment = {"HOME": str(home), "PATH": path, "VIRTUAL_ENV": "", **env}
    result = kroute("doctor", "--json", cwd=repo, env=environment)
    assert result.returncode in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    report["exit"] = result.returncode
    if text:
        printed = kroute("doctor", cwd=repo, env=environment)
        assert printed.returncode == result.returncode
        report["lines"] = printed.stdout.splitlines()
    return report


def problems(report: dict[str, Any]) -> list[str]:
    return [
        f"{check['topic']}: {p['problem']} | {p['fix']}"
        for check in report["checks"]
        for p in check["problems"]
    ]


def install(repo: Path, home: Path, *names: str) -> None:
    for name in names:
        result = kroute("install", name, cwd=repo, env={"HOME": str(home)})
        assert result.returncode == 0, result.stderr


def trust_codex(repo: Path, home: Path, *, hooks: bool = True, project: bool = True) -> None:
    """Write what Codex writes when the user trusts the project and kroute's hooks."""
    lines = []
    if project:
        lines += [f'[projects."{repo}"]', 'trust_level = "trusted"', ""]
    if hooks:
        for label in ("session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use"):
            lines += [
                f'[hooks.state."{repo}/.codex/hooks.json:{label}:0:0"]',
                'trusted_hash = "sha256:0123"',
                "",
            ]
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex" / "config.toml").write_text("\n".join(lines))


def trust_gemini(home: Path, rules: dict[str, str]) -> None:
    (home / ".gemini").mkdir(exist_ok=True)
    (home / ".gemini" / "trustedFolders.json").write_text(json.dumps(rules))


def test_a_sound_setup_has_no_problems(repo: Path, home: Path) -> None:
    install(repo, home, "claude", "codex", "gemini")
    trust_codex(repo, home)
    trust_gemini(home, {str(repo): "TRUST_FOLDER"})
    report = doctor(repo, home, text=True)
    assert problems(report) == [] and report["exit"] == 0
    assert report["lines"][-1] == "no problems: the hooks can run here"
    assert {c["topic"].split(" (")[0] for c in report["checks"]} >= {
        "kroute.toml",
        "PATH",
        "catalog homes",
        "claude hooks",
        "codex hooks",
        "gemini hooks",
        "daemon",
    }


def test_no_kroute_toml(tmp_path: Path, home: Path) -> None:
    report = doctor(tmp_path, home, text=True)
    assert report["exit"] == 1
    assert problems(report) == [
        f"kroute.toml: no kroute.toml at or above {tmp_path.resolve()}, so every hook here "
        "prints nothing | Run kroute init in the repository root, then kroute check"
    ]


def test_unknown_config_keys_each_with_the_nearest_known_name(repo: Path, home: Path) -> None:
    install(repo, home, "claude")
    config = repo / "kroute.toml"
    config.write_text('root = ["docs"]\n' + config.read_text() + "\n[rout]\nbudget = 3\n")
    found = [p for p in problems(doctor(repo, home)) if p.startswith("kroute.toml")]
    assert found == [
        "kroute.toml: kroute.toml: `root` is not a kroute.toml setting | Did you mean `roots`? "
        "Rename it",
        "kroute.toml: kroute.toml: [rout] is not a kroute.toml setting | Did you mean [route]? "
        "Rename it",
    ]


def test_kroute_and_kroute_hook_not_on_the_harness_path(repo: Path, home: Path) -> None:
    install(repo, home, "claude")
    bare = doctor(repo, home, path="/usr/bin:/bin")
    assert problems(bare) == [
        "PATH: kroute and kroute-hook are not on the PATH a harness gets: project hooks and "
        ".mcp.json run them by name | Install kroute on PATH: pipx install <kroute checkout> "
        "(or uv tool install)"
    ]  # said once, not again for each harness
    active = doctor(repo, home, path=ON_PATH, VIRTUAL_ENV=str(BIN.parent))
    assert any("only through the virtualenv active in this shell" in p for p in problems(active))


def test_a_shim_that_is_not_executable(repo: Path, home: Path) -> None:
    install(repo, home, "claude")
    shim = repo / ".claude" / "hooks" / "kroute" / "claude" / "session-start"
    shim.chmod(0o644)
    assert f"the hook shim {shim} is not executable | chmod +x {shim}" in " ".join(
        p.split(": ", 1)[1] for p in problems(doctor(repo, home))
    )


def test_a_shim_that_is_missing(repo: Path, home: Path) -> None:
    install(repo, home, "claude")
    shim = repo / ".claude" / "hooks" / "kroute" / "claude" / "user-prompt-submit"
    shim.unlink()
    found = " ".join(p.split(": ", 1)[1] for p in problems(doctor(repo, home)))
    assert f"the hook shim {shim} is missing | Run kroute install claude --project again" in found


def test_hooks_another_version_installed(repo: Path, home: Path) -> None:
    install(repo, home, "claude")
    settings = repo / ".claude" / "settings.json"
    text = settings.read_text().replace("Edit|MultiEdit|Write|NotebookEdit|Read", "Edit|Write")
    settings.write_text(text)  # as an older kroute wrote it
    shim = repo / ".claude" / "hooks" / "kroute" / "run"
    shim.write_text(shim.read_text() + "# older\n")
    (found,) = [p for p in problems(doctor(repo, home)) if "claude hooks" in p]
    assert found.endswith(
        f"the claude hooks are not those kroute {__version__} installs (.claude/settings.json, "
        ".claude/hooks/kroute/run would change) | Run kroute install claude --project and "
        "commit what it writes"
    )
    install(repo, home, "claude")
    assert problems(doctor(repo, home)) == []


def test_a_personal_install_of_another_version(repo: Path, home: Path) -> None:
    assert kroute("install", "claude", "--local", cwd=repo, env={"HOME": str(home)}).returncode == 0
    settings = repo / ".claude" / "settings.local.json"
    settings.write_text(
        settings.read_text().replace(f"KROUTE_VERSION={__version__}", "KROUTE_VERSION=0.0.1")
    )
    found = problems(doctor(repo, home))
    assert any(
        f"installed by kroute 0.0.1, this is {__version__} | Run kroute install claude --local "
        "again from this kroute" in p
        for p in found
    )


def test_codex_project_and_hooks_not_trusted(repo: Path, home: Path) -> None:
    install(repo, home, "codex")
    untrusted = [p for p in problems(doctor(repo, home)) if p.startswith("codex hooks")]
    assert len(untrusted) == 2
    assert (
        f"Codex has not been told to trust {repo}, so it skips the project's hooks" in untrusted[0]
    )
    assert "SessionStart, UserPromptSubmit, PreToolUse, PostToolUse hooks" in untrusted[1]
    assert "run /hooks and trust them" in untrusted[1]
    trust_codex(repo, home, hooks=False)
    (hooks_only,) = [p for p in problems(doctor(repo, home)) if p.startswith("codex hooks")]
    assert "run /hooks" in hooks_only
    trust_codex(repo, home)
    assert problems(doctor(repo, home)) == []
    config = home / ".codex" / "config.toml"
    config.write_text(config.read_text() + "\n[features]\nhooks = false\n")
    (off,) = problems(doctor(repo, home))
    assert "Codex's hooks are switched off" in off and "Remove that line" in off


def test_codex_told_not_to_trust_the_project(repo: Path, home: Path) -> None:
    install(repo, home, "codex")
    trust_codex(repo, home, project=False)
    config = home / ".codex" / "config.toml"
    config.write_text(
        f'[projects."{repo.parent}"]\ntrust_level = "untrusted"\n' + config.read_text()
    )
    (found,) = problems(doctor(repo, home))
    assert f'Codex does not trust {repo.parent} ({config} says trust_level = "untrusted")' in found


def test_gemini_folder_not_trusted(repo: Path, home: Path) -> None:
    install(repo, home, "gemini")
    (never,) = problems(doctor(repo, home))
    assert f"Gemini CLI has not been told to trust {repo}" in never and "/permissions" in never
    trust_gemini(home, {str(repo): "DO_NOT_TRUST"})
    (refused,) = problems(doctor(repo, home))
    assert f"Gemini CLI was told not to trust {repo}" in refused
    trust_gemini(home, {str(repo / "sub"): "TRUST_PARENT", str(repo.parent): "DO_NOT_TRUST"})
    assert problems(doctor(repo, home)) == []  # the longest rule holding the folder wins
    trust_gemini(home, {})
    (home / ".gemini" / "settings.json").write_text(
        '{"security": {"folderTrust": {"enabled": false}}}'
    )
    assert problems(doctor(repo, home)) == []  # folder trust switched off: every folder runs


def test_a_daemon_that_cannot_be_started(repo: Path, home: Path, short_tmp: Path) -> None:
    install(repo, home, "claude")
    runtime = short_tmp / "open-run"
    (runtime / "kroute").mkdir(parents=True)
    (runtime / "kroute").chmod(0o777)  # a runtime dir others may write in: refused
    found = problems(doctor(repo, home, XDG_RUNTIME_DIR=str(runtime)))
    assert any(str(runtime / "kroute") in p and "claude hooks" in p for p in found), found


def test_a_catalog_home_outside_the_roots(repo: Path, home: Path) -> None:
    install(repo, home, "claude")
    config = repo / "kroute.toml"
    config.write_text(config.read_text().replace('".cursor/rules", ', ""))
    (found,) = problems(doctor(repo, home))
    assert found.startswith("catalog homes: .cursor/rules holds ")
    assert found.endswith(
        'that no root covers, so no route offers them | Add ".cursor/rules" to roots in kroute.toml'
    )


def test_no_hooks_installed(repo: Path, home: Path) -> None:
    (found,) = problems(doctor(repo, home))
    assert found == (
        "hooks: no kroute hooks are installed for this repository, so no agent gets pointers "
        "| Run kroute install claude (or codex, gemini), or kroute mcp install"
    )
    assert kroute("mcp", "install", cwd=repo).returncode == 0
    assert problems(doctor(repo, home)) == []


def test_doctor_leaves_nothing_running(repo: Path, home: Path) -> None:
    install(repo, home, "claude")
    doctor(repo, home)
    status = kroute("status", cwd=repo, env={"HOME": str(home)})
    assert status.returncode == 1 and status.stdout.startswith("not-running")
    assert os.environ["KROUTE_HOME"]  # the suite's own state dir, never the user's
