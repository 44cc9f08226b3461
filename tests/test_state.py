"""State that is the user's alone (DESIGN 10, 12): the attacks on the state directory rerun
with real processes. Another user's state or shadow folder, a symlinked log, a loose umask and
the crash handler's logs folder: no prompt reaches anyone else, every directory kroute makes
is 0700 and every file 0600, and what is not the user's own is refused with what to do."""

from __future__ import annotations

import datetime
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from testing.paths import DEMO, FIXTURES
from testing.process import kroute
from testing.wait import eventually

pytestmark = pytest.mark.process

NOBODY = 65534  # a uid no test process runs as
SECRET = "rotate the webhook signing key zebra-secret-7731"
as_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="needs root to make a directory another uid owns (os.chown)"
)


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO)


def leaked(directory: Path) -> list[Path]:
    """Return the files below `directory` that hold the secret prompt."""
    return [
        path
        for path in directory.rglob("*")
        if path.is_file() and not path.is_symlink() and SECRET.encode() in path.read_bytes()
    ]


def log_dir(repo: Path, env: dict[str, str] | None = None) -> Path:
    """Return the repository's shadow log directory (as `kroute shadow path` says)."""
    said = kroute("shadow", "path", cwd=repo, env=env)
    assert said.returncode == 0, said.stderr
    return Path(said.stdout.strip())


def days() -> Iterator[str]:
    """Yield the day names a route written now may be logged under (UTC, around midnight)."""
    today = datetime.datetime.now(datetime.UTC).date()
    for offset in (-1, 0, 1):
        yield (today + datetime.timedelta(days=offset)).isoformat()


def refused(result: subprocess.CompletedProcess[str], where: Path) -> None:
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(f"Error: refusing {where}"), result.stderr
    assert "Remove it" in result.stderr and "Traceback" not in result.stderr


@as_root
@pytest.mark.parametrize("bits", [0o777, 0o700], ids=["0777", "0700"])
def test_a_state_dir_another_user_made_first_is_refused_and_gets_no_prompt(
    repo: Path, tmp_path: Path, bits: int
) -> None:
    shared = tmp_path / "shared-home"
    shared.mkdir()
    os.chown(shared, NOBODY, NOBODY)
    os.chmod(shared, bits)
    env = {"KROUTE_HOME": str(shared)}

    refused(kroute("start", cwd=repo, env=env), shared)
    routed = kroute("route", SECRET, cwd=repo, env=env)  # in process, with a warning
    assert routed.returncode == 0 and "\u2014" in routed.stdout
    assert f"refusing {shared}" in routed.stderr
    hooked = subprocess.run(
        [str(Path(sys.executable).with_name("kroute-hook")), "claude", "UserPromptSubmit"],
        input=(FIXTURES / "hook_payloads" / "user_prompt_submit.json")
        .read_text()
        .replace("REPO", str(repo))
        .replace("the webhook signing key leaked in a screenshot, rotate it today", SECRET),
        capture_output=True,
        text=True,
        cwd=repo,
        env={**os.environ, **env, "KROUTE_HOOK_DEADLINE": "60"},
        timeout=120,
    )
    assert (hooked.returncode, hooked.stdout, hooked.stderr) == (0, "", "")  # silently nothing
    assert list(shared.iterdir()) == [] and leaked(shared) == []
    assert (os.lstat(shared).st_uid, stat.S_IMODE(os.lstat(shared).st_mode)) == (NOBODY, bits)


@as_root
def test_a_shadow_folder_another_user_made_first_gets_no_prompt(repo: Path) -> None:
    """The squatter made the repository's log folder and the day's files, open to all."""
    folder = log_dir(repo)
    shadow_root = folder.parent
    folder.mkdir(parents=True)
    for directory in (shadow_root, folder):
        os.chown(directory, NOBODY, NOBODY)
        os.chmod(directory, 0o777)
    for day in days():
        trap = folder / f"{day}.jsonl"
        trap.write_text("")
        os.chown(trap, NOBODY, NOBODY)
        os.chmod(trap, 0o666)

    routed = kroute("route", "--no-daemon", SECRET, cwd=repo)
    assert routed.returncode == 0 and "\u2014" in routed.stdout
    assert f"refusing {shadow_root}" in routed.stderr
    assert leaked(shadow_root) == []
    refused(kroute("shadow", "tail", cwd=repo), shadow_root)


def test_a_symlinked_day_log_is_not_followed(repo: Path, tmp_path: Path) -> None:
    folder = log_dir(repo)
    folder.mkdir(parents=True, mode=0o700)
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text("")
    os.chmod(elsewhere, 0o644)
    for day in days():
        (folder / f"{day}.jsonl").symlink_to(elsewhere)

    routed = kroute("route", "--no-daemon", SECRET, cwd=repo)
    assert routed.returncode == 0 and "\u2014" in routed.stdout
    assert "symbolic link" in routed.stderr
    assert elsewhere.read_text() == ""


def test_a_symlinked_daemon_log_is_refused(repo: Path, tmp_path: Path) -> None:
    logs = Path(os.environ["KROUTE_HOME"]) / "logs"
    logs.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere.log"
    elsewhere.write_text("")
    (logs / f"{log_dir(repo).name}.log").symlink_to(elsewhere)

    refused(kroute("start", cwd=repo), logs / f"{log_dir(repo).name}.log")
    assert elsewhere.read_text() == ""


