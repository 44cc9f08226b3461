"""Golden files: the recorded bytes of what a user or a harness reads, under fixtures/golden/.

A test hands `check` what it read; `pytest --update-golden` records it instead of comparing,
after a change meant to alter it (review the diff of fixtures/golden/ before committing it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from testing.paths import GOLDEN

UPDATE = "--update-golden"


def check(request: pytest.FixtureRequest, name: str, actual: str) -> None:
    """Compare `actual` with the golden file `name` (a path under fixtures/golden/), or write
    it there under --update-golden; fail the test, naming the file, when they differ."""
    path = GOLDEN / name
    if request.config.getoption(UPDATE):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(actual.encode())
    try:
        recorded = path.read_bytes().decode()
    except FileNotFoundError:
        pytest.fail(f"no golden file {_shown(path)}: run `pytest {UPDATE}` to record it")
    assert actual == recorded, (
        f"{_shown(path)} differs from this output: run `pytest {UPDATE}` if the change is meant"
    )


def _shown(path: Path) -> str:
    return str(path.relative_to(GOLDEN.parents[1]))
