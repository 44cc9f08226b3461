"""`kroute serve | start | stop | restart | status | install | uninstall | precommit`: the
daemon, the hooks."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from router import __version__, client
from router.base.errors import DaemonError, KrouteError
from router.cli import group, shortcut
from router.harnesses import registry
from router.harnesses.settings import Settings
from router.integrations import checkup, gitstage
from router.integrations import install as install_module
from router.serve import foreground, launcher, service

# -- the daemon --------------------------------------------------------------------------------


@group.main.command()
@group.catalog_option
@group.config_option
def serve(catalog_dir: Path | None, config_file: Path | None) -> None:
    """Run the daemon in the foreground (logs on stderr)."""
    code = foreground.serve(group.resolve_config(catalog_dir, config_file), os.environ)
    # Its files are removed and its log written: the interpreter's teardown of a whole
    # catalog's objects would only keep `kroute stop`, which waits for the exit, waiting.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _daemon_command(command: Callable[..., None]) -> Callable[..., None]:
    """Return `command` with the --catalog and --config options, called with the daemon they
    name (a `client.Target`) first in their place."""

    @group.catalog_option
    @group.config_option
    @functools.wraps(command)  # keeps the options `command` already has, in their order
    def run(catalog_dir: Path | None, config_file: Path | None, **options: Any) -> None:
        cfg = group.resolve_config(catalog_dir, config_file)
        command(client.target(cfg.root, cfg.file, os.environ), **options)

    return run


@group.main.command()
@_daemon_command
def start(target: client.Target) -> None:
    """Start the daemon for this repository in the background."""
    current, sentence = client.state(target)
    if current == "running":
        click.echo(f"already running: {sentence}")
        return
    if launcher.ensure(target, os.environ):
        click.echo(f"started: {client.state(target)[1]}")
        return
    current, sentence = client.state(target)
    if current == "running":
        click.echo(f"already running: {sentence}")
    else:  # another start spawned it, and it is still loading
        click.echo(f"already starting: another start spawned the daemon for {target.root}")


@group.main.command()
@_daemon_command
def stop(target: client.Target) -> None:
    """Stop this repository's daemon."""
    _, sentence = client.state(target)
    if launcher.stop(target):
        click.echo("stopped")
    else:
        click.echo(f"not running: {sentence}")


@group.main.command()
@_daemon_command
def restart(target: client.Target) -> None:
    """Stop this repository's daemon and start a fresh one."""
    launcher.stop(target)
    launcher.start(target, os.environ)
    click.echo(f"restarted: {client.state(target)[1]}")


@group.main.command()
@_daemon_command
@group.json_option
def status(target: client.Target, as_json: bool) -> None:
    """Say whether this repository's daemon runs, and what it serves. Exit 1 when it does not
    run."""
    current, sentence = client.state(target)
    report: dict[str, Any] = {"state": current, "says": sentence}
    if current == "running":
        reply = client.call(target, "GET", "/v1/status", timeout=2.0)
        report.update(reply.json())
    # a running daemon proves it can be started; the hooks still have to find kroute-hook
    hooks = _hook_checks(target.root, target if current != "running" else None)
    report["hooks"] = [
        {"harness": h.harness, "scope": h.scope, "settings": str(h.settings), "problems": found}
        for h, found in hooks
    ]
    if as_json:
        group.emit_json(report)
    elif current == "running":
        click.echo(shortcut.said_running(report))
    else:
        click.echo(f"{current}: {sentence}")
    if not as_json:
        _say_hooks(hooks, err=False)
    if current != "running":
        sys.exit(1)


# -- hooks -------------------------------------------------------------------------------------


@group.main.group()
def install() -> None:
    """Wire kroute's hooks into Claude Code, Codex CLI, Gemini CLI or git (idempotent;
    merges, never clobbers)."""


@group.main.group()
def uninstall() -> None:
    """Take out exactly what `kroute install` put in (other hooks untouched)."""


def _scope_options(harness: Settings) -> Callable[[Callable[..., None]], Any]:
    """Return the decorator adding the --project/--local/--user options of a harness."""
    where = f"{harness.directory}/"
    options = [
        click.option(
            "--project",
            "scope",
            flag_value="project",
            default=True,
            help=f"{where}{harness.project_file}, shared through the repository (default)",
        ),
        click.option("--user", "scope", flag_value="user", help=f"~/{where}{harness.user_file}"),
    ]
    if harness.local_file is not None:
        options.append(
            click.option(
                "--local", "scope", flag_value="local", help=f"{where}{harness.local_file}"
            )
        )

    def decorate(function: Callable[..., None]) -> Any:
        for option in options:
            function = option(function)
        return function

    return decorate


def _home() -> Path:
    return Path(os.environ.get("HOME", str(Path.home())))


def _root(scope: str) -> tuple[Path, Path | None]:
    """Return the repository root (the working directory for a user install) and, for a
    local install, its daemon's socket."""
    if scope == "user":
        return Path.cwd(), None
    cfg = group.resolve_config(None, None)
    if cfg.file is None:  # hooks find a repository by its kroute.toml
        click.echo(
            f"note: no kroute.toml at or above {cfg.root}: the hooks stay silent until "
            "there is one (kroute init writes a starter)",
            err=True,
        )
        return cfg.root, None
    socket = client.target(cfg.root, cfg.file, os.environ).places.socket
    return cfg.root, socket if scope == "local" else None


