"""Evaluation: seed 1's fixture cases (DESIGN 13, first bullet) and labelled intent sets
(`kroute eval --intent`: strategy and skip accuracy of `router.filters.intent.classify`).

It runs requests through `engine`, so it sits beside the services, above the engine. The
intent scoring lives here rather than in `router.filters.intent`, which keeps only the
classifier."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from router.base.errors import EvalError
from router.catalog import config, diagnostic, reader, schema
from router.catalog.diagnostic import Diagnostic
from router.catalog.reader import Catalog
from router.filters import intent
from router.filters.cue import GLOBAL, STRATEGIES
from router.runtime import intake
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
    record = engine.explain(intake.explain({"task": case.get("problem", ""), **body}))
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
        asked = {"task": case.get("problem", ""), **body, "budget": budget}
        answer = engine.route(intake.route(asked, engine.config))
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
                raise schema.FieldError(f"annexes[{place}] is not an object")
            entries.append(schema.from_annex(row, name, place))
        except schema.FieldError as error:
            problems.append(Diagnostic(name, str(error)))
    result = diagnostic.result(name, entries, problems)
    if result.broken and not entries:
        raise EvalError(f"{name}: the inline catalog has no valid annex", "Fix the case file")
    return reader.assemble({name: result})


# -- labelled intent sets -----------------------------------------------------------------------


def intent_report(path: Path) -> dict[str, Any]:
    """Return strategy accuracy, the fallback rate and skip accuracy of a labelled intent JSONL
    file. Skip is judged only on lines that carry a `skip` member (`None` when none does).
    Raises EvalError."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise EvalError(f"cannot read {path}: {error}", "Check the --intent path") from None
    rows = parse_labelled(lines)
    judged = [(text, skip) for text, _, skip, has_skip in rows if has_skip]
    return {
        "strategy": accuracy((text, strategy) for text, strategy, _, _ in rows),
        "fallback": fallback_rate((text, strategy) for text, strategy, _, _ in rows),
        "skip": skip_accuracy(judged) if judged else None,
    }


def intent_text(report: Mapping[str, Any]) -> str:
    """Return the intent report as the strategy confusion table, the fallback line, then the
    skip table (or a line saying skip was not judged)."""
    fallback = report.get("fallback")
    parts = ["strategy\n" + confusion_text(report["strategy"])]
    if isinstance(fallback, Mapping):
        parts.append(
            f"fallback {fallback['rate']:.2f} ({fallback['fell_back']}/{fallback['non_global']} "
            "non-global queries fell back to global)"
        )
    skip = report.get("skip")
    parts.append(
        "skip\n" + confusion_text(skip)
        if skip is not None
        else "skip not judged (no line carries a skip member)"
    )
    return "\n\n".join(parts)


def parse_cases(lines: Iterable[str]) -> list[tuple[str, str, str | None]]:
    """Return labelled JSONL lines {"text", "strategy", "skip"} as (text, strategy, skip).

    Blank lines are ignored. Raises EvalError naming the line for anything else malformed."""
    return [(text, strategy, skip) for text, strategy, skip, _ in parse_labelled(lines)]


