"""Evaluation: seed 1's fixture cases (DESIGN 13, first bullet).

It runs requests through `engine`, so it sits beside the services, above the engine."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from router.base.errors import EvalError
from router.core import catalog, config, diagnostic, entry
from router.core.catalog import Catalog
from router.core.diagnostic import Diagnostic
from router.filters import intent
from router.runtime.engine import Engine


@dataclass(frozen=True, slots=True)
class CaseResult:
    """One case: what it expected, what came out, and which expectations failed."""

    case_id: str
    passed: bool
    failures: tuple[str, ...]
    observed: Mapping[str, Any]

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {
            "case_id": self.case_id,
            "passed": self.passed,
            "failures": list(self.failures),
            "observed": dict(self.observed),
        }


def cases(directory: Path, load: Callable[[Path], Engine]) -> dict[str, Any]:
    """Return the report of every `*.json` case file in `directory` (sorted by name):
    `{case_count, passed_case_count, status, cases}`.

    `load` builds an engine over a case's `catalog_dir`. Raises EvalError when the directory
    holds no case or a case file is malformed."""
    files = sorted(directory.glob("*.json"))
    if not files:
        raise EvalError(
            f"{directory} holds no *.json case file", "Point kroute eval at a case folder"
        )
    results = [run_case(path, load) for path in files]
    passed = sum(1 for r in results if r.passed)
    return {
        "case_count": len(results),
        "passed_case_count": passed,
        "status": "pass" if passed == len(results) else "fail",
        "cases": [r.as_dict() for r in results],
    }


def run_case(path: Path, load: Callable[[Path], Engine]) -> CaseResult:
    """Return the result of one case file. Raises EvalError when it is malformed."""
    try:
        case = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as error:
        raise EvalError(
            f"{path.name} is not a readable JSON case: {error}", "Fix the case file"
        ) from None
    if not isinstance(case, dict) or not isinstance(case.get("problem", ""), str):
        raise EvalError(f"{path.name} must be an object with a text `problem`", "Fix the case file")
    case_id = str(case.get("case_id") or path.stem)
    engine = _engine(path, case, load)
    body = {k: case[k] for k in ("domain", "cluster", "limit") if case.get(k) is not None}
    record = engine.explain({"task": case.get("problem", ""), **body})
    rows = record["rows"]
    top = rows[0] if rows else None
    failures: list[str] = []
    expected_status = case.get("expected_status")
    if expected_status is not None and record["status"] != expected_status:
        failures.append(f"status is {record['status']}, expected {expected_status}")
    expected_top = case.get("expected_top_slug")
    if expected_top is not None and (top is None or top["slug"] != expected_top):
        failures.append(f"top slug is {top and top['slug']}, expected {expected_top}")
    minimum = case.get("expected_min_score")
    if minimum is not None and (top is None or top["score"] < minimum):
        failures.append(f"top score is {top and top['score']}, expected at least {minimum}")
    note = case.get("expected_note_id")
    if note is not None and (top is None or note not in top["matched_note_ids"]):
        failures.append(f"note {note} is not among the top row's matched notes")
    observed: dict[str, Any] = {
        "status": record["status"],
        "row_count": record["row_count"],
        "top_slug": top and top["slug"],
        "top_score": top and top["score"],
        "matched_note_ids": top["matched_note_ids"] if top else [],
    }
    expected_ids = case.get("expected_ids")
    if expected_ids is not None:
        budget = case.get("budget")
        answer = engine.route({"task": case.get("problem", ""), **body, "budget": budget})
        offered = [p["id"] for p in answer["pointers"]]
        observed["pointer_ids"] = offered
        missing = [i for i in expected_ids if i not in offered]
        if missing:
            failures.append(f"expected ids not offered within the budget: {', '.join(missing)}")
    return CaseResult(case_id, not failures, tuple(failures), observed)


def _engine(path: Path, case: Mapping[str, Any], load: Callable[[Path], Engine]) -> Engine:
    if case.get("catalog_dir") is not None:
        directory = (path.parent / str(case["catalog_dir"])).resolve()
        if not directory.is_dir():
            raise EvalError(f"{path.name}: catalog_dir {directory} is not a directory", "Fix it")
        return load(directory)
    inline = case.get("catalog")
    if not isinstance(inline, dict) or not isinstance(inline.get("annexes"), list):
        raise EvalError(
            f"{path.name} has neither an inline `catalog` with `annexes` nor a `catalog_dir`",
            "Add one of them",
        )
    return Engine(config.bare(path.parent), inline_catalog(inline, path.name))


def inline_catalog(document: Mapping[str, Any], name: str) -> Catalog:
    """Return the catalog of an inline seed-1 `{"annexes": [...]}` document."""
    entries = []
    problems = []
    for place, row in enumerate(document["annexes"], start=1):
        try:
            if not isinstance(row, dict):
                raise entry.FieldError(f"annexes[{place}] is not an object")
            entries.append(entry.from_annex(row, name, place))
        except entry.FieldError as error:
            problems.append(Diagnostic(name, str(error)))
    result = diagnostic.result(name, entries, problems)
    if result.broken and not entries:
        raise EvalError(f"{name}: the inline catalog has no valid annex", "Fix the case file")
    return catalog.assemble({name: result})


# -- labelled intent sets -----------------------------------------------------------------------


def intent_report(path: Path) -> dict[str, Any]:
    """Return strategy and skip accuracy of a labelled intent JSONL file. Raises EvalError."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise EvalError(f"cannot read {path}: {error}", "Check the --intent path") from None
    cases = intent.parse_cases(lines)
    return {
        "strategy": intent.accuracy((text, strategy) for text, strategy, _ in cases),
        "skip": intent.skip_accuracy((text, skip) for text, _, skip in cases),
    }


def intent_text(report: Mapping[str, Any]) -> str:
    """Return the intent report as the strategy confusion table, then the skip table."""
    return "\n\n".join(
        (
            "strategy\n" + intent.confusion_text(report["strategy"]),
            "skip\n" + intent.confusion_text(report["skip"]),
        )
    )
