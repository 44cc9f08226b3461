"""How a daemon gets its engine: from a snapshot when one serves, else cold; and when a
snapshot is written for the next start."""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from router import __version__
from router.catalog import config, reader
from router.catalog.config import Config
from router.client import locate
from router.runtime import intake, snapshot
from router.runtime.engine import Engine
from router.serve import loader
from testing.paths import DEMO


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    tree = copy_tree(DEMO)
    past = time.time() - 3600
    for path in tree.rglob("*"):
        os.utime(path, (past, past))
    return tree


@pytest.fixture
def cfg(repo: Path) -> Config:
    """The demo copy's configuration."""
    return config.load(repo / "kroute.toml")


def test_without_a_snapshot_it_loads_cold_and_keeps_one_for_next_time(
    cfg: Config, tmp_path: Path
) -> None:
    path = tmp_path / "state" / "snapshots" / "key.pickle"
    first = loader.load(cfg, path, __version__)
    assert (first.source, first.unused) == ("cold", None)
    assert first.reread == len(first.engine.catalog.files) > 0
    assert not first.worth_keeping()  # the demo loads in well under a second
    assert first.worth_keeping(after_seconds=0)
    said = loader.keep(first, path)
    assert said.startswith("snapshot written:") and path.is_file()
    assert path.parent.stat().st_mode & 0o777 == 0o700

    second = loader.load(cfg, path, __version__)
    assert (second.source, second.reread, second.unused) == ("snapshot", 0, None)
    assert len(second.engine.index) == len(first.engine.index)
    assert not second.worth_keeping(after_seconds=0)  # nothing changed: nothing to write


def test_a_snapshot_that_cannot_serve_is_named_and_the_load_is_cold(
    cfg: Config, tmp_path: Path
) -> None:
    path = tmp_path / "key.pickle"
    loader.keep(loader.load(cfg, path, "0.0.1"), path)
    loaded = loader.load(cfg, path, __version__)
    assert loaded.source == "cold"
    assert loaded.unused == "it was written by another kroute version"
    assert loaded.as_dict()["snapshot_unused"] == loaded.unused


def test_a_restored_snapshot_with_many_files_read_again_is_written_again(
    cfg: Config, tmp_path: Path
) -> None:
    engine = Engine.load(cfg)
    few = loader.Loaded(engine, "snapshot", 0.1, reread=loader.RESAVE_AT_LEAST - 1, began_ns=0)
    many = loader.Loaded(engine, "snapshot", 0.1, reread=loader.RESAVE_AT_LEAST, began_ns=0)
    assert not few.worth_keeping() and many.worth_keeping()


def test_a_snapshot_that_cannot_be_written_is_a_sentence_not_a_failure(
    cfg: Config, tmp_path: Path
) -> None:
    blocker = tmp_path / "snapshots"
    blocker.write_text("a file where the directory would go")
    said = loader.keep(loader.load(cfg, None, __version__), blocker / "key.pickle")
    assert said.startswith("snapshot not written (")


def test_the_loaded_index_is_kept_out_of_the_collectors_sight(repo: Path) -> None:
    gc.unfreeze()
    before = gc.get_freeze_count()
    loaded = loader.load(config.load(repo / "kroute.toml"), None, __version__)
    try:
        assert gc.isenabled()
        assert gc.get_freeze_count() > before + len(loaded.engine.index)
    finally:
        gc.unfreeze()


