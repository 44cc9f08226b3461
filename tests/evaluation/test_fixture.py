"""Seed 1's fixture cases (DESIGN 13) and labelled intent sets (`kroute eval --intent`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from router.base.errors import EvalError
from router.catalog import config
from router.evaluation import fixture
from router.evaluation.fixture import (
    accuracy,
    confusion_text,
    fallback_rate,
    parse_cases,
    parse_labelled,
    skip_accuracy,
)
from router.filters.cue import STRATEGIES
from router.runtime.engine import Engine
from testing.paths import DEMO, FIXTURES

INTENT_SETS = FIXTURES / "intent"


def load(directory: Path) -> Engine:
    found = directory / "kroute.toml"
    return Engine.load(config.load(found) if found.is_file() else config.bare(directory))


def labelled(name: str) -> list[tuple[str, str, str | None]]:
    return parse_cases((INTENT_SETS / name).read_text(encoding="utf-8").splitlines())


def test_the_four_seed_fixtures_pass() -> None:
    report = fixture.cases(FIXTURES / "annex", load)
    assert report["status"] == "pass"
    assert report["case_count"] == 4 == report["passed_case_count"]
    by_id = {c["case_id"]: c for c in report["cases"]}
    assert by_id["provider_backoff_route"]["observed"]["top_score"] == 146
    assert by_id["note_match"]["observed"]["top_score"] == 63
    assert by_id["domain_filter_no_match"]["observed"]["status"] == "no_match"


def test_a_failing_expectation_fails_the_report(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "annex" / "note_match.json", tmp_path)
    case = json.loads((tmp_path / "note_match.json").read_text())
    case["expected_min_score"] = 64
    case["expected_note_id"] = "note_elsewhere"
    (tmp_path / "note_match.json").write_text(json.dumps(case))
    report = fixture.cases(tmp_path, load)
    assert report["status"] == "fail"
    failures = report["cases"][0]["failures"]
    assert any("expected at least 64" in f for f in failures)
    assert any("note_elsewhere" in f for f in failures)


def test_catalog_dir_and_expected_ids(tmp_path: Path) -> None:
    shutil.copytree(DEMO, tmp_path / "demo")
    case = {
        "case_id": "redelivery",
        "problem": "retry a failed delivery",
        "catalog_dir": "demo",
        "expected_status": "routed",
        "expected_ids": ["TW-DR-0008"],
    }
    (tmp_path / "redelivery.json").write_text(json.dumps(case))
    assert fixture.cases(tmp_path, load)["status"] == "pass"
    case["expected_ids"] = ["TW-DR-0008", "NO-SUCH-ID"]
    (tmp_path / "redelivery.json").write_text(json.dumps(case))
    report = fixture.cases(tmp_path, load)
    assert report["status"] == "fail"
    assert "NO-SUCH-ID" in report["cases"][0]["failures"][0]


def test_malformed_case_files_raise(tmp_path: Path) -> None:
    with pytest.raises(EvalError, match=r"no \*\.json case"):
        fixture.cases(tmp_path, load)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(EvalError, match=r"bad\.json is not a readable JSON case"):
        fixture.cases(tmp_path, load)
    (tmp_path / "bad.json").write_text(json.dumps({"problem": "x"}))
    with pytest.raises(EvalError, match="neither an inline"):
        fixture.cases(tmp_path, load)


# --- labelled intent sets -------------------------------------------------------------


def test_labelled_fixture_shape() -> None:
    cases = labelled("labelled.jsonl")
    assert len(cases) >= 90
    for strategy in STRATEGIES:
        assert sum(1 for _, s, _ in cases if s == strategy) >= 10
    skips = {k for _, _, k in cases}
    assert {"short", "scoped-lexical", None} <= skips
    for text, _, skip in cases:
        if skip != "scoped-lexical":
            assert (skip == "short") == (len(text.split()) < 20)


# Measured when the cue lists were frozen: labelled 0.90 (90/100); held-out 0.94 (34/36,
# looked at once while fixing general cue gaps, so no longer blind); blind 0.87 (26/30,
# written after the freeze and measured once). After the structure rules
# (router/filters/clause.py): labelled 0.90, held-out 0.94, blind 0.97, and generalise 0.93
# (60 queries written in new words for a different fictional repository, to check that the
# rules generalise; measured 0.33 before them).
@pytest.mark.parametrize(
    ("name", "floor"),
    [
        ("labelled.jsonl", 0.85),
        ("heldout.jsonl", 0.85),
        ("blind.jsonl", 0.85),
        ("generalise.jsonl", 0.85),
    ],
)
def test_accuracy_on_labelled_sets(name: str, floor: float) -> None:
    cases = labelled(name)
    report = accuracy((t, s) for t, s, _ in cases)
    assert isinstance(report["accuracy"], float) and report["accuracy"] >= floor
    per = report["per_label"]
    assert isinstance(per, dict)
    for strategy in STRATEGIES:
        if strategy != "global":  # most misses degrade to global, not to a narrow strategy
            assert per[strategy]["precision"] >= 0.85


def test_skip_decision_on_labelled_set() -> None:
    cases = labelled("labelled.jsonl")
    assert skip_accuracy((t, k) for t, _, k in cases)["accuracy"] == 1.0


def test_accuracy_report_shape_and_confusion_text() -> None:
    report = accuracy(
        [
            ("grep for TODO in src/", "lexical"),
            ("hello there", "lookup"),
            ("summarize the decisions on storage", "global"),
        ]
    )
    assert report["cases"] == 3
    assert report["correct"] == 2
    assert report["accuracy"] == round(2 / 3, 4)
    confusion = report["confusion"]
    assert isinstance(confusion, dict)
    assert confusion["lookup"]["global"] == 1
    assert confusion["lexical"]["lexical"] == 1
    per = report["per_label"]
    assert isinstance(per, dict)
    assert per["global"] == {
        "count": 1,
        "predicted": 2,
        "correct": 1,
        "precision": 0.5,
        "recall": 1.0,
    }
    assert per["lookup"]["recall"] == 0.0
    text = confusion_text(report)
    lines = text.splitlines()
    assert lines[0].split()[-6:] == list(STRATEGIES)
    assert len({len(line) for line in lines[:7]}) == 1  # fixed width
    assert text.endswith("accuracy 0.67 (2/3)")


def test_accuracy_rejects_unknown_labels_and_empty_sets() -> None:
    with pytest.raises(EvalError, match="unknown strategy"):
        accuracy([("x", "fast")])
    with pytest.raises(EvalError, match="no labelled cases"):
        accuracy([])
    with pytest.raises(EvalError, match="unknown skip"):
        skip_accuracy([("x", "long")])


def test_parse_cases_names_the_bad_line() -> None:
    good = json.dumps({"text": "hi", "strategy": "lookup", "skip": "short"})
    assert parse_cases([good, ""]) == [("hi", "lookup", "short")]
    with pytest.raises(EvalError, match="line 2 is not JSON"):
        parse_cases([good, "{nope"])
    with pytest.raises(EvalError, match="line 1 needs"):
        parse_cases([json.dumps({"text": "hi", "strategy": "fast"})])
    with pytest.raises(EvalError, match="line 1 needs"):
        parse_cases(["[1, 2]"])


def test_skip_is_judged_only_on_lines_that_carry_a_skip_member(tmp_path: Path) -> None:
    rows = [
        {"text": "summarize the decisions on storage", "strategy": "global"},
        {"text": "grep for TODO in src/", "strategy": "lexical", "skip": None},
    ]
    lines = [json.dumps(r) for r in rows]
    assert [r[3] for r in parse_labelled(lines)] == [False, True]
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(lines[:1]), encoding="utf-8")
    report = fixture.intent_report(path)
    assert report["skip"] is None
    assert "skip not judged" in fixture.intent_text(report)
    path.write_text("\n".join(lines), encoding="utf-8")
    report = fixture.intent_report(path)
    assert report["skip"]["cases"] == 1
    # A null skip is judged as "no skip", and scoped-lexical is not that.
    assert report["skip"]["accuracy"] == 0.0


def test_fallback_rate_counts_only_non_global_labels() -> None:
    rate = fallback_rate(
        [
            ("hello there", "lookup"),  # falls back, label not global: counted
            ("hello again", "global"),  # falls back, label global: not counted
            ("grep for TODO in src/", "lexical"),
        ]
    )
    assert rate == {"non_global": 2, "fell_back": 1, "rate": 0.5}
    assert fallback_rate([("hello", "global")])["rate"] == 0.0


def test_intent_text_prints_the_fallback_line(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps({"text": "hello there", "strategy": "lookup"}), encoding="utf-8")
    text = fixture.intent_text(fixture.intent_report(path))
    assert "fallback 1.00 (1/1 non-global queries fell back to global)" in text