def modes(*roots: Path) -> dict[str, int]:
    """Return the permission bits of every directory and file below `roots`, by path."""
    found = {}
    for root in roots:
        for path in [root, *root.rglob("*")]:
            found[str(path)] = stat.S_IMODE(os.lstat(path).st_mode)
    return found


def test_kroute_start_under_umask_000_makes_0700_directories_and_0600_files(
    repo: Path,
) -> None:
    home = Path(os.environ["KROUTE_HOME"]) / "state" / "kroute"  # made by kroute, parents too
    runtime = Path(os.environ["XDG_RUNTIME_DIR"])
    env = {**os.environ, "KROUTE_HOME": str(home), "KROUTE_SNAPSHOT_AFTER": "0"}
    kroute_exe = str(Path(sys.executable).with_name("kroute"))

    def loose(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [kroute_exe, *args],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            preexec_fn=lambda: os.umask(0),
        )

    started = loose("start")
    try:
        assert started.returncode == 0, started.stderr
        assert loose("route", SECRET).returncode == 0
        assert eventually(lambda: any(home.glob("shadow/*/*.jsonl")), 60)
        assert eventually(lambda: any(home.glob("snapshots/*.pickle")), 60)
    finally:
        loose("stop")
    found = modes(home.parent, runtime)
    assert len(found) >= 10
    assert {path: bits for path, bits in found.items() if bits not in (0o700, 0o600)} == {}
    kinds = {stat.S_IFMT(os.lstat(path).st_mode) for path in found}
    assert kinds <= {stat.S_IFDIR, stat.S_IFREG, stat.S_IFSOCK}  # no symlink either
    directories = [path for path in found if os.path.isdir(path)]
    assert all(found[path] == 0o700 for path in directories)


CRASH = """
import sys
from router.runtime import engine
def fail(*a, **k):
    raise ZeroDivisionError("boom")
engine.Engine.load = fail
from router.cli import main
sys.argv = ['kroute', 'route', '--no-daemon', 'retry a failed delivery']
main()
"""


def test_the_crash_handlers_logs_folder_leaves_kroute_start_working(repo: Path) -> None:
    logs = Path(os.environ["KROUTE_HOME"]) / "logs"
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.umask(0o022),  # the common umask: a plain mkdir makes 0755
    )
    assert crashed.returncode == 3 and "boom" in (logs / "crash.log").read_text()
    assert stat.S_IMODE(logs.stat().st_mode) == 0o700
    assert stat.S_IMODE((logs / "crash.log").stat().st_mode) == 0o600
    started = kroute("start", cwd=repo)
    assert started.returncode == 0, started.stderr
    assert kroute("stop", cwd=repo).returncode == 0


PEEK = """
import os, socket, sys
secret, found = sys.argv[1].encode(), []
for root in sys.argv[2:]:
    for folder, dirs, files in os.walk(root, onerror=lambda error: found.append("denied")):
        for name in files:
            path = os.path.join(folder, name)
            try:
                with socket.socket(socket.AF_UNIX) as sock:
                    sock.connect(path)
                found.append("connected " + path)
            except OSError:
                pass
            try:
                with open(path, "rb") as handle:
                    found.append(("LEAK " if secret in handle.read() else "read ") + path)
            except OSError:
                pass
print("\\n".join(found))
"""


def stranger_python() -> str:
    """Return a Python another uid may run (this venv may sit in a home only root enters);
    skip the test when there is none."""
    for candidate in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        try:
            tried = subprocess.run(
                [candidate, "-c", "pass"],
                user=NOBODY,
                group=NOBODY,
                extra_groups=[],
                cwd="/",
                capture_output=True,
                timeout=60,
            )
        except OSError:
            continue
        if tried.returncode == 0:
            return candidate
    pytest.skip("no Python interpreter that another uid may run")


@as_root
def test_another_user_on_the_machine_reads_no_prompt_and_reaches_no_socket(
    repo: Path,
) -> None:
    """A real process running as another uid walks the user's state and runtime directories,
    made by kroute under a parent anyone may enter, while a daemon serves and logs a prompt."""
    import tempfile

    parent = Path(tempfile.mkdtemp(prefix="kroute-open-"))
    try:
        os.chmod(parent, 0o755)
        env = {"KROUTE_HOME": str(parent / "home"), "XDG_RUNTIME_DIR": str(parent / "run")}
        assert kroute("start", cwd=repo, env=env).returncode == 0
        try:
            assert kroute("route", SECRET, cwd=repo, env=env).returncode == 0
            home = Path(env["KROUTE_HOME"])
            assert eventually(lambda: leaked(home) != [], 60)  # the owner's log holds it
            peeked = subprocess.run(
                [stranger_python(), "-c", PEEK, SECRET, str(home), env["XDG_RUNTIME_DIR"]],
                capture_output=True,
                text=True,
                timeout=120,
                user=NOBODY,
                group=NOBODY,
                extra_groups=[],
                cwd=parent,
            )
        finally:
            kroute("stop", cwd=repo, env=env)
        assert peeked.returncode == 0, peeked.stderr
        assert peeked.stdout.split() == ["denied", "denied"]  # each root: not even a listing
    finally:
        import shutil

        shutil.rmtree(parent)
