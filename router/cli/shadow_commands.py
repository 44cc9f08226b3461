"""`kroute shadow path | tail | stats | diff | documents | misses | replay | report`: the
shadow log."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from router.base.errors import KrouteError
from router.cli import group
from router.client import locate, trust
from router.core import shown
from router.logbook import follow, logfile, opened, page, review, shadow
from router.runtime.engine import Engine
from router.serve import service

# -- the shadow log ----------------------------------------------------------------------------


@group.main.group(name="shadow")
def shadow_group() -> None:
    """Review the shadow log: every route emitted, and whether it was injected."""


def _log_dir(catalog_dir: Path | None, config_file: Path | None) -> Path:
    cfg = group.resolve_config(catalog_dir, config_file)
    state = locate.state_dir(os.environ)
    directory = shadow.log_dir(state, locate.key(cfg.root, cfg.file))
    if directory.exists():  # a log another user could have written is not read
        trust.prepare(directory, state=state)
    return directory


def _records(catalog_dir: Path | None, config_file: Path | None, since: str | None) -> list[Any]:
    directory = _log_dir(catalog_dir, config_file)
    if not directory.is_dir():
        raise KrouteError(
            f"no shadow log yet at {directory}", "Route something first (hooks, socket or CLI)"
        )
    reading = shadow.read(directory, since)
    records = list(reading)
    if reading.skipped:
        click.echo(f"note: {len(reading.skipped)} unreadable line(s) skipped", err=True)
    return records


def _opens(catalog_dir: Path | None, config_file: Path | None, since: str | None) -> list[Any]:
    """Return the logged reads of catalog documents (none when no read was logged)."""
    reading = opened.read(_log_dir(catalog_dir, config_file), since)
    reads = list(reading)
    if reading.skipped:
        click.echo(f"note: {len(reading.skipped)} unreadable read line(s) skipped", err=True)
    return reads


since_option = click.option("--since", help="Only records at or after this date (YYYY-MM-DD).")


@shadow_group.command(name="path")
@group.catalog_option
@group.config_option
def shadow_path(catalog_dir: Path | None, config_file: Path | None) -> None:
    """Print the directory of this repository's shadow log."""
    click.echo(str(_log_dir(catalog_dir, config_file)))


@shadow_group.command(name="tail")
@click.option("-n", "count", type=click.IntRange(min=1), default=10, show_default=True)
@group.catalog_option
@group.config_option
@group.json_option
def shadow_tail(
    count: int, catalog_dir: Path | None, config_file: Path | None, as_json: bool
) -> None:
    """Print the last records."""
    records = shadow.tail(_records(catalog_dir, config_file, None), count)
    if as_json:
        group.emit_json(records)
        return
    for r in records:
        pointers = ", ".join(p["id"] for p in r.get("pointers") or []) or r.get("skip") or "silent"
        task = shown.flat(str(r.get("task", "")))[:60]
        group.say(
            f"{shown.flat(str(r['at']))}  {shown.flat(str(r['source'])):<26} {task!r} -> "
            f"{shown.flat(str(pointers))}"
        )


@shadow_group.command(name="stats")
@since_option
@group.catalog_option
@group.config_option
@group.json_option
def shadow_stats(
    since: str | None, catalog_dir: Path | None, config_file: Path | None, as_json: bool
) -> None:
    """Routes, silence and injection rates, pointers per route, latency, and how many
    offered pointers agents followed, by engine version and by catalog version."""
    records = _records(catalog_dir, config_file, since)
    stats = review.stats(records)
    stats["followed"] = follow.summary(records, _opens(catalog_dir, config_file, since))
    full = {
        day: count
        for day, count in logfile.dropped(_log_dir(catalog_dir, config_file)).items()
        if since is None or day >= since[:10]
    }
    stats["dropped"] = full
    if as_json:
        group.emit_json(stats)
        return
    group.say(review.stats_text(stats))
    group.say("")
    group.say(follow.summary_text(stats["followed"]))
    cap = logfile.MAX_DAY_BYTES // (1024 * 1024)
    for day, count in full.items():
        click.echo(f"dropped {count} line(s) on {day}: that day's log reached its {cap} MiB cap")


