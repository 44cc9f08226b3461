"""A suite of judged sets (DESIGN 13, `kroute eval --suite`): every set of a manifest routed
over its own catalog, each beside BM25, with the mean and the worst set.

A manifest is TOML, one `[[set]]` table per set: `name`, `catalog` (a folder), `judged` (a
JSONL file of router.evaluation.judged) and an optional `config` (a kroute.toml), paths relative
to the manifest's folder.
"""

from __future__ import annotations

import functools
import math
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from router.base.errors import EvalError
from router.evaluation import judged
from router.route import fusion
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
    column over the sets. With `nearby`, also `weights`: the fused figures at each words'
    weight of fusion.WEIGHTS, the weight the whole suite chooses, and the held-out figures
    of each set at the weight the other sets choose (`holdout`). Raises EvalError for a
    judged file that cannot be read."""
    sets: dict[str, dict[str, dict[str, float]]] = {}
    grid: dict[str, dict[float, dict[str, float]]] = {}
    for member in members:
        tasks = judged.read(member.judged)
        report = judged.run(
            functools.partial(load, member),
            tasks,
            SUITE_BUDGET,
            baselines,
            nearby(member) if nearby else None,
            orders=(order,),
            weights=fusion.WEIGHTS if nearby else (),
        )
        measured = {**report["orders"], **report["baselines"]}
        figures = {name: figures_of(f) for name, f in measured.items()}
        marked = f"{order}+{judged.MEANING}@"
        grid[member.name] = {
            float(name[len(marked) :]): f for name, f in figures.items() if name.startswith(marked)
        }
        sets[member.name] = {n: f for n, f in figures.items() if not n.startswith(marked)}
    columns = list(next(iter(sets.values())))
    out: dict[str, Any] = {
        "order": order,
        "budget": SUITE_BUDGET,
        "sets": sets,
        "mean": {c: _combine(sets, c, _mean) for c in columns},
        "worst": {c: _combine(sets, c, _worst) for c in columns},
    }
    if nearby is not None:
        out["weights"] = holdout(grid, sets, order)
    return out


def holdout(
    grid: Mapping[str, Mapping[float, Mapping[str, float]]],
    sets: Mapping[str, Mapping[str, Mapping[str, Any]]],
    order: str,
) -> dict[str, Any]:
    """Return the choice of the words' weight: per weight the mean figures over the sets
    and how many sets it leaves below their words-only hit@1 or hit@5 (`means`; each set's
    figures under `sets`); the weight all sets choose (`choose`) beside the one shipped; and,
    leaving each set out in turn, the weight the others choose with the held-out set's
    figures at it beside its words-only ones."""
    names = list(grid)
    weights = sorted(next(iter(grid.values())))
    words = {n: sets[n][order] for n in names}

    def choice(among: Sequence[str]) -> float:
        return choose({w: [(grid[n][w], words[n]) for n in among] for w in weights})

    means = {
        _key(w): {
            **{k: _mean([grid[n][w][k] for n in names], True) for k in CHOSEN_BY},
            "sets_lowered": sum(_lowered(grid[n][w], words[n]) for n in names),
        }
        for w in weights
    }
    held: dict[str, dict[str, Any]] = {}
    for name in names:
        chosen = choice([n for n in names if n != name])
        held[name] = {
            "weight": chosen,
            "fused": {k: grid[name][chosen][k] for k in CHOSEN_BY},
            "words": {k: words[name][k] for k in CHOSEN_BY},
        }
    return {
        "chosen": choice(names),
        "shipped": fusion.WORDS_WEIGHT,
        "means": means,
        "sets": {n: {_key(w): dict(grid[n][w]) for w in weights} for n in names},
        "held_out": held,
        "held_out_mean": {k: _mean([held[n]["fused"][k] for n in names], True) for k in CHOSEN_BY},
        "words_mean": {k: _mean([words[n][k] for n in names], True) for k in CHOSEN_BY},
    }


def _key(weight: float) -> str:
    """Return a weight as a report's key (JSON keys are strings)."""
    return f"{weight:.1f}"


# What a weight is chosen by, after how few sets it lowers: the mean hit@5 over the sets,
# then hit@1 (a weight's column ranks only what it shows: its MRR says little).
CHOSEN_BY = ("hit@5", "hit@1")


def _lowered(fused: Mapping[str, Any], words: Mapping[str, Any]) -> bool:
    """Return whether fused routes leave a set below its words-only hit@1 or hit@5."""
    return any(fused[k] < words[k] for k in CHOSEN_BY)


def choose(
    measured: Mapping[float, Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]],
) -> float:
    """Return the weight, of those measured as (fused figures, words-only figures) per set,
    that leaves the fewest sets below their words-only hit@1 or hit@5 (a ranking change is
    kept only when no set gets worse), then has the best mean hit@5, then hit@1; the higher
    weight on a tie: it is meaning's share that must earn its place."""

    def merit(w: float) -> tuple[float, ...]:
        lowered = sum(_lowered(fused, words) for fused, words in measured[w])
        means = (math.fsum(fused[k] for fused, _ in measured[w]) for k in CHOSEN_BY)
        return (lowered, *(-m for m in means), -w)

    return min(measured, key=merit)


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
    if "weights" in report:
        lines += ["", *weights_text(report["weights"], report["order"])]
    return "\n".join(lines)


def weights_text(weights: Mapping[str, Any], order: str) -> list[str]:
    """Return the lines on the words' weight: the mean figures at each, the weight chosen,
    and each set held out at the weight the others chose, beside its words-only figures."""
    keys = " / ".join(CHOSEN_BY)
    lines = [
        f"words' weight in the fused score: mean {keys} over the sets, and the sets it leaves "
        f"below {order} at hit@1 or hit@5"
    ]
    for w, means in weights["means"].items():
        figures = " / ".join(_cell(means[k]) for k in CHOSEN_BY)
        lines.append(f"  {w}  {figures}  {means['sets_lowered']} lowered")
    words = " / ".join(_cell(weights["words_mean"][k]) for k in CHOSEN_BY)
    lines.append(f"  {order} alone  {words}")
    lines.append(
        f"chosen on every set: {weights['chosen']:.1f} (the fewest sets lowered, then mean "
        f"hit@5, then hit@1); shipped: {weights['shipped']:.1f}"
    )
    lines.append(f"each set left out: the weight the others chose, its {keys} there, and {order}")
    width = max(len(n) for n in weights["held_out"])
    for name, held in weights["held_out"].items():
        fused = " / ".join(_cell(held["fused"][k]) for k in CHOSEN_BY)
        words = " / ".join(_cell(held["words"][k]) for k in CHOSEN_BY)
        lines.append(f"  {name:<{width}}  {held['weight']:.1f}  {fused}  ({order} {words})")
    mean = " / ".join(_cell(weights["held_out_mean"][k]) for k in CHOSEN_BY)
    alone = " / ".join(_cell(weights["words_mean"][k]) for k in CHOSEN_BY)
    lines.append(f"  {'mean':<{width}}       {mean}  ({order} {alone})")
    return lines


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
