"""`kroute route | check | init | why-not | intent | relevance`: the catalog and its routes.

`kroute eval` lives in `router.cli.eval_commands`; it borrows `neighbours_of` from here.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import click

from router import client
from router.base.errors import DaemonError, KrouteError
from router.catalog import config, diagnostic, stray
from router.catalog.config import Config
from router.cli import group
from router.client import locate, trust
from router.core import shown
from router.filters import intent, relevance
from router.runtime import intake, nearby
from router.runtime.engine import Engine, strategy_defaults
from router.serve import launcher, service

# -- commands ----------------------------------------------------------------------------------


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


@group.main.command()
@click.argument("task")
@group.catalog_option
@group.config_option
@group.json_option
@click.option("--explain", is_flag=True, help="Print the annex router's score rows.")
@click.option("--budget", type=click.IntRange(min=1), help="Pointers to offer (default 5).")
@click.option("--limit", type=click.IntRange(min=1), help="Rows of --explain to keep.")
@click.option("--domain", help="Only entries whose routing names this domain.")
@click.option("--cluster", help="Only entries whose routing names this cluster.")
@click.option("--kind", help="Only entries of this kind.")
@click.option("--purpose", help="Only entries whose kind serves this purpose.")
@click.option("--order", type=click.Choice(["diverse", "turns", "score"]), help="Turn order.")
@click.option("--path", "paths", multiple=True, help="A file the task is about (an anchor).")
@click.option("--focus", help="The file about to be touched: drop entries only about its imports.")
@click.option(
    "--strategy",
    type=click.Choice(
        ["auto", "lookup", "lexical", "verification", "multi-hop", "global", "deep-reason"]
    ),
    help="Retrieval strategy; auto classifies the task.",
)
@click.option(
    "--meaning",
    type=click.Choice(["off", "shadow", "live"]),
    help="Neighbours by meaning for this route (the meaning extra; default: config).",
)
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
    focus: str | None,
    strategy: str | None,
    meaning: str | None,
    no_daemon: bool,
) -> None:
    """Route TASK (or `-` to read it from stdin) to the documents worth reading."""
    if task == "-":
        task = sys.stdin.read()
    if limit is not None and not explain:
        raise click.UsageError("--limit applies to the rows of --explain; use --budget for routes")
    # no daemon, and no route, over a directory that holds no catalog at all
    cfg = group.resolve_config(catalog_dir, config_file, need_catalog=True)
    filters = {"domain": domain, "cluster": cluster, "kind": kind, "purpose": purpose}
    if explain:
        body: dict[str, Any] = {"task": task, "limit": limit, **filters}
        group.emit_json(_answer(cfg, "/v1/explain", body, no_daemon))
        return
    if focus is not None:  # relative to where the command runs, as a shell user means it
        focus = str(Path(focus).resolve())
    body = {
        "task": task,
        "budget": budget,
        "order": order,
        "paths": list(paths),
        "focus": focus,
        "strategy": strategy,
        "meaning": meaning,
        **filters,
    }
    document = _answer(cfg, "/v1/route", body, no_daemon)
    if as_json:
        group.emit_json(document)
    else:
        report = shown.clean(document["text"], lines=True)  # before the color's own escapes
        click.echo(shown.dim_evidence(report) if group.color_wanted() else report)


def _answer(cfg: Config, endpoint: str, body: dict[str, Any], no_daemon: bool) -> Any:
    """Return the daemon's answer, or the in-process one with --no-daemon or when no daemon
    can be had (a note on stderr says so)."""
    body = {k: v for k, v in body.items() if v is not None}
    target = client.target(cfg.root, cfg.file, os.environ)
    why = ""
    if not no_daemon:
        try:
            return launcher.ask(target, os.environ, endpoint, body, source="cli")
        except DaemonError as error:
            why = str(error).rstrip(".")
        except OSError as error:  # a runtime or state dir that cannot be used at all
            why = f"no daemon can be had: {error.strerror or error}: {error.filename}"
    app = service.standalone(cfg, target.places, os.environ)
    if why:
        if not _usable(target.places.state):
            app.log = None  # each route's line would fail and warn: the note says it
            why += "; the state directory cannot be used, so the route is not logged"
        click.echo(f"note: routed in process ({why})", err=True)
    if body.get("meaning", cfg.meaning_mode) != "off":
        app.engine.nearby = neighbours_of(app.engine)
    return service.document(app.answer("POST", endpoint, service.encode(body), "cli"))


def _usable(state: Path) -> bool:
    """Return whether the state dir is (or can be made) a private directory of the user's."""
    try:
        trust.private_dir(state)
    except (DaemonError, OSError):
        return False
    return True


