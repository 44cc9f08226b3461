"""The `kroute` command line. The only module that imports click.

Every error the router raises on purpose reaches one handler (`_Group.invoke`), which prints
`Error: <what happened>. <what to do>` and exits 1; usage errors exit 2.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

import click
import orjson

from router import __version__, client, config, daemon, evaluate, render
from router.config import Config
from router.engine import Engine
from router.errors import DaemonError, KrouteError

JSON_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KrouteError as error:
            raise click.ClickException(str(error)) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kroute")
def main() -> None:
    """Decide which few documents of a repository's knowledge catalog an agent should read
    before it acts, and say why each one was chosen."""


# -- shared options ---------------------------------------------------------------------------

catalog_option = click.option(
    "--catalog",
    "catalog_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Catalog directory (default: the repository found from here).",
)
config_option = click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="kroute.toml to use (default: $KROUTE_CONFIG, else found by walking up).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def resolve_config(catalog_dir: Path | None, config_file: Path | None) -> Config:
    """Return the configuration the options and the environment name (DESIGN 4.1).

    Raises ConfigError (a KrouteError) for a missing or invalid file."""
    if config_file is None and os.environ.get("KROUTE_CONFIG"):
        config_file = Path(os.environ["KROUTE_CONFIG"])
    if catalog_dir is not None:
        if not catalog_dir.is_dir():
            raise click.BadParameter(f"{catalog_dir} is not a directory", param_hint="--catalog")
        root = catalog_dir.resolve()
        if config_file is None and (root / config.FILE_NAME).is_file():
            config_file = root / config.FILE_NAME
        return config.load(config_file, root) if config_file else config.bare(root)
    if config_file is not None:
        return config.load(config_file)
    found = config.discover(Path.cwd())
    return config.load(found) if found else config.bare(Path.cwd().resolve())


def emit_json(document: object) -> None:
    """Print a document as sorted, indented JSON."""
    click.echo(orjson.dumps(document, option=JSON_OPTIONS).decode("utf-8"))


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def color_wanted() -> bool:
    """Return whether to color: only on a terminal, and never with NO_COLOR set."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


# -- commands ----------------------------------------------------------------------------------


@main.command()
@click.argument("task")
@catalog_option
@config_option
@json_option
@click.option("--explain", is_flag=True, help="Print seed 1's explain record (score rows).")
@click.option("--budget", type=click.IntRange(min=1), help="Pointers to offer (default 5).")
@click.option("--limit", type=click.IntRange(min=1), help="Rows of --explain to keep.")
@click.option("--domain", help="Only entries whose routing names this domain.")
@click.option("--cluster", help="Only entries whose routing names this cluster.")
@click.option("--kind", help="Only entries of this kind.")
@click.option("--purpose", help="Only entries whose kind serves this purpose.")
@click.option("--order", type=click.Choice(["diverse", "turns", "score"]), help="Turn order.")
@click.option("--path", "paths", multiple=True, help="A file the task is about (an anchor).")
@click.option("--no-daemon", is_flag=True, help="Route in this process; never start a daemon.")
def route(
    task: str,
    catalog_dir: Path | None,
    config_file: Path | None,
    as_json: bool,
    explain: bool,
    budget: int | None,
    limit: int | None,
    domain: str | None,
    cluster: str | None,
    kind: str | None,
    purpose: str | None,
    order: str | None,
    paths: tuple[str, ...],
    no_daemon: bool,
) -> None:
    """Route TASK (or `-` to read it from stdin) to the documents worth reading."""
    if task == "-":
        task = sys.stdin.read()
    if limit is not None and not explain:
        raise click.UsageError("--limit applies to the rows of --explain; use --budget for routes")
    cfg = resolve_config(catalog_dir, config_file)
    filters = {"domain": domain, "cluster": cluster, "kind": kind, "purpose": purpose}
    if explain:
        body: dict[str, Any] = {"task": task, "limit": limit, **filters}
        emit_json(_answer(cfg, "/v1/explain", body, no_daemon))
        return
    body = {"task": task, "budget": budget, "order": order, "paths": list(paths), **filters}
    document = _answer(cfg, "/v1/route", body, no_daemon)
    if as_json:
        emit_json(document)
    else:
        click.echo(_colored(document["text"]) if color_wanted() else document["text"])


def _answer(cfg: Config, endpoint: str, body: dict[str, Any], no_daemon: bool) -> Any:
    """Return the daemon's answer, or the in-process one with --no-daemon or when no daemon
    can be had (a note on stderr says so)."""
    body = {k: v for k, v in body.items() if v is not None}
    if not no_daemon:
        target = client.target(cfg.root, cfg.file, os.environ)
        try:
            return client.ask(target, os.environ, endpoint, body)
        except DaemonError as error:
            click.echo(f"note: routed in process ({error})", err=True)
    engine = Engine.load(cfg)
    return engine.explain(body) if endpoint == "/v1/explain" else engine.route(body)


def _colored(text: str) -> str:
    """Return the text report with evidence lines dimmed."""
    lines = text.split("\n")
    return "\n".join(
        f"{render.DIM}{line}{render.RESET}"
        if line.startswith(render.EVIDENCE_INDENT) and render.EM_DASH not in line
        else line
        for line in lines
    )


