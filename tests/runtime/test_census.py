"""The catalog walk a restart makes in a helper process: the same answer as a walk made in
process, made only once the watches are armed, and a walk in process whenever the helper
fails."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from router.catalog import config, walk
from router.runtime import census
from testing.paths import DEMO


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO)


def configured(repo: Path) -> config.Config:
    return config.load((repo / "kroute.toml").resolve())


def walked_here(cfg: config.Config) -> census.Walked:
    stamps: dict[str, tuple[int, int]] = {}
    present, problems = walk.walked(cfg, stamps)
    return present, stamps, problems


@pytest.mark.process
def test_the_helper_walks_as_the_process_would(repo: Path) -> None:
    cfg = configured(repo)
    survey = census.Census(cfg, census.HELPER_FILES, lambda: None)
    assert survey.result() == walked_here(cfg)


@pytest.mark.process
def test_the_helper_walks_only_once_armed(repo: Path) -> None:
    """A file written before the watches are armed is in the walk: the walk began after."""
    cfg = configured(repo)
    release = threading.Event()
    survey = census.Census(cfg, census.HELPER_FILES, release.wait)
    late = repo / "docs" / "how-to" / "late.md"
    late.write_text("---\nid: TW-LATE\nkind: how_to\ntitle: Late\n---\n")
    release.set()
    present, stamps, _ = survey.result()
    assert "docs/how-to/late.md" in present and "docs/how-to/late.md" in stamps


@pytest.mark.process
@pytest.mark.parametrize(
    "command",
    [
        [str(Path(sys.executable).with_name("no-such-python"))],  # cannot start
        [sys.executable, "-c", "import sys; sys.stdout.write('garbage')"],  # garbles
        [sys.executable, "-c", "import sys; sys.exit(3)"],  # dies
    ],
)
def test_a_failing_helper_means_a_walk_in_process(
    repo: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.setattr(census, "command", lambda: command)
    cfg = configured(repo)
    survey = census.Census(cfg, census.HELPER_FILES, lambda: None)
    assert survey.result() == walked_here(cfg)


def test_a_small_catalog_is_walked_in_process(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def never() -> list[str]:
        raise AssertionError("no helper for a small catalog")

    monkeypatch.setattr(census, "command", never)
    cfg = configured(repo)
    assert census.Census(cfg, census.HELPER_FILES - 1, lambda: None).result() == walked_here(cfg)


@pytest.mark.process
def test_a_cancelled_walk_leaves_no_helper_behind(repo: Path) -> None:
    survey = census.Census(configured(repo), census.HELPER_FILES, lambda: None)
    survey._started.wait()
    helper = survey._helper
    assert helper is not None
    survey.cancel()
    assert helper.returncode is not None  # reaped
    with pytest.raises(ProcessLookupError):
        os.kill(helper.pid, 0)
