"""The engine: request validation, documents, and incremental catalog updates."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from router.catalog import config
from router.runtime import intake
from router.runtime.engine import Engine
from testing.paths import DEMO
from testing.wait import within


def route_of(engine: Engine, body: dict[str, Any]) -> dict[str, Any]:
    """Return the route document of a JSON-style request, parsed as every entry point does."""
    return engine.route(intake.route(body, engine.config))


@pytest.fixture
def demo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO)


def engine_at(root: Path) -> Engine:
    return Engine.load(config.load(root / "kroute.toml"))


def test_document_is_deterministic_and_sorted(demo: Path) -> None:
    first = orjson.dumps(
        route_of(engine_at(demo), {"task": "retry a failed delivery"}), option=orjson.OPT_SORT_KEYS
    )
    second = orjson.dumps(
        route_of(engine_at(demo), {"task": "retry a failed delivery"}), option=orjson.OPT_SORT_KEYS
    )
    assert first == second
    doc = json.loads(first)
    assert doc["engine"]["version"]
    assert doc["catalog"]["entries"] >= 40
    assert len(doc["catalog"]["fingerprint"]) == 16


def _same_as_fresh(engine: Engine, root: Path) -> None:
    fresh = engine_at(root)
    for task in ["retry a failed delivery", "rotate the webhook signing key", "queue consumer lag"]:
        assert route_of(engine, {"task": task}) == route_of(fresh, {"task": task})


def test_update_reflects_an_edit_a_new_file_and_a_deletion(demo: Path) -> None:
    engine = engine_at(demo)
    how_to = sorted((demo / "docs" / "how-to").glob("*.md"))[0]
    text = how_to.read_text()
    how_to.write_text(text.replace("summary:", "summary: zanzibar quokka", 1))
    new = demo / "docs" / "decisions" / "0999-quokka.md"
    new.write_text(
        "---\nid: TW-DR-0999\ntitle: Quokka zanzibar\nsummary: zanzibar quokka policy\n---\n"
    )
    engine.update([how_to.relative_to(demo).as_posix(), new.relative_to(demo).as_posix()])
    answer = route_of(engine, {"task": "zanzibar quokka"})
    assert {p["path"] for p in answer["pointers"]} == {
        how_to.relative_to(demo).as_posix(),
        "docs/decisions/0999-quokka.md",
    }
    _same_as_fresh(engine, demo)
    new.unlink()
    engine.update(["docs/decisions/0999-quokka.md"])
    assert engine.index.get("TW-DR-0999") is None
    _same_as_fresh(engine, demo)


def test_a_file_turning_malformed_keeps_its_last_good_entry_marked_stale(demo: Path) -> None:
    engine = engine_at(demo)
    how_to = sorted((demo / "docs" / "how-to").glob("*.md"))[0]
    rel = how_to.relative_to(demo).as_posix()
    before = next(e for e in engine.catalog.entries if e.path == rel)
    how_to.write_text("---\nid: [broken\n---\n")
    engine.update([rel])
    assert engine.index.get(before.id) == before
    assert before.id in engine.catalog.stale
    assert any(d.path == rel and d.severity == "error" for d in engine.catalog.diagnostics)
    doc = route_of(engine, {"task": before.summary})
    assert doc["catalog"]["stale"] == 1


def test_update_resolves_duplicate_ids_as_a_fresh_load_does(demo: Path) -> None:
    engine = engine_at(demo)
    first = demo / "docs" / "decisions" / "0500-a.md"
    second = demo / "docs" / "decisions" / "0600-b.md"
    first.write_text("---\nid: TW-DUP\nsummary: walrus tusk first\n---\n")
    second.write_text("---\nid: TW-DUP\nsummary: walrus tusk second\n---\n")
    engine.update(["docs/decisions/0500-a.md", "docs/decisions/0600-b.md"])
    kept = engine.index.get("TW-DUP")
    assert kept is not None and kept.summary == "walrus tusk first"
    assert any("TW-DUP" in d.problem for d in engine.catalog.diagnostics)
    _same_as_fresh(engine, demo)
    first.unlink()
    engine.update(["docs/decisions/0500-a.md"])
    kept = engine.index.get("TW-DUP")
    assert kept is not None and kept.summary == "walrus tusk second"
    assert not any("TW-DUP" in d.problem for d in engine.catalog.diagnostics)
    _same_as_fresh(engine, demo)
    assert engine.catalog.fingerprint == engine_at(demo).catalog.fingerprint


def test_a_focus_drops_the_entry_only_about_an_imported_module(demo: Path) -> None:
    engine = engine_at(demo)
    task = "change how invoice tax lines are computed"
    plain = [p["id"] for p in route_of(engine, {"task": task})["pointers"]]
    assert {"TW-SPEC-invoice-builder", "TW-DR-0006"} <= set(plain)
    focused = route_of(engine, {"task": task, "focus": {"path": "src/billing/invoice.py"}})
    ids = [p["id"] for p in focused["pointers"]]
    assert "TW-SPEC-invoice-builder" in ids  # about what invoice.py defines
    assert "TW-DR-0006" not in ids  # about TaxTable, which invoice.py only imports
    assert focused["filtered_by_focus"] >= 1


def test_a_focus_outside_the_repository_is_not_read(demo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.py"
    outside.write_text("class InvoiceBuilder:\n    pass\n")
    engine = engine_at(demo)
    focus = engine.focus(intake.FocusAsk(str(outside)))
    assert focus is not None and focus.content == "" and focus.defined == ()
    inside = engine.focus(intake.FocusAsk("src/billing/invoice.py"))
    assert (
        inside is not None and "InvoiceBuilder" in inside.defined and "TaxTable" in inside.imported
    )


def test_auto_strategy_takes_budget_from_the_intent_unless_given(demo: Path) -> None:
    engine = engine_at(demo)
    task = (
        "give me an overview of everything about webhook delivery, retries, signing keys and "
        "redelivery so I can summarize all of it for the new on-call engineer this week"
    )
    auto = route_of(engine, {"task": task, "strategy": "auto"})
    assert auto["intent"]["strategy"] == "global" and auto["intent"]["skip"] is None
    assert len(auto["pointers"]) == auto["intent"]["token_budget"] == 8
    explicit = route_of(engine, {"task": task, "strategy": "auto", "budget": 2})
    assert len(explicit["pointers"]) == 2
    assert explicit["intent"]["strategy"] == "global"
    short = route_of(engine, {"task": "retry a failed delivery", "strategy": "auto"})
    assert short["intent"]["skip"] == "short"
    assert len(short["pointers"]) <= engine.config.budget
    assert route_of(engine, {"task": task})["intent"] is None


def test_strategy_budgets_can_be_overridden_in_the_config(demo: Path) -> None:
    toml = demo / "kroute.toml"
    toml.write_text(toml.read_text() + "\n[intent.strategies.global]\nbudget = 3\ndepth = 6\n")
    engine = engine_at(demo)
    task = (
        "give me an overview of everything about webhook delivery, retries, signing keys and "
        "redelivery so I can summarize all of it for the new on-call engineer this week"
    )
    auto = route_of(engine, {"task": task, "strategy": "auto"})
    assert auto["intent"]["token_budget"] == 3 and auto["intent"]["retrieval_depth"] == 6
    assert len(auto["pointers"]) == 3


# --- hostile files ----------------------------------------------------------------------

DEADLINE = 5.0  # seconds; a hostile file costs milliseconds, a hang fails the test


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_focus_reads_as_empty(demo: Path) -> None:  # 6
    fifo = demo / "src" / "p.py"
    os.mkfifo(fifo)
    engine = engine_at(demo)
    focus = within(DEADLINE, lambda: engine.focus(intake.FocusAsk("src/p.py")), [fifo])
    assert focus.content == "" and focus.defined == ()
    body = {"task": "retry a failed delivery", "focus": {"path": "src/p.py"}}
    routed = within(DEADLINE, lambda: route_of(engine, body), [fifo])
    missing = route_of(engine, {**body, "focus": {"path": "src/missing.py"}})
    assert routed == missing  # routed as a focus whose text is unknown


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_a_focus_that_is_a_symlink_loop_or_a_directory_reads_as_empty(demo: Path) -> None:  # 7
    (demo / "src" / "loop.py").symlink_to("loop.py")
    engine = engine_at(demo)
    for path in ("src/loop.py", "src"):
        assert engine.focus(intake.FocusAsk(path)).content == ""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_an_engine_loads_and_reloads_beside_hostile_files(demo: Path) -> None:  # 6, 7
    # what daemon start and reload run: the hostile files are diagnostics, the rest loads
    entries = len(engine_at(demo).index)
    docs = demo / "docs"
    fifo = docs / "f.md"
    os.mkfifo(fifo)
    (docs / "loop.md").symlink_to("loop.md")
    (docs / "recursive.md").write_text("---\nid: r\nrelations:\n  governs: &r [*r]\n---\n")
    engine = within(DEADLINE, lambda: engine_at(demo), [fifo])
    assert len(engine.index) == entries
    hostile = {d.path for d in engine.catalog.diagnostics} & {
        "docs/f.md",
        "docs/loop.md",
        "docs/recursive.md",
    }
    assert len(hostile) == 3
    within(DEADLINE, engine.reload, [fifo])
    assert len(engine.index) == entries
    within(DEADLINE, lambda: engine.update(["docs/f.md", "docs/loop.md"]), [fifo])
    assert len(engine.index) == entries


def test_a_route_whose_stop_says_stop_answers_deadline_before_reading_anything(
    demo: Path,
) -> None:
    engine = engine_at(demo)
    body = {"task": "retry a failed delivery", "strategy": "auto", "focus": {"path": "src/x.py"}}
    ask = intake.route(body, engine.config)
    whole = engine.route(ask, lambda: False)
    assert whole["pointers"] and whole["intent"] is not None
    assert whole == engine.route(ask)
    cut = engine.route(ask, lambda: True)
    assert cut["status"] == "no_match" and cut["pointers"] == []
    assert cut["silence"]["reason"] == "deadline" and "ran out of time" in cut["silence"]["says"]
    # neither the task's intent nor the focus was read: the answer says so, in the same shape
    assert cut["intent"] is None and cut["filtered_by_focus"] == 0


def test_a_route_comes_with_the_records_its_document_was_rendered_from() -> None:
    engine = Engine.load(config.load(DEMO / "kroute.toml"))
    ask = intake.route({"task": "retry a failed webhook delivery", "budget": 2}, engine.config)
    routed = engine.routed(ask)
    assert routed.document == engine.route(ask)
    ids = [p.entry.id for p in routed.route.pointers]
    assert ids and ids == [p["id"] for p in routed.document["pointers"]]
    assert routed.route.withheld == routed.document["withheld"] > 0
    assert list(routed.route.anchors) == routed.document["anchors"]