@main.command()
@catalog_option
@config_option
@json_option
def check(catalog_dir: Path | None, config_file: Path | None, as_json: bool) -> None:
    """Check the catalog: every diagnostic, and entries by kind. Exit 1 on any error."""
    engine = Engine.load(resolve_config(catalog_dir, config_file))
    cat = engine.catalog
    kinds = dict(sorted(Counter(e.kind for e in cat.entries).items()))
    if as_json:
        emit_json(
            {
                "entries": len(cat.entries),
                "kinds": kinds,
                "errors": len(cat.errors),
                "warnings": len(cat.diagnostics) - len(cat.errors),
                "diagnostics": [d.as_dict() for d in cat.diagnostics],
                "root": str(engine.config.root),
            }
        )
    else:
        for d in cat.diagnostics:
            where = f"{d.path}:{d.line}" if d.line is not None else d.path
            click.echo(f"{where}: {d.severity}: {d.problem}")
        by_kind = ", ".join(f"{kind} {count}" for kind, count in kinds.items()) or "none"
        warnings = len(cat.diagnostics) - len(cat.errors)
        click.echo(
            f"{_count(len(cat.entries), 'entry', 'entries')} ({by_kind}); "
            f"{_count(len(cat.errors), 'error')}, {_count(warnings, 'warning')}"
        )
    if cat.errors:
        sys.exit(1)


@main.command()
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    help="Where to write kroute.toml (default: here).",
)
def init(directory: Path) -> None:
    """Write a starter kroute.toml (never over an existing one)."""
    target = directory / config.FILE_NAME
    if target.exists():
        raise KrouteError(f"{target} already exists", "Edit it, or remove it to start over")
    starter = resources.files("router").joinpath("data/starter.toml").read_text("utf-8")
    directory.mkdir(parents=True, exist_ok=True)
    target.write_text(starter, encoding="utf-8")
    click.echo(f"wrote {target}")


@main.command(name="eval")
@click.argument("directory", required=False, type=click.Path(path_type=Path))
@click.option(
    "--judged",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="A JSONL set of {task, relevant: [ids]}: hit@1, hit@budget, MRR, silence rate.",
)
@click.option(
    "--intent",
    "intent_file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="A JSONL set of {text, strategy, skip}: intent accuracy and confusions.",
)
@click.option("--budget", type=click.IntRange(min=1), help="Budget for --judged (default: config).")
@catalog_option
@config_option
@json_option
def eval_command(
    directory: Path | None,
    judged: Path | None,
    intent_file: Path | None,
    budget: int | None,
    catalog_dir: Path | None,
    config_file: Path | None,
    as_json: bool,
) -> None:
    """Run seed 1's fixture cases in DIRECTORY (exit 1 when one fails), or score a judged
    set (--judged) or a labelled intent set (--intent)."""
    if sum(x is not None for x in (directory, judged, intent_file)) != 1:
        raise click.UsageError("give one of: a case DIRECTORY, --judged FILE, --intent FILE")
    if judged is not None:
        engine = Engine.load(resolve_config(catalog_dir, config_file))
        report = evaluate.judged(engine, evaluate.read_judged(judged), budget)
        emit_json(report) if as_json else click.echo(evaluate.judged_text(report))
        return
    if intent_file is not None:
        report = evaluate.intent_report(intent_file)
        emit_json(report) if as_json else click.echo(evaluate.intent_text(report))
        return
    assert directory is not None
    if not directory.is_dir():
        raise click.BadParameter(f"{directory} is not a directory", param_hint="DIRECTORY")
    report = evaluate.cases(directory, lambda d: Engine.load(resolve_config(d, None)))
    if as_json:
        emit_json(report)
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


# -- the daemon --------------------------------------------------------------------------------


@main.command()
@catalog_option
@config_option
def serve(catalog_dir: Path | None, config_file: Path | None) -> None:
    """Run the daemon in the foreground (logs on stderr)."""
    sys.exit(daemon.serve(resolve_config(catalog_dir, config_file), os.environ))


def _target(catalog_dir: Path | None, config_file: Path | None) -> client.Target:
    cfg = resolve_config(catalog_dir, config_file)
    return client.target(cfg.root, cfg.file, os.environ)


@main.command()
@catalog_option
@config_option
def start(catalog_dir: Path | None, config_file: Path | None) -> None:
    """Start the daemon for this repository in the background."""
    target = _target(catalog_dir, config_file)
    current, sentence = client.state(target)
    if current == "running":
        click.echo(f"already running: {sentence}")
        return
    client.ensure(target, os.environ)
    click.echo(f"started: {client.state(target)[1]}")


@main.command()
@catalog_option
@config_option
def stop(catalog_dir: Path | None, config_file: Path | None) -> None:
    """Stop this repository's daemon."""
    target = _target(catalog_dir, config_file)
    _, sentence = client.state(target)
    if client.stop(target):
        click.echo("stopped")
    else:
        click.echo(f"not running: {sentence}")


@main.command()
@catalog_option
@config_option
def restart(catalog_dir: Path | None, config_file: Path | None) -> None:
    """Stop this repository's daemon and start a fresh one."""
    target = _target(catalog_dir, config_file)
    client.stop(target)
    client.start(target, os.environ)
    click.echo(f"restarted: {client.state(target)[1]}")


@main.command()
@catalog_option
@config_option
@json_option
def status(catalog_dir: Path | None, config_file: Path | None, as_json: bool) -> None:
    """Say whether this repository's daemon runs, and what it serves. Exit 1 when it does not
    run."""
    target = _target(catalog_dir, config_file)
    current, sentence = client.state(target)
    report: dict[str, Any] = {"state": current, "says": sentence}
    if current == "running":
        reply = client.call(target, "GET", "/v1/status", timeout=2.0)
        report.update(reply.json())
    if as_json:
        emit_json(report)
    elif current == "running":
        click.echo(
            f"running: pid {report['pid']}, {report['entries']} entries, "
            f"{report['routes']} routes served, up {report['uptime_s']:.0f} s\n"
            f"  root {report['root']}\n  socket {report['socket']}"
        )
    else:
        click.echo(f"{current}: {sentence}")
    if current != "running":
        sys.exit(1)
