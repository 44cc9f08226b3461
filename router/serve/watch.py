"""The one seam between the daemon and the file-watching library (watchfiles), and the
re-arming that keeps the watches on the paths the daemon means.

A watch follows an inode, not a path: when a watched root is deleted and recreated (`rm -rf
docs && git checkout docs`), renamed away, or a watched file is replaced by an atomic save
(`sed -i`, an editor writing a temporary file and renaming it over), the watch is left on
something that is no longer there. `follow` notices that and sets the watches afresh.

A burst of changes (a checkout, a rebase, a folder deleted and restored) comes as many
batches; `bursts` merges them into one, so that the daemon applies the burst as one update and
a route sees the catalog before it or after it, never a part.

Tests replace `changes` with a function of the same shape; nothing else imports watchfiles.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

# watchfiles yields a change within milliseconds with these settings (DESIGN 10; README:
# Benchmarks, update visible); its default debounce would hide an edit from the next route
# for seconds.
DEBOUNCE_MS = 10
STEP_MS = 5
# How often the watcher wakes with nothing to report: its first wake says its watches are
# set, which the daemon waits for before it answers (a file written right after `kroute
# start` returns must be seen). Every wake also checks that the watched paths are still the
# ones watched, so a replaced root or config is re-armed within about this long.
IDLE_MS = 50
# After the watches could not be set (a path vanished between naming and watching it), wait
# this long before trying again, so a path that keeps vanishing does not spin the watcher.
RETRY_SECONDS = 0.05

# A burst ends once no change came for this long (and no git operation holds its lock): long
# enough to span the gap between `rm -rf docs` and the `git checkout docs` after it, and the
# watches being set afresh in between; short enough that an edit reaches the next prompt.
QUIET_SECONDS = 0.2
# A burst is applied at the latest this long after it began, however long its writer goes on,
# so that a process rewriting the catalog without pause cannot keep the index from changing.
BURST_LIMIT_SECONDS = 10.0
# What a git operation holds while it changes the index and the working tree.
GIT_LOCK = "index.lock"

Changes = Callable[[Sequence[Path], threading.Event], Generator[set[Path], None, None]]
# What a watch is bound to, per target: (device, inode), or None for a missing path. An inode
# number can be reused by a directory recreated at once, so a change naming the target itself
# also re-arms.
Identity = tuple[tuple[Path, tuple[int, int] | None], ...]


@dataclass(frozen=True, slots=True)
class Batch:
    """What `follow` reports: changed paths, or (`resync`) that the watches were set afresh
    and whatever changed meanwhile is unknown, so everything must be read again."""

    paths: frozenset[Path] = frozenset()
    resync: bool = False


def changes(targets: Sequence[Path], stop: threading.Event) -> Generator[set[Path], None, None]:
    """Yield sets of changed paths under `targets` (which must exist) until `stop` is set;
    an empty set now and then says the watches are in place and nothing changed.

    Raises OSError (FileNotFoundError) when a target is missing as the watches are set."""
    import watchfiles  # imported here so that importing the daemon module stays cheap

    for batch in watchfiles.watch(
        *targets,
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        stop_event=stop,
        rust_timeout=IDLE_MS,
        yield_on_timeout=True,
        raise_interrupt=False,
    ):
        yield {Path(path) for _, path in batch}


def identity(targets: Sequence[Path]) -> Identity:
    """Return what a watch set on each target now would be bound to: its (device, inode),
    or None when it is missing."""
    marks: list[tuple[Path, tuple[int, int] | None]] = []
    for path in targets:
        try:
            info = path.stat()
        except OSError:
            marks.append((path, None))
            continue
        marks.append((path, (info.st_dev, info.st_ino)))
    return tuple(marks)


def follow(
    targets: Callable[[], Sequence[Path]],
    stop: threading.Event,
    rearm: threading.Event,
    watch: Changes = changes,
) -> Iterator[Batch]:
    """Yield batches of changes under the paths `targets()` names until `stop` is set.

    Only the named paths that exist are watched. The watches are set afresh when `targets()`
    names other paths; when a named path is gone, appeared, or is another file or directory
    than the one watched (deleted and recreated, renamed away and back, replaced by an atomic
    save); when a change names a target itself (the way a deletion or replacement shows even
    when the new directory or file reuses the old inode number); and when `rearm` is set.
    Once the new watches are in place a `resync` batch follows, since changes made meanwhile
    were not seen. The first batch (empty) says the first watches are in place. A failure
    to set the watches is logged and retried."""
    resync = False
    while not stop.is_set():
        rearm.clear()
        wanted = list(targets())
        armed = identity(wanted)
        present = [path for path, mark in armed if mark is not None]
        stream = watch(present, stop) if present else _quiet(stop)
        try:
            for paths in stream:
                named = not paths.isdisjoint(wanted)  # a target itself went, or was replaced
                if named or rearm.is_set() or identity(list(targets())) != armed:
                    break  # this batch is covered by the resync after re-arming
                yield Batch(resync=True) if resync else Batch(frozenset(paths))
                resync = False
        except OSError as error:
            print(f"watch not set on {', '.join(map(str, present))}: {error}", file=sys.stderr)
            stop.wait(RETRY_SECONDS)
        finally:
            stream.close()
        resync = True


def _quiet(stop: threading.Event) -> Generator[set[Path], None, None]:
    """Yield an empty set every IDLE_MS until `stop` is set: nothing to watch, but the
    named paths are still checked for appearing."""
    while not stop.wait(IDLE_MS / 1000):
        yield set()


def bursts(
    batches: Iterable[Batch],
    busy: Callable[[], bool] = lambda: False,
    began: Callable[[], object] = lambda: None,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[Batch]:
    """Yield the batches of `batches` merged, one per burst of changes: a burst ends at the
    first batch (an empty one, on the watcher's idle wake) that comes QUIET_SECONDS after
    the last change while `busy()` is false, or BURST_LIMIT_SECONDS after the burst began.
    `began` is called as a burst begins. Empty batches pass through while no burst is held
    (the first says the watches are set); a burst held when `batches` ends is yielded."""
    held: Batch | None = None
    first = last = 0.0
    for batch in batches:
        now = clock()
        if batch.paths or batch.resync:
            if held is None:
                began()
                held, first = batch, now
            else:
                held = Batch(held.paths | batch.paths, held.resync or batch.resync)
            last = now
        elif held is None:
            yield batch
            continue
        if now - first >= BURST_LIMIT_SECONDS or (now - last >= QUIET_SECONDS and not busy()):
            yield held
            held = None
    if held is not None:
        yield held


def git_busy(root: Path) -> bool:
    """Return whether a git operation (a checkout, a rebase step, a merge) is under way in the
    repository holding `root`: its index lock exists. False outside a git repository."""
    for folder in (root, *root.parents):
        dot = folder / ".git"
        try:
            if dot.is_file():  # a worktree or a submodule: `gitdir: <where>`
                where = dot.read_text(encoding="utf-8").partition("gitdir:")[2].strip()
                return (folder / where / GIT_LOCK).exists()
            if dot.is_dir():
                return (dot / GIT_LOCK).exists()
        except OSError:
            return False
    return False
