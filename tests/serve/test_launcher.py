"""Starting and stopping daemons (router.serve.launcher): a `stop` right after a spawn, the
start lock a spawned daemon holds until it serves, a lock naming some other process, and the
standard library only."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from router import client
from router.client import presence
from router.serve import launcher
from testing.paths import DEMO
from testing.process import heavy_imports
from testing.wait import eventually

pytestmark = pytest.mark.process

KROUTE = Path(sys.executable).with_name("kroute")


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO).resolve()


def target(repo: Path) -> client.Target:
    return client.target(repo, repo / "kroute.toml", os.environ)


@pytest.fixture
def bystander() -> Iterator[subprocess.Popen[bytes]]:
    """A live process whose pid a start lock may name (not the test's own: it must not be
    signalled)."""
    process = subprocess.Popen(["sleep", "120"])
    yield process
    process.kill()
    process.wait()


def test_the_launcher_imports_only_the_standard_library() -> None:
    """The hook's slow path imports it to start a daemon for the next prompt."""
    assert heavy_imports("router.serve.launcher") == []


CYCLES = 24  # the report: 5 orphaned daemons in 24 cycles of spawn-then-stop
PROC = Path("/proc")
needs_proc = pytest.mark.skipif(not PROC.is_dir(), reason="finds daemon processes in /proc")


def daemons_of(root: Path) -> list[int]:
    """Return the pids of live kroute daemon processes serving `root`, from /proc."""
    found = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        daemon = b"router" in args and b"serve" in args and str(root).encode() in args
        if daemon and presence.alive(int(entry.name)):
            found.append(int(entry.name))
    return found


@needs_proc
def test_stop_right_after_a_spawn_leaves_no_daemon(repo: Path) -> None:
    """Defect: `stop` run before a daemon the hook spawned has written its status file found
    nothing, and the daemon came up afterwards, orphaned. Its start lock names it now."""
    t = target(repo)
    children = []
    try:
        for _ in range(CYCLES):
            children.append(launcher.spawn(t, os.environ))
            launcher.stop(t)
        assert eventually(lambda: not daemons_of(repo), seconds=5.0), daemons_of(repo)
        assert presence.start_locks(t.places) == []
        assert client.state(t)[0] == "not-running"
    finally:
        for child in children:
            child.kill()
            child.wait()


def test_a_spawned_daemon_drops_its_start_lock_once_it_serves(repo: Path) -> None:
    t = target(repo)
    daemon = launcher.spawn(t, os.environ)
    try:
        lock = presence.start_lock(t.places, daemon.pid)
        assert lock.read_text() == f"{daemon.pid}\n"
        assert lock.stat().st_mode & 0o777 == 0o600
        assert eventually(lambda: client.state(t)[0] == "running")
        assert eventually(lambda: not lock.exists())
        assert launcher.starting(t) == []
        assert launcher.stop(t)
    finally:
        daemon.kill()
        daemon.wait()


@needs_proc
def test_stop_does_not_signal_a_start_lock_naming_another_process(
    repo: Path, bystander: subprocess.Popen[bytes]
) -> None:
    """A lock whose pid is not a kroute daemon of this root (reused, or planted) is stale."""
    t = target(repo)
    t.places.runtime.mkdir(parents=True, mode=0o700)
    lock = presence.start_lock(t.places, bystander.pid)
    lock.write_text(f"{bystander.pid}\n")
    assert launcher.starting(t) == []
    assert not launcher.stop(t)
    assert bystander.poll() is None and not lock.exists()


# -- a daemon that dies at start, starts at once ------------------------------------------------

FILE_LIMIT = 2048  # bytes any file may grow to: a log already past it is as good as a full disk


def limited_files() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def test_start_reports_a_daemon_that_died_at_start_with_its_reason(repo: Path) -> None:
    """A daemon that cannot write its log (a full state disk) dies once it serves: `start`
    says so and why, instead of "started"."""
    log = target(repo).places.log
    log.parent.mkdir(mode=0o700, parents=True)
    log.write_bytes(b"an old line\n" * FILE_LIMIT)  # past the limit: no write to it succeeds
    result = subprocess.run(
        [str(KROUTE), "start"],
        cwd=repo,
        capture_output=True,
        text=True,
        preexec_fn=limited_files,  # inherited by the daemon
        timeout=120,
    )
    assert result.returncode == 1
    assert "started" not in result.stdout
    assert "exited at start" in result.stderr
    assert f"its log {log} cannot be written (File too large)" in result.stderr
    assert client.state(target(repo))[0] != "running"


STARTS = 4


def test_concurrent_starts_agree_on_one_daemon_and_say_so(repo: Path) -> None:
    starts = [
        subprocess.Popen(
            [str(KROUTE), "start"],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(STARTS)
    ]
    results = [(s.wait(timeout=120), *s.communicate()) for s in starts]
    assert [code for code, _, _ in results] == [0] * STARTS, results
    said = sorted(out.split(":")[0] for _, out, _ in results)
    assert said.count("started") == 1, results
    assert set(said) <= {"started", "already running", "already starting"}
    assert client.state(target(repo))[0] == "running"
    if PROC.is_dir():
        assert eventually(lambda: len(daemons_of(repo)) == 1)
