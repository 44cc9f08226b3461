"""Shared test fixtures: an isolated KROUTE_HOME, a fixture tree's copy, the shared corpora,
and the `--update-golden` switch. The helpers tests import live in the `testing` package."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import pytest

from testing import spawn
from testing.golden import UPDATE
from testing.paths import CORPORA
from testing.process import stop_daemons


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(UPDATE, action="store_true", help="Rewrite golden files from current output.")


WATCH = spawn.watch()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    WATCH.test = item.nodeid
    try:
        return (yield)
    finally:
        WATCH.test = None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Fail a test, in the phase it happened, that started a process and is not marked
    `process` (its fixtures' processes count: deselecting the test deselects them too)."""
    report: pytest.TestReport = yield
    started = WATCH.started.get(item.nodeid)
    if started and report.passed and item.get_closest_marker(spawn.MARKER) is None:
        WATCH.started.pop(item.nodeid)
        report.outcome = "failed"
        report.longrepr = (
            f"started a process ({started}) but is not marked `{spawn.MARKER}`: add "
            f"@pytest.mark.{spawn.MARKER} (pytestmark for a whole file), so that "
            f"`pytest -m 'not {spawn.MARKER}'` stays the quick loop"
        )
    return report


@pytest.fixture(autouse=True)
def kroute_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Point KROUTE_HOME (state, logs, shadow) and the runtime dir at a fresh temp dir, so no
    test touches the real home; clear config and color variables."""
    home = tmp_path_factory.mktemp("kroute-home")
    monkeypatch.setenv("KROUTE_HOME", str(home))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(home / "run"))
    monkeypatch.delenv("KROUTE_CONFIG", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    yield home
    stop_daemons(home / "run" / "kroute")


@pytest.fixture
def short_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh temp dir with a short path, for a runtime dir a test makes itself. Under
    `tmp_path` (named after the test, one level deeper under xdist) a socket path can pass
    wire.MAX_SOCKET_PATH, and kroute then falls back to /tmp/kroute-<uid>, which every run
    and worker shares."""
    return tmp_path_factory.mktemp("rt")


@pytest.fixture
def corpus() -> Iterator[Path]:
    """The shared corpora directory; a test that needs it is skipped, with the reason, when
    it is missing: a fresh clone proves the product from `fixtures/` alone."""
    if not CORPORA.is_dir():
        pytest.skip(f"shared corpora not found at {CORPORA}; set KROUTE_SHARED to read them")
    yield CORPORA


@pytest.fixture
def copy_tree(tmp_path: Path) -> Callable[..., Path]:
    """Copy a fixture tree into a temp dir and return the copy."""

    def copy(source: Path, name: str = "repo") -> Path:
        target = tmp_path / name
        shutil.copytree(source, target)
        return target

    return copy