@shadow_group.command(name="diff")
@click.option(
    "--from",
    "from_version",
    help="Engine version (or fingerprint) before (default: the one routed before the last).",
)
@click.option(
    "--to", "to_version", help="Engine version (or fingerprint) after (default: the last routed)."
)
@click.option(
    "--by",
    type=click.Choice(sorted(review.AXES)),
    help="Compare across engine versions or catalog fingerprints (default: what --from names; "
    "without --from, the one that changed last).",
)
@since_option
@group.catalog_option
@group.config_option
@group.json_option
def shadow_diff(
    from_version: str,
    to_version: str,
    by: str | None,
    since: str | None,
    catalog_dir: Path | None,
    config_file: Path | None,
    as_json: bool,
) -> None:
    """Pointers that moved, appeared or vanished between two engine versions or two catalog
    fingerprints; without --from and --to, between the last two, the others listed."""
    if (from_version is None) != (to_version is None):
        raise click.UsageError("give both --from and --to, or neither (the last two versions)")
    records = _records(catalog_dir, config_file, since)
    listed: dict[str, list[dict[str, Any]]] = {}
    if from_version is None or to_version is None:
        axis, from_version, to_version = review.latest_pair(records, by)
        listed = {name: review.versions(records, name) for name in review.AXES}
    else:
        axis = by or review.axis_of(records, from_version)
    result = review.diff(records, from_version, to_version, axis)
    if as_json:
        group.emit_json({**result, "versions": listed} if listed else result)
        return
    group.say(review.diff_text(result))
    for name, values in listed.items():
        group.say(f"\n{review.AXES[name][2].lower()} with routes, the last routed last:")
        for value in values:
            group.say(
                f"  {shown.flat(value['value'])}  {value['routes']} routes, "
                f"{shown.flat(str(value['first']))} to {shown.flat(str(value['last']))}"
            )


@shadow_group.command(name="documents")
@since_option
@group.catalog_option
@group.config_option
@group.json_option
def shadow_documents(
    since: str | None, catalog_dir: Path | None, config_file: Path | None, as_json: bool
) -> None:
    """Which documents the logged routes offered most, and which catalog entries never."""
    records = _records(catalog_dir, config_file, since)
    engine = Engine.load(group.resolve_config(catalog_dir, config_file))
    view = review.documents(records, engine.listing()["entries"])
    group.emit_json(view) if as_json else group.say(review.documents_text(view))


@shadow_group.command(name="misses")
@since_option
@group.catalog_option
@group.config_option
@group.json_option
def shadow_misses(
    since: str | None, catalog_dir: Path | None, config_file: Path | None, as_json: bool
) -> None:
    """Documents agents read without a pointer to them (with the prompts before: candidates
    for their routing fields), and pointers agents never followed."""
    records = _records(catalog_dir, config_file, since)
    view = follow.misses(records, _opens(catalog_dir, config_file, since))
    group.emit_json(view) if as_json else group.say(follow.misses_text(view))


@shadow_group.command(name="replay")
@since_option
@group.catalog_option
@group.config_option
@group.json_option
def shadow_replay(
    since: str | None, catalog_dir: Path | None, config_file: Path | None, as_json: bool
) -> None:
    """Re-route logged tasks with the current engine and catalog; list what would change."""
    records = _records(catalog_dir, config_file, since)
    engine = Engine.load(group.resolve_config(catalog_dir, config_file))
    app = service.App(engine)  # a replay is not a route emitted: nothing is logged

    def route_again(task: str, request: dict[str, Any]) -> Any:
        body = service.encode(shadow.body(task, request))
        return service.document(app.answer("POST", "/v1/route", body, "replay"))

    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:  # the total is known only once replay has deduplicated the tasks
            bar = click.progressbar(length=total, label="replaying", file=sys.stderr)
            bar.__enter__()
        bar.update(1)

    show = sys.stderr.isatty() and not as_json
    try:
        report = review.replay(records, route_again, progress if show else None)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    if report["redacted"]:
        click.echo(
            f"note: {report['redacted']} redacted route(s) skipped: their task is a digest",
            err=True,
        )
    group.emit_json(report) if as_json else group.say(review.replay_text(report))


@shadow_group.command(name="report")
@click.option("--html", "html_file", type=click.Path(dir_okay=False, path_type=Path), required=True)
@since_option
@group.catalog_option
@group.config_option
def shadow_report(
    html_file: Path, since: str | None, catalog_dir: Path | None, config_file: Path | None
) -> None:
    """Write one self-contained HTML page: stats and comparisons by engine and catalog
    version, pointers followed, documents, silent prompts, plots."""
    cfg = group.resolve_config(catalog_dir, config_file)
    html = page.report(
        _records(catalog_dir, config_file, since),
        _opens(catalog_dir, config_file, since),
        f"kroute shadow log: {cfg.root.name}",
    )
    # it holds the logged prompts: private like the log
    fd = trust.open_private(html_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(html)
    click.echo(f"wrote {html_file}")
