"""Headwater's query fixture tree as a regression fixture (issue: route assembly).

`query.reads` was recorded by an older engine, before pointers carried evidence or took
turns. These tests keep its expectations where DESIGN agrees with them; where DESIGN
deliberately differs, the test says how. The whole text of the six routes is a golden file
(`pytest --update-golden` rewrites it after an intended change).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from router.catalog import config
from router.route import render
from router.runtime import intake
from router.runtime.engine import Engine
from testing.paths import FIXTURES

GOLDEN = FIXTURES / "golden" / "headwater-fixture.txt"
TASKS = (
    "why is throttling applied at the edge",
    "what does the ingest service do",
    "how do I rotate the keys",
    "add rate limiting to src/ingest/rate_limit.rs",
    "deploy the cluster to another region",
    "what may I rely on when the tide comes in",
)


def route_of(engine: Engine, body: dict[str, Any]) -> dict[str, Any]:
    """Return the route document of a JSON-style request, parsed as every entry point does."""
    return engine.route(intake.route(body, engine.config))


@pytest.fixture
def engine(corpus: Path) -> Engine:
    tree = corpus / "headwater-fixture"
    return Engine.load(config.load(FIXTURES / "headwater-fixture" / "kroute.toml", tree))


def ids(engine: Engine, task: str) -> list[str]:
    return [p["id"] for p in route_of(engine, {"task": task})["pointers"]]


def test_successor_first_and_the_superseded_pointer_names_it(engine: Engine) -> None:
    doc = route_of(engine, {"task": TASKS[0]})
    order = [p["id"] for p in doc["pointers"]]
    assert order[0] == "DR-FIX-0031" and "DR-FIX-0007" in order
    assert doc["pointers"][order.index("DR-FIX-0007")]["superseded_by"] == "DR-FIX-0031"
    # query.reads also offered SPEC-FIX-asserted, which holds "throttling": silence is now
    # decided for the route as a whole, and the route speaks, so it is offered again
    # (after the records that hold more of the task).
    assert "SPEC-FIX-asserted" in order


def test_procedure_task_reaches_the_runbook(engine: Engine) -> None:
    assert ids(engine, TASKS[2]) == ["RUN-FIX-keys"]
    assert route_of(engine, {"task": TASKS[2]})["matched"][0] == {
        "purpose": "procedure",
        "score": 6,
    }


def test_named_code_path_is_an_anchor(engine: Engine) -> None:
    doc = route_of(engine, {"task": TASKS[3]})
    assert doc["anchors"] == ["src/ingest/rate_limit.rs"]
    anchored = {p["id"]: p["evidence"] for p in doc["pointers"] if "anchors" in p["evidence"]}
    # the path's words also reach it, so it ranks with evidence naming both
    assert anchored["DR-FIX-0031"]["anchors"] == ["src/ingest/rate_limit.rs"]
    assert anchored["DR-FIX-0031"]["by"] == "terms"
    # DESIGN 4.1 reads `src/ingest/**` as covering the file, so the ingest spec governs it
    # too (query.reads predates globs as anchors).
    assert set(anchored) == {"DR-FIX-0031", "SPEC-FIX-ingest"}


def test_governing_documents_for_paths(engine: Engine) -> None:
    def governing(path: str) -> list[str]:
        return [e.id for e in engine.index.governing(path)]

    assert governing("src/ingest") == ["SPEC-FIX-ingest"]
    assert governing("src/nothing.rs") == []
    assert "DR-FIX-0031" in governing("src/ingest/rate_limit.rs")


def test_unreviewed_documents_say_so(engine: Engine) -> None:
    by_id = {e.id: e for e in engine.catalog.entries}
    assert by_id["SPEC-FIX-asserted"].unreviewed_reason == "asserted"
    assert by_id["SPEC-FIX-misspelled"].unwarranted  # draft, and the warrant is misspelled
    assert not by_id["SPEC-FIX-ingest"].unwarranted


def test_out_of_scope_task_is_silent(engine: Engine) -> None:
    # query.reads offered the runbook here, reached by a stopword; DESIGN silences it.
    doc = route_of(engine, {"task": TASKS[4]})
    assert doc["silence"]["reason"] == "no_document_reached"


def test_golden_text_of_the_six_routes(engine: Engine, request: pytest.FixtureRequest) -> None:
    parts = []
    for task in TASKS:
        answer = engine.assemble(intake.route({"task": task}, engine.config).request)
        parts.append(f'route "{task}"\n{render.text_report(answer)}\n')
    current = "\n".join(parts)
    if request.config.getoption("--update-golden"):
        GOLDEN.write_text(current, encoding="utf-8")
    assert GOLDEN.read_text(encoding="utf-8") == current
