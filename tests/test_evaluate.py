"""Seed 1's fixture cases (DESIGN 13)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from router.base.errors import EvalError
from router.core import config
from router.runtime import evaluate
from router.runtime.engine import Engine

from conftest import DEMO, FIXTURES


def load(directory: Path) -> Engine:
    found = directory / "kroute.toml"
    return Engine.load(config.load(found) if found.is_file() else config.bare(directory))


def test_the_four_seed_fixtures_pass() -> None:
    report = evaluate.cases(FIXTURES / "annex", load)
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
    report = evaluate.cases(tmp_path, load)
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
    assert evaluate.cases(tmp_path, load)["status"] == "pass"
    case["expected_ids"] = ["TW-DR-0008", "NO-SUCH-ID"]
    (tmp_path / "redelivery.json").write_text(json.dumps(case))
    report = evaluate.cases(tmp_path, load)
    assert report["status"] == "fail"
    assert "NO-SUCH-ID" in report["cases"][0]["failures"][0]


def test_malformed_case_files_raise(tmp_path: Path) -> None:
    with pytest.raises(EvalError, match=r"no \*\.json case"):
        evaluate.cases(tmp_path, load)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(EvalError, match=r"bad\.json is not a readable JSON case"):
        evaluate.cases(tmp_path, load)
    (tmp_path / "bad.json").write_text(json.dumps({"problem": "x"}))
    with pytest.raises(EvalError, match="neither an inline"):
        evaluate.cases(tmp_path, load)