def nearby_cache(env: Mapping[str, str]) -> Path:
    """Return where entry vectors are cached (the state dir's `meaning`)."""
    return locate.state_dir(env) / "meaning"


def neighbours_of(engine: Engine) -> nearby.Nearby:
    """Return the engine's neighbours by meaning, embedding what the cache lacks, with a
    progress bar on stderr when it is a terminal. Raises ModelUnavailableError."""
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = click.progressbar(length=total, label="embedding entries", file=sys.stderr)
            bar.__enter__()
        bar.update(done - bar.pos)
        if done >= total:
            bar.__exit__(None, None, None)

    shown = progress if sys.stderr.isatty() else None
    cfg = engine.config
    return nearby.build(
        engine.index.entries(),
        cfg.meaning_model,
        nearby_cache(os.environ),
        locate.key(cfg.root, cfg.file),
        shown,
    )


@group.main.command()
@group.catalog_option
@group.config_option
@group.json_option
def check(catalog_dir: Path | None, config_file: Path | None, as_json: bool) -> None:
    """Check the catalog: every diagnostic, entries by kind, and catalog files no root
    covers. Exit 1 on any error."""
    # outside any repository this is the error `kroute route` gives, not an empty catalog
    engine = Engine.load(group.resolve_config(catalog_dir, config_file, need_catalog=True))
    cat = engine.catalog
    kinds = dict(sorted(Counter(e.kind for e in cat.entries).items()))
    found = [*cat.diagnostics, *_strays(engine.config)]
    errors = sum(d.severity == diagnostic.ERROR for d in found)
    warnings = sum(d.severity == diagnostic.WARNING for d in found)
    if as_json:
        group.emit_json(
            {
                "entries": len(cat.entries),
                "kinds": kinds,
                "pages": cat.pages,
                "errors": errors,
                "warnings": warnings,
                "diagnostics": [d.as_dict() for d in found],
                "root": str(engine.config.root),
            }
        )
    else:
        for d in found:
            where = f"{shown.flat(d.path)}:{d.line}" if d.line is not None else shown.flat(d.path)
            group.say(f"{where}: {d.severity}: {shown.flat(d.problem)}")
        by_kind = ", ".join(f"{shown.flat(k)} {n}" for k, n in kinds.items()) or "none"
        pages = f"; {_count(cat.pages, 'page')} read into their skill" if cat.pages else ""
        click.echo(
            f"{_count(len(cat.entries), 'entry', 'entries')} ({by_kind}){pages}; "
            f"{_count(errors, 'error')}, {_count(warnings, 'warning')}"
        )
    if errors:
        sys.exit(1)


def _strays(cfg: Config) -> list[diagnostic.Diagnostic]:
    """Return a warning for each folder of catalog files that no root covers."""
    return [
        diagnostic.Diagnostic(
            home.folder,
            f"{home.says()} outside the catalog roots, so no route offers "
            f"{'it' if home.files == 1 else 'them'}; add {json.dumps(home.folder)} to "
            f"roots in {config.FILE_NAME}",
            diagnostic.WARNING,
        )
        for home in stray.homes(cfg)
    ]


@group.main.command()
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
    # Every usual home, whether it exists yet or not: a missing root costs nothing, and
    # rules or records added there later are routed without anyone editing this file.
    roots = config.DEFAULT_ROOTS
    line = "roots = [" + ", ".join(json.dumps(r) for r in roots) + "]"
    starter = "\n".join(line if s.startswith("roots = ") else s for s in starter.split("\n"))
    directory.mkdir(parents=True, exist_ok=True)
    target.write_text(starter, encoding="utf-8")
    found = config.present_roots(directory)
    here = f"found here: {', '.join(found)}" if found else "none of them exists here yet"
    click.echo(
        f"wrote {target}; its roots are every usual catalog home ({here}; a missing one "
        "costs nothing). Next: kroute check"
    )


