"""Judged sets: how often a route shows the agent a document a judge marked relevant
(DESIGN 13, `kroute eval --judged`), beside a plain BM25 run over the same entries.

Counts what the agent is shown: anchored pointers plus the ranked ones within the budget.
It runs requests through `engine`, so it sits beside the services, above the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeGuard

import orjson

from router.base.errors import EvalError
from router.evaluation.baseline import Bm25
from router.route import fusion
from router.route.contract import ORDERS
from router.runtime import intake
from router.runtime.engine import NEIGHBOURS, Engine

BASELINES = ("bm25",)
WHOLE_ORDER = 1_000_000  # a budget no catalog fills: the route's whole order, for ranks
WHOLE_NEIGHBOURS = 100  # the embedding model's order, deep enough for MRR

# A shown item: an id, or (id, path) of a pointer.
Item = str | tuple[str, str]


SCOPES = ("global", "skill")


@dataclass(frozen=True, slots=True)
class Judged:
    """One judged task: the ids or path ends that answer it (none: the router should stay
    silent), the repository folder it is asked in, if the set names one, the documents a
    pointer must not go to (`not_relevant`), and its `scope`: `global` (or none) when an empty
    `relevant` means nothing may fire, `skill` when only `not_relevant` must not."""

    task: str
    relevant: tuple[str, ...]
    repo: str | None = None
    ident: str = ""
    not_relevant: tuple[str, ...] = ()
    scope: str | None = None

    @property
    def out_of_scope(self) -> bool:
        """Return whether silence is the right answer: nothing is relevant, and the task does
        not merely forbid some documents."""
        return not self.relevant and self.scope != "skill"


def read(path: Path) -> list[Judged]:
    """Return the tasks of a judged JSONL file (`{task, relevant: [...], repo?, id?}` per
    line). Raises EvalError naming the line that is not such an object."""
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
        if not isinstance(item, dict):
            item = {}
        relevant = item.get("relevant")
        repo = item.get("repo")
        forbidden = item.get("not_relevant", [])
        scope = item.get("scope")
        if (
            not isinstance(item.get("task"), str)
            or not _strings(relevant)
            or not _strings(forbidden)
            or not (repo is None or (isinstance(repo, str) and repo.strip("./")))
            or not (scope is None or scope in SCOPES)
        ):
            raise EvalError(
                f"{path.name}:{number} is not a {{task, relevant: [ids], repo?, "
                f"not_relevant?: [ids], scope?: {' | '.join(SCOPES)}}} object",
                "Fix that line",
            )
        ident = item.get("id")
        out.append(
            Judged(
                item["task"],
                tuple(relevant),
                repo,
                ident if isinstance(ident, str) else "",
                tuple(forbidden),
                scope,
            )
        )
    if not out:
        raise EvalError(f"{path.name} holds no judged task", "Add lines of {task, relevant}")
    return out


def _strings(value: object) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def hit(item: Item, relevant: Sequence[str]) -> bool:
    """Return whether a shown item is relevant: its id is named, or its path equals or ends
    with a named path (relevant paths may carry the repository folder in front)."""
    if isinstance(item, str):
        return item in relevant
    ident, path = item
    for r in relevant:
        if r in (ident, path) or path.endswith("/" + r) or r.endswith("/" + path):
            return True
    return False


def first_relevant(ranked: Sequence[Item], relevant: Sequence[str]) -> int | None:
    """Return the 1-based rank of the first relevant item in `ranked`, or None."""
    for place, item in enumerate(ranked, start=1):
        if hit(item, relevant):
            return place
    return None


def metrics(
    rows: Sequence[tuple[Judged, Sequence[Item], Sequence[Item]]], budget: int
) -> dict[str, Any]:
    """Return hit@1, hit@budget and MRR over covered tasks, how many of those were left
    silent, the silence rate over out-of-scope ones, and the false activations (tasks shown a
    `not_relevant` document), from (task, the route's whole order, the items it showed)
    rows."""
    covered = [row for row in rows if row[0].relevant]
    uncovered = [row for row in rows if row[0].out_of_scope]
    guarded = [row for row in rows if row[0].not_relevant]
    hit1 = hitb = reciprocal = 0.0
    for j, ranked, offered in covered:
        rank = first_relevant(ranked, j.relevant)
        hit1 += 1 if offered[:1] and hit(offered[0], j.relevant) else 0
        hitb += 1 if any(hit(i, j.relevant) for i in offered) else 0
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
        "guarded": len(guarded),
        "false_activations": sum(
            1 for j, _, offered in guarded if any(hit(i, j.not_relevant) for i in offered)
        ),
    }


# A judged set's neighbours by meaning: (repo, task, how many) -> what meaning says of it.
Nearby = Callable[[str | None, str, int], fusion.Nearness]
# A judged set's engines: repo (None: the whole catalog) -> the engine its tasks are routed over.
Load = Callable[[str | None], Engine]
MEANING = "meaning"  # the embedding model alone, as a baseline column


def run(
    load: Load,
    tasks: list[Judged],
    budget: int | None = None,
    baselines: Sequence[str] = (),
    nearby: Nearby | None = None,
    orders: Sequence[str] = ORDERS,
    weights: Sequence[float] = (),
) -> dict[str, Any]:
    """Return the judged report: metrics per order side by side (and per baseline), and per
    task the rank of the first relevant entry in the route's whole order under each. With
    `nearby`, each order is also run with its neighbours by meaning fused in (meaning mode
    `live`, columns `<order>+meaning`), and the embedding model alone is a baseline column;
    each of `weights` adds a fused column at that words' weight (`<order>+meaning@<weight>`),
    whose MRR counts only the pointers shown.
    `orders` names the orders run (default: all of them).

    `load(repo)` gives the engine a task is routed over (cache it: it is asked per task)."""
    budget = budget or load(tasks[0].repo).config.budget
    report: dict[str, Any] = {"budget": budget, "orders": {}, "baselines": {}, "tasks": []}
    per_task: list[dict[str, Any]] = [
        {"id": j.ident, "task": j.task, "relevant": list(j.relevant), "rank": {}, "offered": {}}
        for j in tasks
    ]
    # a task's neighbours, asked once however many columns read them: the first NEIGHBOURS
    # of the model's deeper order are what a live route fuses
    asked: dict[tuple[str | None, str], fusion.Nearness] = {}

    def neighbours(j: Judged) -> fusion.Nearness:
        assert nearby is not None
        if (j.repo, j.task) not in asked:
            asked[j.repo, j.task] = nearby(j.repo, j.task, WHOLE_NEIGHBOURS)
        return asked[j.repo, j.task]

    # (column, order, the words' weight when fused, whether the whole order is ranked)
    runs: list[tuple[str, str, float | None, bool]] = [(o, o, None, True) for o in orders]
    if nearby is not None:
        runs += [(f"{o}+{MEANING}", o, fusion.WORDS_WEIGHT, True) for o in orders]
        # a weight's column routes only what is shown (its MRR is over those): the whole
        # order of every task, each with its evidence, costs minutes a weight on big sets
        runs += [(f"{o}+{MEANING}@{w:g}", o, w, False) for o in orders for w in weights]
    for column, order, weight, deep in runs:
        rows = []
        for j, line in zip(tasks, per_task, strict=True):
            engine = load(j.repo)
            ask = {"task": j.task, "order": order}
            fused: dict[str, Any] = {}
            if weight is not None:
                fused = {"meaning": neighbours(j).first(NEIGHBOURS), "words_weight": weight}
            shown_ask = intake.route({**ask, "budget": budget}, engine.config).request
            route = engine.assemble(replace(shown_ask, **fused))
            offered = [(p.entry.id, p.entry.path) for p in route.pointers]
            ranked = offered
            if deep:
                whole_ask = intake.route({**ask, "budget": WHOLE_ORDER}, engine.config).request
                whole = engine.assemble(replace(whole_ask, **fused))
                ranked = [(p.entry.id, p.entry.path) for p in whole.pointers]
            rows.append((j, ranked, offered))
            line["rank"][column] = first_relevant(ranked, j.relevant)
            line["offered"][column] = [p for p, _ in offered]
        report["orders"][column] = metrics(rows, budget)
    if nearby is not None:
        rows = []
        for j, line in zip(tasks, per_task, strict=True):
            engine = load(j.repo)
            found = []
            for n in neighbours(j).nearest:
                item = engine.index.get(n.id)
                if item is not None:
                    found.append((item.id, item.path))
            rows.append((j, found, found[:budget]))
            line["rank"][MEANING] = first_relevant(found, j.relevant)
            line["offered"][MEANING] = [p for p, _ in found[:budget]]
        report["baselines"][MEANING] = metrics(rows, budget)
    references: dict[str | None, Bm25] = {}
    for name in baselines:
        rows = []
        for j, line in zip(tasks, per_task, strict=True):
            if j.repo not in references:
                references[j.repo] = Bm25(load(j.repo).index.entries())
            found = [(e.id, e.path) for e in references[j.repo].rank(j.task)]
            rows.append((j, found, found[:budget]))
            line["rank"][name] = first_relevant(found, j.relevant)
            line["offered"][name] = [p for p, _ in found[:budget]]
        report["baselines"][name] = metrics(rows, budget)
    report["tasks"] = per_task
    return report


def _ratio(numerator: float, denominator: int) -> float:
    return round(numerator / denominator, 4) if denominator else 0.0


def text(report: Mapping[str, Any]) -> str:
    """Return the judged report as a table of the orders (and baselines), then one line per
    task with the rank of its first relevant entry under each (`-` when none is reached)."""
    budget = report["budget"]
    keys = ("hit@1", f"hit@{budget}", "mrr", "silence_rate")
    width = max(10, *(len(c) + 2 for c in report["orders"]))
    lines = [f"{'order':<{width}}" + "".join(f"{k:>14}" for k in keys)]
    columns = {**report["orders"], **report.get("baselines", {})}
    for order, figures in columns.items():
        lines.append(f"{order:<{width}}" + "".join(f"{figures[k]:>14.3f}" for k in keys))
    first = next(iter(report["orders"].values()))
    lines.append(
        f"{first['covered']} covered tasks, {first['uncovered']} with no relevant document "
        f"(silence rate counts those); budget {budget}"
    )
    lines.append("")
    lines.append(f"rank of the first relevant entry ({' / '.join(columns)}), task")
    for task in report["tasks"]:
        if task["relevant"]:
            ranks = " / ".join(_rank(task["rank"][o]) for o in columns)
        else:
            ranks = " / ".join("silent" if not task["offered"][o] else "spoke" for o in columns)
        lines.append(f"  {ranks:<24} {task['task']}")
    return "\n".join(lines)


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)
