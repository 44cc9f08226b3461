"""`kroute mcp [install | uninstall]`: serve the catalog's routes to an agent as MCP tools
over stdio, and add or take out the `.mcp.json` entry that starts the server.

The SDK is an optional extra and is imported only when the server starts
(`toolserver.build`), so `kroute --help` and every other command never load it.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from router.cli.group import catalog_option, config_option, main, resolve_config
from router.integrations import toolfile
from router.integrations.install import Plan


@main.group(name="mcp", invoke_without_command=True)
@catalog_option
@config_option
@click.pass_context
def mcp_group(ctx: click.Context, catalog_dir: Path | None, config_file: Path | None) -> None:
    """Serve read-only MCP tools over stdio: route, explain, governing, catalog, why_not.

    Routes go through the repository's daemon (started on demand) and land in the shadow
    log with source `mcp`. Needs the extra: pip install 'knowledge-router[mcp]'."""
    if ctx.invoked_subcommand is not None:
        return
    from router.integrations import toolserver

    cfg = resolve_config(catalog_dir, config_file)
    toolserver.serve(toolserver.Tools(cfg, os.environ))


@mcp_group.command(name="install")
@catalog_option
@config_option
@click.option("--dry-run", is_flag=True, help="Print the change; write nothing.")
def mcp_install(catalog_dir: Path | None, config_file: Path | None, dry_run: bool) -> None:
    """Add kroute to the repository's .mcp.json (merging; running it twice changes nothing)."""
    _carry_out(toolfile.plan_install(resolve_config(catalog_dir, config_file).root), dry_run)


@mcp_group.command(name="uninstall")
@catalog_option
@config_option
@click.option("--dry-run", is_flag=True, help="Print the change; write nothing.")
def mcp_uninstall(catalog_dir: Path | None, config_file: Path | None, dry_run: bool) -> None:
    """Take kroute out of the repository's .mcp.json (other servers untouched; the file goes
    when nothing else is left in it)."""
    _carry_out(toolfile.plan_uninstall(resolve_config(catalog_dir, config_file).root), dry_run)


def _carry_out(plan: Plan, dry_run: bool) -> None:
    if not plan.changes:
        click.echo(f"{plan.path} already up to date")
        return
    click.echo(plan.diff(), nl=False)
    if dry_run:
        click.echo("(dry run: nothing written)")
        return
    plan.apply()
    click.echo(f"{'removed' if plan.after is None else 'wrote'} {plan.path}")