def _add_harness(harness: Settings) -> None:
    """Add `kroute install <harness>` and `kroute uninstall <harness>`."""
    events = ", ".join(event for event, _, _ in harness.events)

    @install.command(name=harness.name, help=f"Add the {events} hooks of {harness.name}.")
    @_scope_options(harness)
    @click.option("--shadow", is_flag=True, help="Log what would be injected; inject nothing.")
    @click.option("--dry-run", is_flag=True, help="Print the change; write nothing.")
    def add(scope: str, shadow: bool, dry_run: bool) -> None:
        root, socket = _root(scope)
        machine = install_module.Machine(
            Path(sys.executable).with_name("kroute-hook"), __version__, socket
        )
        plans = install_module.plan_install(harness, scope, root, _home(), machine, shadow)
        _carry_out(plans, dry_run)
        if dry_run:
            return
        cfg = group.resolve_config(None, None) if scope != "user" else None
        target = client.target(cfg.root, cfg.file, os.environ) if cfg and cfg.file else None
        _say_hooks(_hook_checks(root, target, (harness.name, scope)), err=True)
        if scope == "project":
            click.echo(
                f"the hooks name no path of this machine: they run the shims copied under "
                f"{harness.directory}/{install_module.SHIM_DIR}/ (commit them with the settings) "
                f"and find {install_module.HOOK_BIN_ON_PATH} on PATH and the daemon's socket "
                "themselves; "
                "every teammate needs kroute on PATH (pipx install / uv tool install)"
            )
        if harness.trust:  # without it the harness skips kroute without a word
            click.echo(f"next: {harness.trust}")

    @uninstall.command(name=harness.name, help=f"Remove kroute's {harness.name} hooks.")
    @_scope_options(harness)
    @click.option("--dry-run", is_flag=True, help="Print the change; write nothing.")
    def remove(scope: str, dry_run: bool) -> None:
        root = Path.cwd() if scope == "user" else group.resolve_config(None, None).root
        _carry_out(install_module.plan_uninstall(harness, scope, root, _home()), dry_run)


for _harness in registry.AGENTS.values():
    _add_harness(_harness)


@install.command(name="git")
@click.option("--dry-run", is_flag=True, help="Print the change; write nothing.")
def install_git(dry_run: bool) -> None:
    """Add the pre-commit hook (a pre-commit hook already there keeps running first)."""
    plan = install_module.plan_git(Path.cwd(), Path(sys.executable).with_name("kroute"))
    _carry_out([plan], dry_run)


@uninstall.command(name="git")
@click.option("--dry-run", is_flag=True, help="Print the change; write nothing.")
def uninstall_git(dry_run: bool) -> None:
    """Remove kroute's pre-commit hook (the one it kept as pre-commit.local comes back)."""
    _carry_out([install_module.plan_git_uninstall(Path.cwd())], dry_run)


def _hook_checks(
    root: Path, target: client.Target | None, only: tuple[str, str] | None = None
) -> list[tuple[checkup.Installed, list[str]]]:
    """Return the hooks installed for the repository at `root` (only the harness and scope
    `only` names, when given), each with what keeps it from running; `target` is the daemon
    to check can be started (None: not checked)."""
    out = []
    for found in checkup.installed(root, _home()):
        if only is None or (found.harness, found.scope) == only:
            out.append((found, [str(f) for f in checkup.check(found, target, os.environ)]))
    return out


def _say_hooks(hooks: list[tuple[checkup.Installed, list[str]]], *, err: bool) -> None:
    """Print, for each installed harness, that its hooks can run or what keeps them from it."""
    for found, problems in hooks:
        where = f"{found.harness} hooks ({found.scope}, {found.settings})"
        if not problems:
            click.echo(f"{where}: can run ({found.hook_bin}, shims executable)", err=err)
        for problem in problems:
            click.echo(f"warning: {where}: {problem}", err=err)


def _carry_out(plans: list[install_module.Plan], dry_run: bool) -> None:
    changed = [plan for plan in plans if plan.changes]
    if not changed:
        click.echo(f"{plans[0].path} already up to date")
        return
    for plan in changed:
        click.echo(plan.diff(), nl=False)
    if dry_run:
        click.echo("(dry run: nothing written)")
        return
    for plan in changed:
        plan.apply()
        click.echo(f"{'removed' if plan.after is None else 'wrote'} {plan.path}")


@group.main.command(hidden=True)
def precommit() -> None:
    """Run by the git pre-commit hook: pointers for staged governed paths (advisory, on
    stderr), and a check of staged catalog files (exit 1 on errors)."""
    cfg = group.resolve_config(None, None)
    staged = gitstage.staged(cfg.root)
    if not staged:
        return
    payload = json.dumps({"task": "", "paths": staged}).encode("utf-8")
    text = ""
    target = client.target(cfg.root, cfg.file, os.environ)
    if client.state(target)[0] == "running":
        try:
            reply = client.call(target, "POST", "/v1/hook/git/pre-commit", payload, timeout=2.0)
            text = reply.body.decode("utf-8") if reply.status == 200 else ""
        except DaemonError:
            text = ""
    else:
        # no daemon: its snapshot, when one serves, spares a commit reading the whole catalog
        answer = service.standalone(cfg, target.places, os.environ).answer(
            "POST", "/v1/hook/git/pre-commit", payload, "git/pre-commit"
        )
        text = answer.document if answer.status == 200 else ""
    if text:
        click.echo("kroute: documents governing staged files:\n" + text.rstrip("\n"), err=True)
    problems = gitstage.check(cfg, staged)
    for d in problems:
        where = f"{d.path}:{d.line}" if d.line is not None else d.path
        click.echo(f"kroute: {where}: error: {d.problem}", err=True)
    if problems:
        raise KrouteError(
            "the commit is blocked by errors in staged catalog files",
            "Fix them, or commit with KROUTE_SKIP=1 to bypass",
        )
