"""Updates never block requests (issue 31, item 2): a change is made beside the index that
serves and swapped in whole, a burst of changes is one update, status answers at any time,
and after any sequence of changes the daemon's index is a cold load's. Real files, real git,
the real watcher in a real daemon process."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from router import client
from router.catalog import config
from router.client import locate
from router.ranking import field, index
from router.runtime.engine import Engine
from router.serve import daemon, update
from testing.paths import DEMO
from testing.process import git, kroute
from testing.wait import eventually, within

# How long a request or a settling daemon is given (generous: the box is loaded); not a
# timing assertion.
ANSWER_SECONDS = 10.0
SETTLE_SECONDS = 60.0
DOC = "---\nid: {id}\ntitle: {title}\nsummary: {words}\n---\n\n# {title}\n\n{words}\n"
BRANCH_DOCS = 300


def started(repo: Path) -> client.Target:
    result = kroute("start", cwd=repo)
    assert result.returncode == 0, result.stderr
    return client.target(repo.resolve(), (repo / "kroute.toml").resolve(), os.environ)


def status(target: client.Target) -> dict[str, Any]:
    document = client.call(target, "GET", "/v1/status", timeout=ANSWER_SECONDS).json()
    assert isinstance(document, dict)
    return document


def cold(repo: Path) -> tuple[str, list[str]]:
    """Return the fingerprint and the entry ids (in path order) of a cold load of `repo`."""
    engine = Engine.load(config.load((repo / "kroute.toml").resolve()))
    return engine.catalog.fingerprint, [e["id"] for e in engine.listing()["entries"]]


def served(target: client.Target) -> tuple[str, list[str]]:
    """Return the fingerprint and the entry ids (in path order) the daemon serves."""
    listing = client.call(target, "GET", "/v1/catalog", timeout=ANSWER_SECONDS).json()
    return status(target)["fingerprint"], [e["id"] for e in listing["entries"]]


def settled_as_cold(target: client.Target, repo: Path) -> None:
    """Wait until the daemon has no update pending and serves what a cold load gives."""
    want = cold(repo)

    def same() -> bool:
        return not status(target)["updating"] and served(target) == want

    assert eventually(same, SETTLE_SECONDS), f"daemon {served(target)} != cold load {want}"


# -- a change is made beside the index that serves -------------------------------------------


def test_status_and_routes_answer_from_the_index_before_while_an_update_is_made(
    copy_tree: Callable[[Path], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a changed document is being indexed, status answers at once and says an update
    is in progress, and a route answers from the whole catalog before the change."""

    repo = copy_tree(DEMO)
    cfg = config.load((repo / "kroute.toml").resolve())
    running = daemon.Daemon(cfg, locate.places(cfg.root, cfg.file, os.environ, os.getuid()))
    running.prepare()
    before = len(running.engine.index)
    new = repo / "docs" / "how-to" / "stalled.md"
    new.write_text(DOC.format(id="TW-STALL", title="Stalled", words="sloth molasses glacier"))
    indexing, release = threading.Event(), threading.Event()
    fields_of = field.fields_of

    def stalled(item: Any) -> Any:
        if item.id == "TW-STALL":
            indexing.set()
            release.wait(60)
        return fields_of(item)

    monkeypatch.setattr(index, "fields_of", stalled)
    change = threading.Thread(target=running.apply, args=({new},))
    change.start()
    try:
        assert indexing.wait(ANSWER_SECONDS)
        code, now = within(ANSWER_SECONDS, lambda: running.dispatch("GET", "/v1/status", b""))
        assert code == 200 and now["updating"] is True and now["entries"] == before
        body = b'{"task": "rotate the webhook signing key"}'
        code, routed = within(ANSWER_SECONDS, lambda: running.dispatch("POST", "/v1/route", body))
        assert code == 200 and routed["catalog"]["entries"] == before
    finally:
        release.set()
        change.join(60)
    _, after = running.dispatch("GET", "/v1/status", b"")
    assert after["updating"] is False and after["entries"] == before + 1


# -- what no event reported is found by a census ------------------------------------------


def prepared(repo: Path) -> daemon.Daemon:
    cfg = config.load((repo / "kroute.toml").resolve())
    running = daemon.Daemon(cfg, locate.places(cfg.root, cfg.file, os.environ, os.getuid()))
    running.prepare()
    return running


def ids(running: daemon.Daemon) -> set[str]:
    return {e["id"] for e in running.engine.listing()["entries"]}


def test_a_burst_also_applies_the_changes_whose_events_were_lost(
    copy_tree: Callable[[Path], Path],
) -> None:
    """A burst that names one file still brings in the files no event named: one added, one
    deleted beside it; the index is then a cold load's, and status counts what was found."""
    repo = copy_tree(DEMO)
    running = prepared(repo)
    gone = next(iter(sorted((repo / "docs" / "how-to").glob("*.md"))))
    named, unnamed = repo / "docs" / "named.md", repo / "docs" / "unnamed.md"
    named.write_text(DOC.format(id="NAMED", title="Named", words="sloth"))
    unnamed.write_text(DOC.format(id="UNNAMED", title="Unnamed", words="heron"))
    gone.unlink()
    running.apply({named})
    assert {"NAMED", "UNNAMED"} <= ids(running)
    assert (running.engine.catalog.fingerprint, sorted(ids(running))) == (
        cold(repo)[0],
        sorted(cold(repo)[1]),
    )
    assert running.status()["unreported"] == 2  # the new file and the deleted one
    assert running.rearm.is_set()  # a folder may be unwatched: the watches are set afresh