def test_an_answer_without_a_daemon_reads_the_daemons_snapshot(repo: Path, tmp_path: Path) -> None:
    cfg = config.load(repo / "kroute.toml")
    places = locate.places(repo, repo / "kroute.toml", {"KROUTE_HOME": str(tmp_path)}, os.getuid())

    def refused(_cfg: config.Config, _version: str) -> Engine:
        raise AssertionError("read the whole catalog although a snapshot serves")

    with pytest.raises(AssertionError):  # no snapshot yet: the catalog is read
        loader.once(cfg, places, os.getuid(), cold=refused)
    path = snapshot.path_of(places.state, places.key)
    path.parent.mkdir(mode=0o700, parents=True)
    loader.keep(loader.load(cfg, None, __version__), path)
    engine = loader.once(cfg, places, os.getuid(), cold=refused)
    assert len(engine.index) == len(Engine.load(cfg).index)
    # a snapshot others could have written is never unpickled
    os.chmod(path.parent, 0o777)
    with pytest.raises(AssertionError):
        loader.once(cfg, places, os.getuid(), cold=refused)


@pytest.mark.process
def test_a_cold_engine_is_served_again_from_the_snapshot_written_of_it(
    cfg: Config, tmp_path: Path
) -> None:
    path = tmp_path / "state" / "snapshots" / "key.pickle"
    cold = loader.load(cfg, path, __version__)
    assert not loader.mappable(cold, path)  # no snapshot written yet
    assert loader.read_back(cfg, path, __version__) is None
    loader.keep(cold, path)
    assert loader.mappable(cold, path)
    engine = loader.read_back(cfg, path, __version__)
    assert engine is not None and engine is not cold.engine
    # its postings are views of the mapped file, and it routes as the cold engine does
    assert all(isinstance(p.slots, memoryview) for p in engine.index.each_posting())
    assert engine.catalog.fingerprint == cold.engine.catalog.fingerprint
    for task in ("why do we use postgres", "how do I rotate the keys"):
        ask = intake.route({"task": task}, cfg)
        assert engine.route(ask) == cold.engine.route(ask)
    assert not loader.mappable(replace(cold, engine=engine, mapped=True), path)  # mapped once
    loader.release()  # nothing to check but that it returns


def test_a_snapshot_of_another_version_is_not_read_back(cfg: Config, tmp_path: Path) -> None:
    path = tmp_path / "state" / "snapshots" / "key.pickle"
    loader.keep(loader.load(cfg, None, __version__), path)
    with pytest.raises(snapshot.UnusableError, match="another kroute version"):
        loader.read_back(cfg, path, __version__ + ".other")


def test_a_restored_engine_is_not_mapped_again(cfg: Config, tmp_path: Path) -> None:
    path = tmp_path / "key.pickle"
    loader.keep(loader.load(cfg, path, __version__), path)
    restored = loader.load(cfg, path, __version__)
    assert restored.source == "snapshot"
    assert not loader.mappable(restored, path)


def test_a_cold_engine_mapped_reads_no_recent_file_again_but_one_changed_since(
    copy_tree: Callable[[Path], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every file modified as the reads begin, within the racy window (a clock a little ahead)
    repo = copy_tree(DEMO)
    ahead = time.time_ns() + 60 * 1_000_000_000 + 123
    for each in repo.rglob("*"):
        os.utime(each, ns=(ahead, ahead))
    cfg = config.load(repo / "kroute.toml")
    path = tmp_path / "state" / "snapshots" / "key.pickle"
    cold = loader.load(cfg, None, __version__)
    loader.keep(cold, path)
    edited = next(p for p in sorted((repo / "docs").rglob("*.md")))
    edited.write_text(edited.read_text(encoding="utf-8") + "\nA line added.\n", encoding="utf-8")
    later = ahead + 5 * 1_000_000_000
    os.utime(edited, ns=(later, later))  # a stamp unlike the one read
    read = reader.read
    reads: list[str] = []

    def counted(settings: config.Config, relpath: str) -> object:
        reads.append(relpath)
        return read(settings, relpath)

    monkeypatch.setattr(reader, "read", counted)
    assert loader.read_back(cfg, path, __version__) is not None
    assert reads == [edited.relative_to(repo).as_posix()]
    # a restart, which no watcher followed, reads again every file as recent as the reads
    reads.clear()
    assert loader.load(cfg, path, __version__).source == "snapshot"
    assert len(reads) == len(cold.engine.catalog.files)
