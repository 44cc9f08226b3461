"""Anchors (DESIGN 6 step 2): the file paths a task names, and the entries whose governs
targets cover them. Pure: a function of the index and the words."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from router.catalog.entry import Entry
from router.core import deadline, text
from router.ranking.index import Index


def named(
    index: Index,
    words: Iterable[str],
    root: str,
    stop: deadline.Stop | None = None,
    languages: bool = True,
) -> tuple[tuple[str, ...], list[Entry], dict[str, list[str]]]:
    """Return the anchors the words name (a task's words, then its explicit paths) in their
    order, the entries governing any of them, and per entry id the anchors it governs (in
    order). Without `languages`, a pattern covering every file of an extension (`**/*.py`)
    governs nothing here (`Index.governing`). An absolute path outside `root` (when it is
    known) names no anchor: governs targets are paths inside the repository, and `*.go`
    does not make `/etc/x.go` a file of it. Raises deadline.AbandonedError when `stop`, asked
    before each word that may be a path is looked up, says to stop."""
    anchors: list[str] = []
    entries: dict[str, Entry] = {}
    governed: dict[str, list[str]] = {}
    for word in dict.fromkeys(words):  # a log repeats paths
        if not text.may_be_path(word):
            continue
        deadline.check(stop)
        best: tuple[str, list[Entry]] | None = None
        for reading in text.path_readings(word):
            reading = relative(reading, root)
            if (root and _outside(reading)) or not text.looks_like_path(reading):
                continue
            governing = index.governing(reading, languages)
            # The reading most entries govern wins, the earliest on a tie: a directory target
            # also covers `src/a.rs:12.`, but the clean `src/a.rs` is what the task names.
            if governing and (best is None or len(governing) > len(best[1])):
                best = (reading, governing)
        if best is not None:
            if best[0] not in anchors:
                anchors.append(best[0])
            for e in best[1]:
                entries.setdefault(e.id, e)
                named = governed.setdefault(e.id, [])
                if best[0] not in named:
                    named.append(best[0])
    return tuple(anchors), list(entries.values()), governed


def relative(reading: str, root: str) -> str:
    """Return an absolute path inside the repository as a repository-relative one."""
    root = root.rstrip("/")
    if root and reading.startswith(root + "/"):
        return reading[len(root) + 1 :]
    return reading.removeprefix("./")


def _outside(reading: str) -> bool:
    """Return whether a path made relative to the root (`relative`) lies outside it: still
    absolute, or climbing out with `..`."""
    if reading.startswith("/"):
        return True
    if "/../" not in f"/{reading}/":
        return False
    return posixpath.normpath(reading).split("/")[0] == ".."


def governing(index: Index, path: str, root: str) -> list[Entry]:
    """Return the entries governing a focus path; none for a path outside the repository
    (an absolute path that is not under `root`), which no governs target can name."""
    inside = relative(path, root)
    if not inside or inside.startswith("/"):
        return []
    return index.governing(inside)
