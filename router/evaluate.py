"""Evaluation: seed 1's fixture cases (DESIGN 13, first bullet).

It runs requests through `engine`, so it sits beside the services, above the engine."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from router import catalog, config, entry, intent
from router.catalog import Catalog, Diagnostic
from router.engine import Engine
from router.errors import EvalError


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
    result = catalog.result(name, entries, problems)
    if result.broken and not entries:
        raise EvalError(f"{name}: the inline catalog has no valid annex", "Fix the case file")
    return catalog.assemble({name: result})


# -- judged sets ------------------------------------------------------------------------------

ORDERS = ("diverse", "turns", "score")
WHOLE_ORDER = 1_000_000  # a budget no catalog fills: the route's whole order, for ranks


@dataclass(frozen=True, slots=True)
class Judged:
    """One judged task: the ids that answer it (none: the router should stay silent)."""

    task: str
    relevant: tuple[str, ...]


def read_judged(path: Path) -> list[Judged]:
    """Return the tasks of a judged JSONL file (`{task, relevant: [ids]}` per line).

    Raises EvalError naming the line that is not such an object."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise EvalError(f"cannot read {path}: {error}", "Check the --judged path") from None
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = orjson.loads(line)
        except orjson.JSONDecodeError:
            item = None
        relevant = item.get("relevant") if isinstance(item, dict) else None
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("task"), str)
            or not isinstance(relevant, list)
            or not all(isinstance(r, str) for r in relevant)
        ):
            raise EvalError(
                f"{path.name}:{number} is not a {{task, relevant: [ids]}} object",
                "Fix that line",
            )
        out.append(Judged(item["task"], tuple(relevant)))
    if not out:
        raise EvalError(f"{path.name} holds no judged task", "Add lines of {task, relevant}")
    return out


def first_relevant(ranked: list[str], relevant: tuple[str, ...]) -> int | None:
    """Return the 1-based rank of the first relevant id in `ranked`, or None."""
    for place, ident in enumerate(ranked, start=1):
        if ident in relevant:
            return place
    return None


def metrics(rows: list[tuple[Judged, list[str], list[str]]], budget: int) -> dict[str, Any]:
    """Return hit@1, hit@budget and MRR over covered tasks and the silence rate over
    uncovered ones, from (task, the route's whole order, the ids it offered) rows."""
    covered = [row for row in rows if row[0].relevant]
    uncovered = [row for row in rows if not row[0].relevant]
    hit1 = hitb = reciprocal = 0.0
    for j, ranked, offered in covered:
        rank = first_relevant(ranked, j.relevant)
        hit1 += 1 if offered[:1] and offered[0] in j.relevant else 0
        hitb += 1 if any(i in j.relevant for i in offered) else 0
        reciprocal += 1 / rank if rank else 0
    return {
        "tasks": len(rows),
        "covered": len(covered),
        "uncovered": len(uncovered),
        "hit@1": _ratio(hit1, len(covered)),
        f"hit@{budget}": _ratio(hitb, len(covered)),
        "mrr": _ratio(reciprocal, len(covered)),
        "silence_rate": _ratio(sum(1 for row in uncovered if not row[2]), len(uncovered)),
        "silent_when_covered": sum(1 for row in covered if not row[2]),
    }


def judged(engine: Engine, tasks: list[Judged], budget: int | None = None) -> dict[str, Any]:
    """Return the judged report: metrics per order side by side, and per task the rank of
    the first relevant entry (in the route's whole order) under each order."""
    budget = budget or engine.config.budget
    report: dict[str, Any] = {"budget": budget, "orders": {}, "tasks": []}
    per_task: list[dict[str, Any]] = [
        {"task": j.task, "relevant": list(j.relevant), "rank": {}, "offered": {}} for j in tasks
    ]
    for order in ORDERS:
        rows = []
        for j, line in zip(tasks, per_task, strict=True):
            ask = {"task": j.task, "order": order}
            whole = engine.assemble(engine.request({**ask, "budget": WHOLE_ORDER}))
            route = engine.assemble(engine.request({**ask, "budget": budget}))
            ranked = [p.entry.id for p in whole.pointers]
            offered = [p.entry.id for p in route.pointers]
            rows.append((j, ranked, offered))
            line["rank"][order] = first_relevant(ranked, j.relevant)
            line["offered"][order] = offered
        report["orders"][order] = metrics(rows, budget)
    report["tasks"] = per_task
    return report


def _ratio(numerator: float, denominator: int) -> float:
    return round(numerator / denominator, 4) if denominator else 0.0


def judged_text(report: Mapping[str, Any]) -> str:
    """Return the judged report as a table of the three orders, then one line per task with
    the rank of its first relevant entry under each order (`-` when none is reached)."""
    budget = report["budget"]
    keys = ("hit@1", f"hit@{budget}", "mrr", "silence_rate")
    lines = [f"{'order':<10}" + "".join(f"{k:>14}" for k in keys)]
    for order, figures in report["orders"].items():
        lines.append(f"{order:<10}" + "".join(f"{figures[k]:>14.3f}" for k in keys))
    first = next(iter(report["orders"].values()))
    lines.append(
        f"{first['covered']} covered tasks, {first['uncovered']} with no relevant document "
        f"(silence rate counts those); budget {budget}"
    )
    lines.append("")
    lines.append("rank of the first relevant entry (diverse / turns / score), task")
    for task in report["tasks"]:
        if task["relevant"]:
            ranks = " / ".join(_rank(task["rank"][o]) for o in ORDERS)
        else:
            ranks = " / ".join("silent" if not task["offered"][o] else "spoke" for o in ORDERS)
        lines.append(f"  {ranks:<24} {task['task']}")
    return "\n".join(lines)


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


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
