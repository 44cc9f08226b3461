"""Snapshots: an engine written to disk and read back routes exactly as one loaded cold, and
the files changed since are read again (edited, added, removed), and nothing else."""

from __future__ import annotations

import os
import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from router import __version__
from router.catalog import config, reader
from router.runtime import census, intake, snapshot
from router.runtime.engine import Engine
from testing.paths import DEMO

TASKS = (
    "retry a failed webhook delivery",
    "rotate the webhook signing key",
    "why do we store money as integer cents",
    "add type hints to src/api/payments.py",
    "sloth molasses glacier",
)
NEW_DOC = """---
id: TW-SNAP-{n}
kind: how_to
title: Calm the {words}
summary: How to calm the {words} without waking anything else.
---
# Calm the {words}

Steps for the {words}.
"""


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    """The demo catalog, its files last modified an hour ago (a repository at rest)."""
    tree = copy_tree(DEMO)
    for path in tree.rglob("*"):
        backdate(path)
    return tree


def configured(repo: Path) -> config.Config:
    return config.load((repo / "kroute.toml").resolve())


def routes(engine: Engine, cfg: config.Config) -> list[bytes]:
    """Return the route documents of TASKS, as bytes (what a client would be sent)."""
    return [repr(engine.route(intake.route({"task": task}, cfg))).encode() for task in TASKS]


def saved(repo: Path, tmp_path: Path, began_ns: int | None = None) -> tuple[config.Config, Path]:
    """Return the config and the snapshot of the demo loaded now (reads beginning now, or at
    `began_ns`)."""
    began_ns = time.time_ns() if began_ns is None else began_ns
    cfg = configured(repo)
    path = tmp_path / "snapshots" / "snap.pickle"
    path.parent.mkdir()
    assert snapshot.save(Engine.load(cfg), path, began_ns) > 0
    return cfg, path


def backdate(path: Path, seconds: float = 3600) -> None:
    """Set a file's times an hour back, as an edit made long before a snapshot would."""
    past = time.time() - seconds
    os.utime(path, (past, past))


def test_a_restored_engine_routes_as_a_cold_one(repo: Path, tmp_path: Path) -> None:
    cfg, path = saved(repo, tmp_path)
    restored = snapshot.restore(cfg, path, __version__)
    assert restored is not None and restored.changed == ()
    assert routes(restored.engine, cfg) == routes(Engine.load(cfg), cfg)
    assert restored.engine.catalog.fingerprint == Engine.load(cfg).catalog.fingerprint


def test_a_restored_index_reads_bodies_and_postings_from_the_mapped_file(
    repo: Path, tmp_path: Path
) -> None:
    """A restart does not copy bodies and postings in: they stay in the snapshot file, mapped,
    and evidence still names the body section a word reached."""
    cfg, path = saved(repo, tmp_path)
    restored = snapshot.restore(cfg, path, __version__)
    assert restored is not None
    index = restored.engine.index
    with_body = [i.entry for i in index if i.entry.body]
    assert with_body and all(isinstance(e.body, snapshot.MappedBody) for e in with_body)
    cold = {e.id: e for e in Engine.load(cfg).index.entries()}
    assert all(tuple(e.body) == cold[e.id].body and e.body == cold[e.id].body for e in with_body)
    assert all(isinstance(p.slots, memoryview) for p in index._postings.values())
    task = "the pager fires on consumer lag"  # "pager" and "fires" are in a body alone
    mapped = restored.engine.route(intake.route({"task": task}, cfg))
    assert mapped == Engine.load(cfg).route(intake.route({"task": task}, cfg))
    reached = {f["field"]: f["terms"] for f in mapped["pointers"][0]["evidence"]["fields"]}
    assert reached["body (text)"] == ["pager", "fires"]


def test_a_restored_engine_changed_and_saved_again_restores_as_a_cold_one(
    repo: Path, tmp_path: Path
) -> None:
    """A posting mapped from the file is copied out when a change touches it, and a snapshot
    of a restored engine (its bodies still mapped) reads back whole."""
    cfg, path = saved(repo, tmp_path)
    restored = snapshot.restore(cfg, path, __version__)
    assert restored is not None
    docs = repo / "docs" / "how-to"
    (docs / "new.md").write_text(NEW_DOC.format(n=2, words="webhook sloth"))
    relpath = "docs/how-to/new.md"
    engine = restored.engine
    engine.update([relpath])
    assert routes(engine, cfg) == routes(Engine.load(cfg), cfg)
    again = tmp_path / "again.pickle"
    snapshot.save(engine, again, time.time_ns())
    path.unlink()  # the first file's mapping stays valid; the second must not need it
    second = snapshot.restore(cfg, again, __version__)
    assert second is not None
    assert routes(second.engine, cfg) == routes(Engine.load(cfg), cfg)


