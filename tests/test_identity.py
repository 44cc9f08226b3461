"""What the index holds and routes stays byte for byte what it was (issue 33): the digests of
the postings, df, fields and route documents of the fixture catalogs (and of the shared
corpora, when they are beside the checkout) are kept in a golden file, made by
bench/identity.py (`python scripts/identity.py`). A change meant to move them is recorded with `pytest --update-golden`;
a change meant only to make loading faster must leave them as they are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import identity
from testing.paths import CORPORA, FIXTURES

GOLDEN = FIXTURES / "golden" / "index-identity.json"
# Catalogs in the repository: real decision records and proposals, and the demo and messy
# catalogs (front matter of every format, annex rows, skills, broken files).
FIXTURE_CATALOGS = {
    "demo": FIXTURES / "catalogs" / "demo",
    "messy": FIXTURES / "catalogs" / "messy",
    "slow-triggers": FIXTURES / "catalogs" / "slow-triggers",
    "adr": FIXTURES / "adr",
    "proposals": FIXTURES / "proposals",
    "relevance": FIXTURES / "relevance",
}
SHARED_CATALOGS = ("headwater", "skills", "adr")


def _golden() -> dict[str, Any]:
    try:
        recorded: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    except FileNotFoundError:
        recorded = {}
    return recorded


def _check(part: str, roots: dict[str, Path], request: pytest.FixtureRequest) -> None:
    current = {name: identity.state(identity.engine_of(root)) for name, root in roots.items()}
    golden = _golden()
    if request.config.getoption("--update-golden"):
        golden[part] = current
        GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert golden.get(part) == current, (
        "the index or the routes changed: run `pytest --update-golden` if that was meant"
    )


def test_the_fixture_catalogs_index_and_route_as_recorded(request: pytest.FixtureRequest) -> None:
    _check("fixtures", FIXTURE_CATALOGS, request)


def test_a_fixture_catalog_gives_entries_postings_and_routes() -> None:
    # the golden file compares digests: this shows they are digests of something
    found = identity.state(identity.engine_of(FIXTURE_CATALOGS["adr"]))
    assert found["entries"] > 5 and found["stems"] > 500
    assert found["postings"] != found["df"] != found["routes"]


@pytest.mark.skipif(not CORPORA.is_dir(), reason="no shared corpora beside the checkout")
def test_the_shared_corpora_index_and_route_as_recorded(request: pytest.FixtureRequest) -> None:
    _check("shared", {name: CORPORA / name for name in SHARED_CATALOGS}, request)