def _route_options(command: Any) -> Any:
    """Return `command` with the route request's options (those of `kroute route` that shape
    the route: budget, filters, order, paths, focus, strategy) and --no-daemon."""
    options = [
        click.option("--budget", type=click.IntRange(min=1), help="Pointers to offer."),
        click.option("--domain", help="Only entries whose routing names this domain."),
        click.option("--cluster", help="Only entries whose routing names this cluster."),
        click.option("--kind", help="Only entries of this kind."),
        click.option("--purpose", help="Only entries whose kind serves this purpose."),
        click.option("--order", type=click.Choice(["diverse", "turns", "score"])),
        click.option("--path", "paths", multiple=True, help="A file the task is about."),
        click.option("--focus", help="The file about to be touched."),
        click.option(
            "--strategy",
            type=click.Choice(
                ["auto", "lookup", "lexical", "verification", "multi-hop", "global", "deep-reason"]
            ),
        ),
        click.option("--no-daemon", is_flag=True, help="Answer in this process."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@group.main.command(name="why-not")
@click.argument("entry")
@click.argument("task")
@group.catalog_option
@group.config_option
@group.json_option
@_route_options
def why_not(
    entry: str,
    task: str,
    catalog_dir: Path | None,
    config_file: Path | None,
    as_json: bool,
    paths: tuple[str, ...],
    focus: str | None,
    no_daemon: bool,
    **members: str | int | None,
) -> None:
    """Say why ENTRY (an id or a path) was or was not offered for TASK (`-`: stdin): the
    task terms it holds and lacks, its place in the score order, and what withheld it."""
    if task == "-":
        task = sys.stdin.read()
    cfg = group.resolve_config(catalog_dir, config_file)
    if focus is not None:  # relative to where the command runs, as `kroute route` reads it
        focus = str(Path(focus).resolve())
    body = {"entry": entry, "task": task, "paths": list(paths), "focus": focus, **members}
    document = _answer(cfg, "/v1/why-not", body, no_daemon)
    group.emit_json(document) if as_json else group.say(document["text"])


# -- intent and relevance ----------------------------------------------------------------------


@group.main.command(name="intent")
@click.argument("text")
@group.config_option
@group.json_option
def intent_command(text: str, config_file: Path | None, as_json: bool) -> None:
    """Classify TEXT (or `-` for stdin): strategy, budget, depth, confidence."""
    if text == "-":
        text = sys.stdin.read()
    cfg = group.resolve_config(None, config_file)
    classified = intent.classify(text, strategy_defaults(cfg))
    if as_json:
        group.emit_json(intent.as_dict(classified))
    else:
        click.echo(intent.taper(classified))


@group.main.command(name="relevance")
@click.argument("request_file")
@click.option("--threshold", type=float, help="Keep chunks at or above this (default 0.3).")
@group.json_option
def relevance_command(request_file: str, threshold: float | None, as_json: bool) -> None:
    """Score chunks against a focus file (adjacency pollution). REQUEST_FILE (or
    `-`) holds {focus: {path, content?}, chunks: [{source, doc_id, text}], threshold?}."""
    raw = sys.stdin.read() if request_file == "-" else Path(request_file).read_text("utf-8")
    try:
        body = json.loads(raw)
    except ValueError as error:
        raise KrouteError(f"the request is not valid JSON: {error}", "Fix the request") from None
    if threshold is not None and isinstance(body, dict):
        body["threshold"] = threshold
    ask = intake.relevance(body)
    answer = relevance.answer(ask.focus, ask.chunks, ask.threshold)
    if as_json:
        group.emit_json(answer)
        return
    for verdict in ("kept", "dropped"):
        for chunk in answer[verdict]:  # type: ignore[attr-defined]
            reasons = ", ".join(chunk["reasons"]) or "no signal"
            label = chunk.get("doc_id") or chunk.get("source") or "chunk"
            click.echo(f"{verdict:<8}{chunk['relevance']:>8.2f}  {label}  ({reasons})")