@pytest.mark.parametrize(
    "helper",
    [False, pytest.param(True, marks=pytest.mark.process)],  # the helper is a process
    ids=["walked-here", "walked-by-a-helper"],
)
def test_files_changed_since_are_read_again_and_only_they(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helper: bool
) -> None:
    helpers: list[list[str]] = []
    if helper:  # as for a large catalog: the walk is made by a helper process (`census`)
        monkeypatch.setattr(census, "HELPER_FILES", 1)
        command = census.command

        def recorded() -> list[str]:
            argv = command()
            helpers.append(argv)
            return argv

        monkeypatch.setattr(census, "command", recorded)
    cfg, path = saved(repo, tmp_path)
    docs = repo / "docs" / "how-to"
    edited = sorted(docs.glob("*.md"))[0]
    edited.write_text(edited.read_text() + "\nAlso the sloth molasses glacier.\n")
    (docs / "new.md").write_text(NEW_DOC.format(n=1, words="sloth molasses glacier"))
    removed = sorted(docs.glob("*.md"))[-1]
    removed.unlink()
    for touched in (edited, docs / "new.md"):
        backdate(touched)  # still changed: the stamp (size, mtime) differs

    reads: list[str] = []
    read = reader.read

    def counted(cfg: config.Config, relpath: str) -> object:
        reads.append(relpath)
        return read(cfg, relpath)

    monkeypatch.setattr(reader, "read", counted)
    restored = snapshot.restore(cfg, path, __version__)
    assert restored is not None
    rel = {p.relative_to(repo).as_posix() for p in (edited, docs / "new.md", removed)}
    assert set(restored.changed) == rel
    assert set(reads) == rel - {removed.relative_to(repo).as_posix()}
    monkeypatch.setattr(reader, "read", read)
    assert routes(restored.engine, cfg) == routes(Engine.load(cfg), cfg)
    assert len(helpers) == int(helper)


def test_a_file_edited_as_the_reads_began_is_read_again(repo: Path, tmp_path: Path) -> None:
    """An edit in the same clock tick as the read leaves size and mtime as the snapshot has
    them; a file modified at or after the time the reads began (here every file: they were
    modified an hour ago, as the reads began) is therefore read again."""
    an_hour_ago = time.time_ns() - 3600 * 10**9
    cfg, path = saved(repo, tmp_path, began_ns=an_hour_ago)
    restored = snapshot.restore(cfg, path, __version__)
    assert restored is not None
    assert len(restored.changed) == len(restored.engine.catalog.files)  # all just copied


@pytest.mark.parametrize(
    ("spoil", "reason"),
    [
        (lambda h: h | {"version": "0.0.0"}, "another kroute version"),
        (lambda h: h | {"code": "0" * 16}, "another build of this kroute version"),
        (lambda h: h | {"format": snapshot.FORMAT + 1}, "an older snapshot format"),
        (lambda h: h | {"python": (2, 7)}, "another Python version"),
        (lambda h: h | {"magic": "something else"}, "not a kroute snapshot"),
    ],
)
def test_a_snapshot_of_another_kind_is_refused_with_its_reason(
    repo: Path, tmp_path: Path, spoil: Callable[[dict[str, Any]], dict[str, Any]], reason: str
) -> None:
    cfg, path = saved(repo, tmp_path)
    with path.open("rb") as source:
        header, body = pickle.load(source), source.read()
    with path.open("wb") as out:
        pickle.dump(spoil(header), out)
        out.write(body)
    with pytest.raises(snapshot.UnusableError, match=reason):
        snapshot.restore(cfg, path, __version__)


def test_another_configuration_is_refused(repo: Path, tmp_path: Path) -> None:
    _, path = saved(repo, tmp_path)
    toml = repo / "kroute.toml"
    toml.write_text(toml.read_text().replace("exclude = []", 'exclude = ["docs/how-to/**"]'))
    with pytest.raises(snapshot.UnusableError, match="another configuration"):
        snapshot.restore(configured(repo), path, __version__)


@pytest.mark.parametrize("keep", [0, 10, 0.5])
def test_a_cut_or_garbled_snapshot_is_refused(repo: Path, tmp_path: Path, keep: float) -> None:
    cfg, path = saved(repo, tmp_path)
    raw = path.read_bytes()
    cut = raw[: int(len(raw) * keep)] if isinstance(keep, float) else raw[:keep]
    path.write_bytes(cut)
    with pytest.raises(snapshot.UnusableError):
        snapshot.restore(cfg, path, __version__)


def test_no_snapshot_is_none(repo: Path, tmp_path: Path) -> None:
    assert snapshot.restore(configured(repo), tmp_path / "absent.pickle", __version__) is None


def test_a_snapshot_is_written_whole_and_private(repo: Path, tmp_path: Path) -> None:
    _, path = saved(repo, tmp_path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["snap.pickle"]  # no partial file left


def test_a_write_that_fails_leaves_the_old_snapshot(repo: Path, tmp_path: Path) -> None:
    cfg, path = saved(repo, tmp_path)
    before = path.read_bytes()
    engine = Engine.load(cfg)
    # an attribute no Index declares, holding what pickle cannot write
    engine.index.unpicklable = lambda: None  # type: ignore[attr-defined]
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        snapshot.save(engine, path, time.time_ns())
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == ["snap.pickle"]
