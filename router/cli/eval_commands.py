"""`kroute eval`: the annex router's fixture cases, a judged set, or a labelled intent set."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from router.base.errors import EvalError
from router.catalog.config import DEFAULT_ORDER
from router.cli import group
from router.cli.catalog_commands import neighbours_of
from router.evaluation import fixture, judged, suite
from router.route.contract import ORDERS
from router.route.fusion import Nearness
from router.runtime import nearby
from router.runtime.engine import Engine


@group.main.command(name="eval")
@click.argument("directory", required=False, type=click.Path(path_type=Path))
@click.option(
    "--judged",
    "judged_file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="A JSONL set of {task, relevant: [ids]}: hit@1, hit@budget, MRR, silence rate.",
)
@click.option(
    "--suite",
    "suite_file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="A TOML manifest of judged sets ([[set]] name, catalog, judged, config?): every set, "
    "its mean and its worst.",
)
@click.option(
    "--order",
    type=click.Choice(ORDERS),
    default=DEFAULT_ORDER,
    show_default=True,
    help="The order --suite measures.",
)
@click.option(
    "--intent",
    "intent_file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="A JSONL set of {text, strategy, skip}: intent accuracy and confusions.",
)
@click.option("--budget", type=click.IntRange(min=1), help="Budget for --judged (default: config).")
@click.option(
    "--baseline",
    "baselines",
    multiple=True,
    type=click.Choice(judged.BASELINES),
    help="Also rank the judged set with a plain baseline over the same entries.",
)
@click.option(
    "--meaning",
    "with_meaning",
    is_flag=True,
    help="Also run each order with neighbours by meaning fused in, and the model alone; with "
    "--suite, also every words' weight and each set left out in turn.",
)
@group.catalog_option
@group.config_option
@group.json_option
def eval_command(
    directory: Path | None,
    judged_file: Path | None,
    suite_file: Path | None,
    order: str,
    intent_file: Path | None,
    budget: int | None,
    baselines: tuple[str, ...],
    with_meaning: bool,
    catalog_dir: Path | None,
    config_file: Path | None,
    as_json: bool,
) -> None:
    """Run the annex router's fixture cases in DIRECTORY (exit 1 when one fails), or score a judged
    set (--judged), a suite of them (--suite) or a labelled intent set (--intent)."""
    if sum(x is not None for x in (directory, judged_file, suite_file, intent_file)) != 1:
        raise click.UsageError(
            "give one of: a case DIRECTORY, --judged FILE, --suite FILE, --intent FILE"
        )
    if suite_file is not None:
        if catalog_dir is not None or config_file is not None or budget is not None:
            raise click.UsageError(
                "--suite names each set's catalog and config, and measures at budget 5: "
                "drop --catalog, --config and --budget"
            )
        measured = _suite(suite_file, order, baselines, with_meaning)
        group.emit_json(measured) if as_json else group.say(suite.text(measured))
        return
    if judged_file is not None:
        load = _engines(catalog_dir, config_file)
        tasks = judged.read(judged_file)
        report = judged.run(
            load, tasks, budget, baselines, _neighbours(load) if with_meaning else None
        )
        group.emit_json(report) if as_json else group.say(judged.text(report))
        return
    if intent_file is not None:
        report = fixture.intent_report(intent_file)
        group.emit_json(report) if as_json else group.say(fixture.intent_text(report))
        return
    assert directory is not None
    if not directory.is_dir():
        raise click.BadParameter(f"{directory} is not a directory", param_hint="DIRECTORY")
    report = fixture.cases(directory, lambda d: Engine.load(group.resolve_config(d, None)))
    if as_json:
        group.emit_json(report)
    else:
        for case in report["cases"]:
            mark = "pass" if case["passed"] else "FAIL"
            click.echo(f"{mark}  {case['case_id']}")
            for failure in case["failures"]:
                click.echo(f"      {failure}")
        click.echo(
            f"{report['status']}: {report['passed_case_count']} of {report['case_count']} passed"
        )
    if report["status"] != "pass":
        sys.exit(1)


def _engines(catalog_dir: Path | None, config_file: Path | None) -> judged.Load:
    """Return the engine a judged task is routed over, by its `repo`: the catalog, or that
    folder of it alone; each loaded once. Raises EvalError for a repo that is no folder."""
    engines: dict[str | None, Engine] = {}

    def load(repo: str | None) -> Engine:
        if repo not in engines:
            where = catalog_dir
            if repo:
                where = (catalog_dir or Path.cwd()) / repo
                if not where.is_dir():
                    raise EvalError(
                        f"the judged set names repo {repo!r}, and {where} is not a directory",
                        "Point --catalog at the folder holding the repositories",
                    )
            engines[repo] = Engine.load(group.resolve_config(where, config_file))
        return engines[repo]

    return load


def _neighbours(load: judged.Load) -> judged.Nearby:
    """Return a judged task's neighbours by meaning over the engine `load` gives its repo,
    each repo's model index made once."""
    near: dict[str | None, nearby.Nearby] = {}

    def neighbours(repo: str | None, task: str, k: int) -> Nearness:
        if repo not in near:
            near[repo] = neighbours_of(load(repo))
        return near[repo](task, k)

    return neighbours


def _suite(
    path: Path, order: str, baselines: tuple[str, ...], with_meaning: bool
) -> dict[str, Any]:
    """Return the report of every set of the suite at `path` (router.evaluation.suite.run), each
    set's engines loaded once per repository folder."""
    members = suite.read(path)
    loads = {m.name: _engines(m.catalog, m.config) for m in members}
    return suite.run(
        members,
        lambda member, repo: loads[member.name](repo),
        order,
        baselines,
        (lambda member: _neighbours(loads[member.name])) if with_meaning else None,
    )