@pytest.mark.process
def test_a_file_deleted_while_a_cold_load_is_kept_is_not_served_from_its_snapshot(
    copy_tree: Callable[[Path], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold-loaded daemon swaps in its engine read back from the snapshot it writes (so its
    postings are mapped, not held); a file deleted and one added after the reads, before the
    snapshot was written, are still in line once the swap is made."""

    from router.serve import loader

    repo = copy_tree(DEMO)
    gone = next(iter(sorted((repo / "docs" / "how-to").glob("*.md"))))
    keep = loader.keep

    def changed_then_kept(loaded: loader.Loaded, path: Path) -> str:
        gone.unlink()
        (repo / "docs" / "late.md").write_text(DOC.format(id="LATE", title="Late", words="owl"))
        return keep(loaded, path)

    monkeypatch.setattr(loader, "keep", changed_then_kept)
    cfg = config.load((repo / "kroute.toml").resolve())
    places = locate.places(cfg.root, cfg.file, os.environ, os.getuid())
    running = daemon.Daemon(cfg, places, snapshot_after=0.0)
    running.prepare()
    assert running.loaded is not None and running.loaded.mapped
    # the postings the two files leave alone are the snapshot's, mapped
    assert any(isinstance(p.slots, memoryview) for p in running.engine.index.each_posting())
    assert running.engine.catalog.fingerprint == cold(repo)[0]
    assert "LATE" in ids(running)


def test_an_idle_census_finds_a_change_no_event_reported(
    copy_tree: Callable[[Path], Path],
) -> None:
    """With nothing reported at all, the index still comes in line once an idle census is
    due, and not before."""
    repo = copy_tree(DEMO)
    running = prepared(repo)
    running.census()
    assert not running.rearm.is_set()  # nothing found, nothing to set afresh
    (repo / "docs" / "quiet.md").write_text(DOC.format(id="QUIET", title="Quiet", words="owl"))
    assert not running.census_due()  # just loaded: the load was the last look at the disk
    running.census_at -= update.CENSUS_IDLE_SECONDS
    assert running.census_due()
    running.census()
    assert "QUIET" in ids(running) and not running.census_due()
    assert running.engine.catalog.fingerprint == cold(repo)[0]


@pytest.mark.process
def test_an_edit_made_through_a_memory_map_reaches_the_index(
    copy_tree: Callable[[Path], Path],
) -> None:
    """A write through a memory map changes a file's content and time but sends no file
    event: the real watcher never names it, and a census reads it (the one after the next
    burst, here an unrelated file written; else the idle one)."""
    import mmap

    repo = copy_tree(DEMO)
    target = started(repo)
    settled_as_cold(target, repo)
    mapped = repo / "docs" / "mapped.md"
    mapped.write_text(DOC.format(id="MAPPED", title="Mapped", words="aaaaaaaaaa"))
    settled_as_cold(target, repo)
    before = status(target)["unreported"]
    stamp = mapped.stat().st_mtime_ns
    time.sleep(0.01)  # a later clock tick than the write above, so the stamp can differ
    with mapped.open("r+b") as handle, mmap.mmap(handle.fileno(), 0) as memory:
        at = memory.find(b"aaaaaaaaaa")
        memory[at : at + 10] = b"zzzzzzzzzz"
        memory.flush()
    assert mapped.stat().st_mtime_ns != stamp  # the write fault stamps the file
    assert b"zzzzzzzzzz" in mapped.read_bytes()
    (repo / "docs" / "poke.md").write_text(DOC.format(id="POKE", title="Poke", words="wren"))
    settled_as_cold(target, repo)
    assert status(target)["unreported"] >= before + 1
    kroute("stop", cwd=repo)


# -- a burst is one update ---------------------------------------------------------------------


@pytest.fixture
def branched(copy_tree: Callable[[Path], Path]) -> Path:
    """The demo as a git repository with a branch `other` adding BRANCH_DOCS documents in
    ten folders and deleting a folder of the demo."""
    repo = copy_tree(DEMO)
    git(repo, "init", "-q")
    git(repo, "checkout", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "main")
    git(repo, "checkout", "-q", "-b", "other")
    shutil.rmtree(repo / "docs" / "how-to")
    for n in range(BRANCH_DOCS):
        path = repo / "docs" / "generated" / f"group-{n % 10}" / f"doc-{n}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(DOC.format(id=f"GEN-{n}", title=f"Doc {n}", words=f"branch doc {n}"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "other")
    git(repo, "checkout", "-q", "main")
    return repo


class Poller:
    """Routes and asks for status without pause on a thread, keeping every route's entry
    count and every failure (a request unanswered in ANSWER_SECONDS among them)."""

    def __init__(self, target: client.Target) -> None:
        self.target = target
        self.counts: list[int] = []
        self.failures: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        body = {"task": "rotate the webhook signing key"}
        while not self.stop.is_set():
            try:
                routed = client.call(self.target, "POST", "/v1/route", body, timeout=ANSWER_SECONDS)
                self.counts.append(routed.json()["catalog"]["entries"])
                status(self.target)
            except Exception as error:
                self.failures.append(repr(error))

    def close(self) -> None:
        self.stop.set()
        self.thread.join(60)


@pytest.fixture
def poller(branched: Path) -> Iterator[Poller]:
    running = Poller(started(branched))
    yield running
    running.close()


@pytest.mark.process
def test_a_branch_switch_and_a_folder_deleted_and_restored_are_each_one_update(
    branched: Path, poller: Poller
) -> None:
    """Every route answers from the whole catalog before a checkout or the whole one after
    it, never a part; so does a folder deleted and checked out again at once (the catalog
    never goes empty); and status answers throughout."""
    target = poller.target
    settled_as_cold(target, branched)
    main = status(target)["entries"]
    git(branched, "checkout", "-q", "other")
    settled_as_cold(target, branched)
    other = status(target)["entries"]
    subprocess.run("rm -rf docs && git checkout docs", shell=True, cwd=branched, check=True)
    settled_as_cold(target, branched)
    git(branched, "checkout", "-q", "main")
    settled_as_cold(target, branched)
    poller.close()
    assert not poller.failures
    assert poller.counts, "no route was answered"
    assert set(poller.counts) <= {main, other}, sorted(set(poller.counts))


# -- after any sequence of changes, the index is a cold load's -------------------------------


FOLDERS = ("docs", "docs/a", "docs/b", "docs/a/deep")


@st.composite
def moves(draw: st.DrawFn) -> list[tuple[Any, ...]]:
    """Draw a sequence of changes to a catalog tree: (kind, picks...); picks are folded onto
    what exists when the change is made."""
    kinds = st.sampled_from(["add", "edit", "delete", "rename", "move folder", "delete folder"])
    step = st.tuples(kinds, st.integers(0, 99), st.integers(0, 99))
    return draw(st.lists(step, min_size=1, max_size=8))


class Tree:
    """A catalog tree under change, naming its documents and folders uniquely."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.made = 0
        (repo / "kroute.toml").write_text('roots = ["docs"]\n')
        for folder in FOLDERS:
            for _ in range(2):
                self.add(folder)

    def add(self, folder: str) -> None:
        self.made += 1
        path = self.repo / folder / f"doc-{self.made}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        words = f"subject {self.made} otter heron"
        path.write_text(DOC.format(id=f"D-{self.made}", title=f"Doc {self.made}", words=words))

    def documents(self) -> list[Path]:
        return sorted((self.repo / "docs").rglob("*.md"))

    def folders(self) -> list[Path]:
        return sorted(p for p in (self.repo / "docs").rglob("*") if p.is_dir())

    def make(self, kind: str, first: int, second: int) -> None:
        docs, folders = self.documents(), self.folders()
        if kind == "add" or not docs:
            self.add(FOLDERS[first % len(FOLDERS)])
        elif kind == "edit":
            doc = docs[first % len(docs)]
            doc.write_text(doc.read_text().replace("otter", f"otter {second}", 1))
        elif kind == "delete":
            docs[first % len(docs)].unlink()
        elif kind == "rename":
            self.made += 1
            doc = docs[first % len(docs)]
            doc.rename(doc.with_name(f"renamed-{self.made}.md"))
        elif folders and kind == "move folder":
            self.made += 1
            folder = folders[first % len(folders)]
            into = self.repo / FOLDERS[second % len(FOLDERS)]
            if into.is_dir() and not into.is_relative_to(folder):
                folder.rename(into / f"moved-{self.made}")
        elif folders and kind == "delete folder":
            folder = folders[first % len(folders)]
            saved = self.repo / f"saved-{self.made}"
            shutil.copytree(folder, saved)
            shutil.rmtree(folder)
            if second % 2:  # restored at once: the same burst
                shutil.copytree(saved, folder)
            shutil.rmtree(saved)


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[tuple[Tree, client.Target]]:
    repo = tmp_path / "repo"
    repo.mkdir()
    made = Tree(repo)
    yield made, started(repo)


@pytest.mark.process
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sequence=moves())
def test_after_any_sequence_of_changes_the_index_is_a_cold_load(
    tree: tuple[Tree, client.Target], sequence: list[tuple[Any, ...]]
) -> None:
    """Random adds, edits, deletes, renames, folder moves and folder deletions (some
    restored at once), made back to back: once they settle, the daemon's entries and
    fingerprint are those of a cold load of the tree."""
    made, target = tree
    for kind, first, second in sequence:
        made.make(kind, first, second)
    settled_as_cold(target, made.repo)
