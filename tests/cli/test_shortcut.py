"""`kroute route TASK`, `status` and `stop` answered by a running daemon without click
(router.cli.shortcut): the same bytes and exit codes as the full command line, which answers
whatever the shortcut declines; and what the shortcut may import."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from router import client
from router.cli import shortcut
from router.client import presence
from router.harnesses import registry
from router.integrations import install
from testing.paths import DEMO, REPO
from testing.process import kroute, script_imports
from testing.wait import eventually

EM = "\u2014"
TASKS = (
    "retry a failed webhook delivery",
    'rotate the "signing" key \\ today',  # what JSON escapes
    "réessayer la livraison \u00e9chou\u00e9e",  # beyond ASCII
    "zzz qqq",  # silence
    "",
)


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO).resolve()


@pytest.fixture
def daemon(repo: Path) -> Path:
    assert kroute("start", cwd=repo).returncode == 0
    return repo


def full(repo: Path) -> dict[str, str]:
    """Return the environment in which the shortcut declines (KROUTE_CONFIG names the same
    file): click answers."""
    return {"KROUTE_CONFIG": str(repo / "kroute.toml")}


def target(repo: Path) -> client.Target:
    return client.target(repo, repo / "kroute.toml", os.environ)


def served(repo: Path) -> int:
    return int(client.call(target(repo), "GET", "/v1/status").json()["routes"])


@pytest.mark.process
def test_a_route_prints_what_the_full_command_line_prints(daemon: Path) -> None:
    for task in TASKS:
        before = served(daemon)
        quick = kroute("route", task, cwd=daemon)
        assert served(daemon) == before + 1  # the daemon answered it, once
        slow = kroute("route", task, env=full(daemon), cwd=daemon)
        assert (quick.returncode, quick.stdout, quick.stderr) == (
            slow.returncode,
            slow.stdout,
            slow.stderr,
        ), task
    assert EM in kroute("route", TASKS[0], cwd=daemon).stdout


@pytest.mark.process
def test_status_prints_what_the_full_command_line_prints(daemon: Path) -> None:
    def steady(text: str) -> str:  # the counters move between two calls
        return re.sub(r"\d+ routes served, up \d+ s", "N routes served, up N s", text)

    quick = kroute("status", cwd=daemon)
    slow = kroute("status", env=full(daemon), cwd=daemon)
    assert quick.returncode == slow.returncode == 0
    assert steady(quick.stdout) == steady(slow.stdout) and quick.stdout.startswith("running:")
    assert quick.stderr == slow.stderr == ""


RUNNING = {
    "pid": 7,
    "phase": "ready",
    "load": {"from": "cold", "seconds": 1.25},
    "entries": 52,
    "routes": 3,
    "uptime_s": 9.0,
    "root": "/r",
    "socket": "/s",
}


def test_status_says_an_update_errors_and_meaning_only_when_there_is_something_to_say() -> None:
    """A quiet daemon's status is three lines; an update under way, errors or stale files,
    and a meaning mode that is on each add one, meaning saying whether routes use it yet."""
    assert shortcut.said_running({**RUNNING, "meaning": {"mode": "off"}}).count("\n") == 2
    busy = shortcut.said_running(
        {
            **RUNNING,
            "updating": True,
            "errors": 1,
            "stale": 2,
            "meaning": {"mode": "live", "ready": False, "error": None},
        }
    )
    assert "updating" in busy and "1 errors, 2 stale files" in busy
    assert "meaning live: not ready yet; routes use words" in busy
    ready = shortcut.said_running({**RUNNING, "meaning": {"mode": "shadow", "ready": True}})
    assert ready.endswith("meaning shadow: vectors ready")
    broken = {"mode": "live", "ready": False, "error": "the meaning extra is not installed"}
    assert "unavailable (the meaning extra" in shortcut.said_running({**RUNNING, "meaning": broken})


@pytest.mark.process
def test_stop_stops_the_daemon_and_removes_its_files(daemon: Path) -> None:
    places = target(daemon).places
    pid = json.loads(places.status.read_text())["pid"]
    stopped = kroute("stop", cwd=daemon)
    assert (stopped.returncode, stopped.stdout, stopped.stderr) == (0, "stopped\n", "")
    assert not presence.alive(pid)
    assert not places.socket.exists() and not places.status.exists()
    again = kroute("stop", cwd=daemon)  # none runs: the full command line says so
    assert again.returncode == 0 and again.stdout.startswith("not running: ")


@pytest.mark.process
def test_a_config_the_daemon_does_not_serve_goes_to_the_full_command_line(
    daemon: Path,
) -> None:
    """An invalid kroute.toml is not taken up by the daemon (it keeps the last good one):
    the request naming the file's digest is refused, and click reports the file."""
    before = served(daemon)
    (daemon / "kroute.toml").write_text("roots = [\n", encoding="utf-8")
    assert eventually(
        lambda: client.call(target(daemon), "GET", "/v1/status").json()["config_error"]
    )
    for args in (("route", TASKS[0]), ("status",), ("stop",)):
        quick = kroute(*args, cwd=daemon)
        slow = kroute(*args, env=full(daemon), cwd=daemon)
        assert quick.returncode == slow.returncode == 1, args
        assert quick.stderr == slow.stderr and "is not valid TOML" in quick.stderr
    assert served(daemon) == before  # nothing was routed