def parse_labelled(lines: Iterable[str]) -> list[tuple[str, str, str | None, bool]]:
    """Return labelled JSONL lines as (text, strategy, skip, has_skip): `has_skip` says whether
    the line carries a `skip` member at all (a null one included), so that skip is judged
    only where a labeller stated it. Raises EvalError naming a malformed line."""
    out: list[tuple[str, str, str | None, bool]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            # The standard library's parser, not orjson: the report quotes its error `msg`.
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalError(f"line {number} is not JSON ({exc.msg})", "fix or remove it") from exc
        text, strategy, skip = (
            (row.get(k) for k in ("text", "strategy", "skip"))
            if isinstance(row, dict)
            else (None, None, None)
        )
        if (
            not isinstance(text, str)
            or strategy not in STRATEGIES
            or skip not in (None, *intent.SKIPS)
        ):
            raise EvalError(
                f"line {number} needs text (string), strategy (one of {', '.join(STRATEGIES)}) "
                "and skip (null, short or scoped-lexical)",
                "fix the line",
            )
        has_skip = isinstance(row, dict) and "skip" in row
        out.append((text, str(strategy), None if skip is None else str(skip), has_skip))
    return out


def fallback_rate(
    cases: Iterable[tuple[str, str]],
    defaults: Mapping[str, intent.StrategyDefaults] = intent.DEFAULTS,
) -> dict[str, float | int]:
    """Return how often a query whose label is not `global` fell back to global (confidence
    below 0.6): {non_global, fell_back, rate}. A rate of 0.0 when no such query exists."""
    non_global = fell_back = 0
    for text, expected in cases:
        if expected == GLOBAL:
            continue
        non_global += 1
        fell_back += intent.classify(text, defaults).fallback
    rate = round(fell_back / non_global, 4) if non_global else 0.0
    return {"non_global": non_global, "fell_back": fell_back, "rate": rate}


def accuracy(
    cases: Iterable[tuple[str, str]],
    defaults: Mapping[str, intent.StrategyDefaults] = intent.DEFAULTS,
) -> dict[str, object]:
    """Return how `intent.classify` scores on (text, expected strategy) pairs; the prediction
    is the final strategy (a fallback counts as `global`). The report holds cases, correct,
    accuracy, labels, per_label {count, predicted, correct, precision, recall} and
    confusion[expected][predicted]. Raises EvalError on an unknown strategy or no case.
    """

    def pairs() -> Iterable[tuple[str, str]]:
        for i, (text, expected) in enumerate(cases, 1):
            if expected not in STRATEGIES:
                raise EvalError(
                    f"case {i}: unknown strategy {expected!r}",
                    f"use one of: {', '.join(STRATEGIES)}",
                )
            yield expected, intent.classify(text, defaults).strategy

    return _tally(pairs(), STRATEGIES)


def skip_accuracy(cases: Iterable[tuple[str, str | None]]) -> dict[str, object]:
    """Return the `accuracy` report shape for the skip decision, labels `none`, `short` and
    `scoped-lexical`. Raises EvalError on an unknown skip or no case."""

    def pairs() -> Iterable[tuple[str, str]]:
        for i, (text, expected) in enumerate(cases, 1):
            if expected is not None and expected not in intent.SKIPS:
                raise EvalError(
                    f"case {i}: unknown skip {expected!r}", "use null, short or scoped-lexical"
                )
            yield expected or "none", intent.classify(text).skip or "none"

    return _tally(pairs(), ("none", *intent.SKIPS))


def _tally(pairs: Iterable[tuple[str, str]], labels: tuple[str, ...]) -> dict[str, object]:
    confusion = {e: dict.fromkeys(labels, 0) for e in labels}
    for expected, got in pairs:
        confusion[expected][got] += 1
    n = sum(sum(row.values()) for row in confusion.values())
    if n == 0:
        raise EvalError("no labelled cases to evaluate", "give at least one case")
    correct = sum(confusion[label][label] for label in labels)
    per: dict[str, dict[str, float | int]] = {}
    for label in labels:
        count = sum(confusion[label].values())
        predicted = sum(confusion[e][label] for e in labels)
        hit = confusion[label][label]
        per[label] = {
            "count": count,
            "predicted": predicted,
            "correct": hit,
            "precision": round(hit / predicted, 4) if predicted else 0.0,
            "recall": round(hit / count, 4) if count else 0.0,
        }
    return {
        "cases": n,
        "correct": correct,
        "accuracy": round(correct / n, 4),
        "labels": list(labels),
        "per_label": per,
        "confusion": confusion,
    }


def confusion_text(report: Mapping[str, object]) -> str:
    """Return a fixed-width confusion table (rows expected, columns predicted), per-label
    lines and the accuracy line. Raises EvalError when `report` is not an accuracy report."""
    labels = [str(x) for x in _as_list(report.get("labels"))]
    confusion = report.get("confusion")
    per = report.get("per_label")
    if not isinstance(confusion, Mapping) or not isinstance(per, Mapping):
        raise EvalError("not an accuracy report", "pass what accuracy() returned")
    corner = "expected \\ predicted"
    first = max(len(corner), *(len(x) for x in labels)) + 2
    width = max(len(x) for x in labels) + 2
    lines = [corner.ljust(first) + "".join(x.rjust(width) for x in labels)]
    for e in labels:
        row = confusion[e]
        lines.append(e.ljust(first) + "".join(str(row[p]).rjust(width) for p in labels))
    lines.append("")
    lines.append(
        "label".ljust(first) + "count".rjust(7) + "precision".rjust(11) + "recall".rjust(8)
    )
    for label in labels:
        s = per[label]
        lines.append(
            label.ljust(first) + f"{s['count']:>7}{s['precision']:>11.2f}{s['recall']:>8.2f}"
        )
    lines.append(
        f"accuracy {report.get('accuracy', 0.0):.2f} "
        f"({report.get('correct')}/{report.get('cases')})"
    )
    return "\n".join(lines)


def _as_list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise EvalError("not an accuracy report", "pass what accuracy() returned")
    return value
