"""A suite of judged sets (DESIGN 13, `kroute eval --suite`): every set of a manifest routed
over its own catalog, each beside BM25, with the mean and the worst set.

A manifest is TOML, one `[[set]]` table per set: `name`, `catalog` (a folder), `judged` (a
JSONL file of router.runtime.judged) and an optional `config` (a kroute.toml), paths relative
to the manifest's folder.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from router.base.errors import EvalError
from router.runtime import judged
from router.runtime.engine import Engine

# The figures a suite compares, and whether more is better: in-scope tasks left silent and
# false activations are faults, the rest are wins.
FIGURES = (
    ("hit@1", True),
    ("hit@5", True),
    ("mrr", True),
    ("in_scope_silent", False),
    ("out_of_scope_silent", True),
    ("false_activation", False),
)
SUITE_BUDGET = 5  # the figures are hit@5 whatever a set's config says: sets compare alike


@dataclass(frozen=True, slots=True)
class Member:
    """One set of a suite: its name, the catalog it is routed over, its judged tasks, and the
    kroute.toml it is routed with (None: the catalog's own, else none)."""

    name: str
    catalog: Path
    judged: Path
    config: Path | None = None


def read(path: Path) -> list[Member]:
    """Return the sets of a suite manifest, in file order. Raises EvalError naming the file
    or the set that cannot be read, or a folder or file a set names that does not exist."""
    try:
        manifest = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise EvalError(
            f"cannot read the suite {path}: {error}", "Check the --suite path"
        ) from None
    sets = manifest.get("set")
    if not isinstance(sets, list) or not sets:
        raise EvalError(f"{path.name} holds no [[set]] table", "Add one per judged set")
    base = path.parent
    members: list[Member] = []
    for number, table in enumerate(sets, start=1):
        fields = {k: table.get(k) for k in ("name", "catalog", "judged")}
        config = table.get("config")
        if not all(isinstance(v, str) and v for v in fields.values()) or not (
            config is None or isinstance(config, str)
        ):
            raise EvalError(
                f"{path.name}: set {number} needs name, catalog and judged as strings "
                "(config optional)",
                "Fix that [[set]] table",
            )
        member = Member(
            str(fields["name"]),
            base / str(fields["catalog"]),
            base / str(fields["judged"]),
            base / config if config else None,
        )
        for what, where, is_ok in (
            ("catalog", member.catalog, Path.is_dir),
            ("judged file", member.judged, Path.is_file),
            ("config", member.config, Path.is_file),
        ):
            if where is not None and not is_ok(where):
                raise EvalError(
                    f"{path.name}: set {member.name!r} names the {what} {where}, which is "
                    "not there",
                    "Fix the path (relative to the manifest's folder)",
                )
        members.append(member)
    names = [m.name for m in members]
    if len(set(names)) != len(names):
        raise EvalError(f"{path.name} names a set twice", "Give each [[set]] its own name")
    return members


# (set, repo) -> the engine a task of that set is routed over.
Load = Callable[[Member, str | None], Engine]


def run(
    members: Sequence[Member],
    load: Load,
    order: str,
    baselines: Sequence[str] = (),
    nearby: Callable[[Member], judged.Nearby] | None = None,
) -> dict[str, Any]:
    """Return the suite report: per set, the figures of `order` (and `order+meaning` and the
    model alone with `nearby`) and of each baseline; then the mean and the worst of each
    column over the sets. Raises EvalError for a judged file that cannot be read."""
    sets: dict[str, dict[str, dict[str, float]]] = {}
    for member in members:
        tasks = judged.read(member.judged)
        report = judged.run(
            functools.partial(load, member),
            tasks,
            SUITE_BUDGET,
            baselines,
            nearby(member) if nearby else None,
            orders=(order,),
        )
        measured = {**report["orders"], **report["baselines"]}
        sets[member.name] = {name: figures_of(f) for name, f in measured.items()}
    columns = list(next(iter(sets.values())))
    return {
        "order": order,
        "budget": SUITE_BUDGET,
        "sets": sets,
        "mean": {c: _combine(sets, c, _mean) for c in columns},
        "worst": {c: _combine(sets, c, _worst) for c in columns},
    }


def figures_of(metrics: Mapping[str, Any]) -> dict[str, float]:
    """Return the suite's figures from a judged set's metrics: rates, with None where a set
    has no task to count (no out-of-scope task, no `not_relevant`)."""
    covered = metrics["covered"]
    return {
        "hit@1": metrics["hit@1"],
        "hit@5": metrics[f"hit@{SUITE_BUDGET}"],
        "mrr": metrics["mrr"],
        "in_scope_silent": _rate(metrics["silent_when_covered"], covered),
        "out_of_scope_silent": metrics["silence_rate"] if metrics["uncovered"] else None,
        "false_activation": _rate(metrics["false_activations"], metrics["guarded"]),
        "tasks": metrics["tasks"],
    }


def _rate(count: int, of: int) -> float | None:
    return round(count / of, 4) if of else None


def _values(
    sets: Mapping[str, Mapping[str, Mapping[str, Any]]], column: str, key: str
) -> list[float]:
    return [f[column][key] for f in sets.values() if f[column].get(key) is not None]


def _mean(values: list[float], _better: bool) -> float:
    return round(sum(values) / len(values), 4)


def _worst(values: list[float], better: bool) -> float:
    return min(values) if better else max(values)


def _combine(
    sets: Mapping[str, Mapping[str, Mapping[str, Any]]],
    column: str,
    how: Callable[[list[float], bool], float],
) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for key, better in FIGURES:
        values = _values(sets, column, key)
        out[key] = how(values, better) if values else None
    return out


def text(report: Mapping[str, Any]) -> str:
    """Return the suite report as one table: a row per set and column (the order, then each
    baseline), then the mean and the worst of each column. `-` where a set has nothing to
    count."""
    head = ["set", "column", *(k for k, _ in FIGURES)]
    rows: list[list[str]] = []
    blocks = [*report["sets"].items(), ("mean", report["mean"]), ("worst", report["worst"])]
    for name, columns in blocks:
        for column, figures in columns.items():
            rows.append([name, column, *(_cell(figures.get(k)) for k, _ in FIGURES)])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = [
        "  ".join(
            cell.ljust(w) if i < 2 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in [head, *rows]
    ]
    lines.append(
        f"order {report['order']}, budget {report['budget']}; silent columns are rates "
        "(in scope: tasks with a relevant document; out of scope: nothing may fire); "
        "worst: the lowest win and highest fault of any set"
    )
    return "\n".join(lines)


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
