"""watch.follow: the watches stay on the paths the daemon means, whatever git and editors do
to the inodes (defect 10 and 11), with the real watchfiles and with a fake seam."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path

import pytest

from router.serve import watch
from router.serve.watch import Batch
from testing.wait import eventually

# Generous: the real watcher reports in milliseconds; a watch that is gone never does.
DEADLINE_SECONDS = 20.0


class Follower:
    """`watch.follow` run on a thread, collecting its batches."""

    def __init__(
        self, targets: Callable[[], Sequence[Path]], seam: watch.Changes = watch.changes
    ) -> None:
        self.stop, self.rearm = threading.Event(), threading.Event()
        self.batches: list[Batch] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, args=(targets, seam), daemon=True)
        self.thread.start()

    def _run(self, targets: Callable[[], Sequence[Path]], seam: watch.Changes) -> None:
        for batch in watch.follow(targets, self.stop, self.rearm, seam):
            with self.lock:
                self.batches.append(batch)

    def seen(self) -> set[Path]:
        with self.lock:
            return {path for batch in self.batches for path in batch.paths}

    def resyncs(self) -> int:
        with self.lock:
            return sum(batch.resync for batch in self.batches)

    def wait(self, check: Callable[[], bool]) -> bool:
        """Wait for a condition the watcher reaches asynchronously (not a timing assertion)."""
        return eventually(check, DEADLINE_SECONDS)

    def wait_resyncs(self, count: int) -> bool:
        """Wait until the watcher has resynced at least `count` times."""
        return self.wait(lambda: self.resyncs() >= count)

    def wait_seen(self, path: Path) -> bool:
        """Wait until the watcher has reported `path`."""
        return self.wait(lambda: path in self.seen())

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "docs" / "a").mkdir(parents=True)
    (tmp_path / "docs" / "a" / "one.md").write_text("one")
    (tmp_path / "kroute.toml").write_text("roots = ['docs']\n")
    return tmp_path


@pytest.fixture
def follower(tree: Path) -> Iterator[Follower]:
    running = Follower(lambda: [tree / "docs", tree / "kroute.toml"])
    assert running.wait(lambda: bool(running.batches)), "the first watches were never set"
    yield running
    running.close()


def test_a_root_deleted_and_recreated_is_watched_again(tree: Path, follower: Follower) -> None:
    """Defect 10: after rmtree + copytree, files under the new root are reported."""
    saved = tree / "saved"
    shutil.copytree(tree / "docs", saved)
    for n in range(5):
        shutil.rmtree(tree / "docs")
        shutil.copytree(saved, tree / "docs")
        assert follower.wait_resyncs(n + 1)
        new = tree / "docs" / "a" / f"new-{n}.md"
        new.write_text("new")
        assert follower.wait_seen(new), f"round {n}"


def test_a_root_renamed_away_and_back_is_watched_again(tree: Path, follower: Follower) -> None:
    """Defect 10: while away nothing under the old name is reported; back, it is."""
    for n in range(5):
        (tree / "docs").rename(tree / "away")
        assert follower.wait_resyncs(2 * n + 1)
        (tree / "away" / f"while-away-{n}.md").write_text("x")
        (tree / "away").rename(tree / "docs")
        assert follower.wait_resyncs(2 * n + 2)
        back = tree / "docs" / f"back-{n}.md"
        back.write_text("x")
        assert follower.wait_seen(back), f"round {n}"
    assert not any("while-away" in path.name for path in follower.seen())


def test_every_atomic_save_of_a_watched_file_is_seen(tree: Path, follower: Follower) -> None:
    """Defect 11: a file replaced by rename (sed -i, editors, git) is watched again each time:
    every save gives a change or a resync."""
    config = tree / "kroute.toml"
    for n in range(5):
        before = follower.resyncs()
        temp = tree / ".kroute.toml.tmp"
        temp.write_text(f"roots = ['docs']  # {n}\n")
        os.replace(temp, config)
        assert follower.wait_resyncs(before + 1), f"save {n}"


def test_a_missing_root_is_watched_once_it_appears(tmp_path: Path) -> None:
    """A root missing when the watcher starts is picked up when it is created."""
    running = Follower(lambda: [tmp_path / "docs"])
    try:
        assert running.wait(lambda: bool(running.batches))
        (tmp_path / "docs").mkdir()
        assert running.wait(lambda: running.resyncs() == 1)
        (tmp_path / "docs" / "x.md").write_text("x")
        assert running.wait(lambda: tmp_path / "docs" / "x.md" in running.seen())
    finally:
        running.close()


# -- with a fake seam --------------------------------------------------------------------------


class FakeSeam:
    """A `watch.Changes` that records what it was asked to watch and yields empty batches."""

    def __init__(self) -> None:
        self.calls: list[list[Path]] = []
        self.closed = 0

    def __call__(
        self, targets: Sequence[Path], stop: threading.Event
    ) -> Generator[set[Path], None, None]:
        self.calls.append(list(targets))
        try:
            while not stop.wait(0.01):
                yield set()
        finally:
            self.closed += 1


def test_rearm_sets_the_watches_afresh_and_asks_for_a_resync(tmp_path: Path) -> None:
    """Defect 10 (a reload re-arms): setting `rearm` closes the watch, sets a new one and
    yields a resync batch once it is in place."""
    seam = FakeSeam()
    running = Follower(lambda: [tmp_path], seam)
    try:
        assert running.wait(lambda: len(seam.calls) == 1 and bool(running.batches))
        assert running.resyncs() == 0
        running.rearm.set()
        assert running.wait(lambda: len(seam.calls) == 2 and running.resyncs() == 1)
        assert seam.closed == 1 and not running.rearm.is_set()
    finally:
        running.close()
    assert seam.closed == 2


def test_only_existing_targets_are_watched(tmp_path: Path) -> None:
    seam = FakeSeam()
    running = Follower(lambda: [tmp_path / "absent", tmp_path], seam)
    try:
        assert running.wait(lambda: bool(seam.calls))
        assert seam.calls[0] == [tmp_path]
    finally:
        running.close()


def test_a_failure_to_set_the_watches_is_retried(tmp_path: Path) -> None:
    """A target vanishing between naming and watching it does not end the watcher."""
    attempts: list[int] = []

    def flaky(targets: Sequence[Path], stop: threading.Event) -> Generator[set[Path], None, None]:
        attempts.append(1)
        if len(attempts) == 1:
            raise FileNotFoundError("vanished")
        while not stop.wait(0.01):
            yield set()

    running = Follower(lambda: [tmp_path], flaky)
    try:
        assert running.wait(lambda: len(attempts) == 2 and running.resyncs() == 1)
    finally:
        running.close()


def test_identity_names_device_and_inode_or_none(tmp_path: Path) -> None:
    file = tmp_path / "f"
    file.write_text("x")
    info = file.stat()
    assert watch.identity([file, tmp_path / "absent"]) == (
        (file, (info.st_dev, info.st_ino)),
        (tmp_path / "absent", None),
    )


# -- bursts: many batches, one update (issue 31) -----------------------------------------------


class Clock:
    """A clock the test moves by hand (`bursts` reads no other)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_is_one_batch_held_while_git_works() -> None:
    """A folder deleted (its files, then a resync once the watches are set afresh) and
    restored by git comes out as one batch, only once git is done and the changes quiet."""
    clock, git, begun = Clock(), {"busy": False}, []
    a, b = Path("/r/docs/a.md"), Path("/r/docs/b.md")
    quiet = watch.QUIET_SECONDS

    def stream() -> Iterator[Batch]:
        yield Batch()  # the watches are set
        clock.now = 1.0
        yield Batch(frozenset({a}))
        clock.now = 1.0 + quiet / 2
        yield Batch(resync=True)
        git["busy"] = True
        clock.now = 1.0 + quiet * 3
        yield Batch()  # quiet, but git holds its lock
        clock.now = 1.0 + quiet * 4
        yield Batch(frozenset({b}))
        git["busy"] = False
        clock.now = 1.0 + quiet * 4.5
        yield Batch()
        clock.now = 1.0 + quiet * 5.5
        yield Batch()
        yield Batch()

    out = list(watch.bursts(stream(), lambda: git["busy"], lambda: begun.append(clock.now), clock))
    assert out == [Batch(), Batch(frozenset({a, b}), resync=True), Batch()]
    assert begun == [1.0]


def test_a_burst_that_never_quiets_is_applied_at_its_limit() -> None:
    clock = Clock()
    step = watch.QUIET_SECONDS / 2
    changes = int(watch.BURST_LIMIT_SECONDS / step) + 5

    def stream() -> Iterator[Batch]:
        for n in range(changes):
            clock.now = n * step
            yield Batch(frozenset({Path(f"/r/docs/{n}.md")}))

    out = list(watch.bursts(stream(), clock=clock))
    assert len(out) == 2
    assert len(out[0].paths) == int(watch.BURST_LIMIT_SECONDS / step) + 1


def test_git_busy_is_the_index_lock_of_the_repository_holding_the_root(tmp_path: Path) -> None:
    root = tmp_path / "repo" / "sub"
    root.mkdir(parents=True)
    assert not watch.git_busy(root)
    (tmp_path / "repo" / ".git").mkdir()
    assert not watch.git_busy(root)
    (tmp_path / "repo" / ".git" / "index.lock").write_text("")
    assert watch.git_busy(root)
    worktree = tmp_path / "worktree"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {tmp_path / 'repo' / '.git'}\n")
    assert watch.git_busy(worktree)