@pytest.mark.process
def test_installed_hooks_are_checked_by_the_full_command_line(daemon: Path) -> None:
    installed = kroute("install", "claude", "--local", cwd=daemon)
    assert installed.returncode == 0, installed.stderr
    quick = kroute("status", cwd=daemon)
    assert "claude hooks (local" in quick.stdout  # what only the full command line checks


@pytest.mark.process
def test_other_command_lines_are_left_to_click(daemon: Path) -> None:
    env: dict[str, str] = {}
    for args in (
        ["route", "--json", "x"],
        ["route", "-"],
        ["route"],
        ["route", "a", "b"],
        ["status", "--json"],
        ["stop", "--help"],
        ["start"],
    ):
        assert shortcut.answered(args, env) is None, args


def test_no_daemon_leaves_everything_to_click(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    assert shortcut.answered(["route", "x"], os.environ) is None
    assert shortcut.answered(["status"], os.environ) is None
    assert shortcut.answered(["stop"], os.environ) is None


def test_the_settings_files_are_those_of_the_harnesses(tmp_path: Path) -> None:
    root, home = tmp_path / "repo", tmp_path / "home"
    expected = set()
    for harness in registry.AGENTS.values():
        for scope in install.SCOPES:
            if scope != "local" or harness.local_file is not None:
                expected.add(harness.settings(scope, root, home))
    listed = set()
    for directory, project, local, user in shortcut.HOOK_SETTINGS:
        listed |= {root / directory / project, home / directory / user}
        if local is not None:
            listed.add(root / directory / local)
    assert listed == expected


# What the shortcut may import once a daemon answers: what the interpreter loads at start,
# and these. An editable install's import finder brings pathlib and re before, so only what
# the command itself imports counts (a regular install's `kroute` imports nothing first).
MAY_IMPORT = {
    "_json",
    "_sha2",
    "_sha256",
    "_socket",
    "router",
    "router.base",
    "router.base.errors",
    "router.client",
    "router.client.locate",
    "router.client.presence",
    "router.client.trust",
    "router.client.wire",
    "router.cli",
    "router.cli.overview",
    "router.cli.shortcut",
    "router.core",
    "router.core.shown",
    "select",  # built in: `stop` waits on the daemon's pidfd
    "unicodedata",
}
PROBE = """
import sys
before = set(sys.modules)
from router.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    code = done.code
print(*sorted(set(sys.modules) - before), file=sys.stderr)
"""


@pytest.mark.process
@pytest.mark.parametrize("args", [["route", TASKS[0]], ["status"], ["stop"]])
def test_the_shortcut_imports_nothing_heavier_than_the_wire(daemon: Path, args: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=daemon
    )
    assert result.returncode == 0
    assert result.stdout  # it answered
    imported = set(result.stderr.split())
    assert "router.cli.shortcut" in imported
    assert imported <= MAY_IMPORT, imported - MAY_IMPORT


def test_the_kroute_script_imports_the_command_line_alone() -> None:
    """`kroute` is installed as a script, not as an entry point whose wrapper would import
    `re` before the command line runs."""
    assert script_imports(REPO / "bin" / "kroute") == {"sys", "router.cli"}
