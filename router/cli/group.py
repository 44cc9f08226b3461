"""The `kroute` group, its shared options and its one error handler; the command modules
add their commands to it.

Every error the router raises on purpose reaches one handler (`_Group.invoke`), which prints
`Error: <what happened>. <what to do>` and exits 1; usage errors exit 2.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from router import __version__
from router.base.errors import KrouteError

if TYPE_CHECKING:
    from router.catalog.config import Config

# What `kroute --help` loads is click and this module: orjson, the config reader (tomllib,
# the taxonomy), hashlib and traceback are imported by the functions that use them, which
# saves every `--help` and typo their import time (`bench.py --imports`).


@dataclass(frozen=True, slots=True)
class Command:
    """Where a command is defined, and its one-line help for `kroute --help`."""

    module: str
    help: str
    hidden: bool = False


# Each command by name: `kroute --help` lists them from here and imports only the module of
# the command that runs (the command modules import the engine, the slowest import of all:
# `bench.py --imports`). A test checks
# this table against the commands themselves.
_CATALOG = "router.cli.catalog_commands"
_DAEMON = "router.cli.daemon_commands"
COMMANDS: dict[str, Command] = {
    "check": Command(
        _CATALOG,
        "Check the catalog: every diagnostic, entries by kind, and catalog files no root covers.",
    ),
    "doctor": Command(
        "router.cli.doctor_commands",
        "Check everything a hook needs here: kroute.toml, kroute and kroute-hook on PATH, the "
        "installed hooks (runnable, of this version, trusted), the daemon, and catalog folders "
        "outside the roots.",
    ),
    "eval": Command(
        "router.cli.eval_commands",
        "Run the annex router's fixture cases in DIRECTORY (exit 1 when one fails), or score "
        "a judged set (--judged), a suite of them (--suite) or a labelled intent set (--intent).",
    ),
    "init": Command(_CATALOG, "Write a starter kroute.toml (never over an existing one)."),
    "install": Command(
        _DAEMON,
        "Wire kroute's hooks into Claude Code, Codex CLI, Gemini CLI or git (idempotent; "
        "merges, never clobbers).",
    ),
    "intent": Command(
        _CATALOG, "Classify TEXT (or `-` for stdin): strategy, budget, depth, confidence."
    ),
    "mcp": Command(
        "router.cli.mcp_commands",
        "Serve read-only MCP tools over stdio: route, explain, governing, catalog, why_not.",
    ),
    "precommit": Command(
        _DAEMON,
        "Run by the git pre-commit hook: pointers for staged governed paths (advisory, on "
        "stderr), and a check of staged catalog files (exit 1 on errors).",
        hidden=True,
    ),
    "relevance": Command(_CATALOG, "Score chunks against a focus file (adjacency pollution)."),
    "restart": Command(_DAEMON, "Stop this repository's daemon and start a fresh one."),
    "route": Command(
        _CATALOG, "Route TASK (or `-` to read it from stdin) to the documents worth reading."
    ),
    "serve": Command(_DAEMON, "Run the daemon in the foreground (logs on stderr)."),
    "shadow": Command(
        "router.cli.shadow_commands",
        "Review the shadow log: every route emitted, and whether it was injected.",
    ),
    "start": Command(_DAEMON, "Start the daemon for this repository in the background."),
    "status": Command(_DAEMON, "Say whether this repository's daemon runs, and what it serves."),
    "stop": Command(_DAEMON, "Stop this repository's daemon."),
    "uninstall": Command(
        _DAEMON, "Take out exactly what `kroute install` put in (other hooks untouched)."
    ),
    "why-not": Command(
        _CATALOG,
        "Say why ENTRY (an id or a path) was or was not offered for TASK (`-`: stdin): the "
        "task terms it holds and lacks, its place in the score order, and what withheld it.",
    ),
}

INTERRUPTED = 130  # the shell's code for a command stopped by Ctrl-C
UNEXPECTED = 3  # a failure of ours, not of the input: the traceback is in a log file
CLOSED_PIPE = 141  # the shell's code for a command whose reader went away (128 + SIGPIPE)
CRASH_LOG = "crash.log"


class _Group(click.Group):
    """The one error handler around every command: a known error is one sentence and exit
    1, a usage error exit 2 (click's), Ctrl-C exit 130, anything else exit 3 with its
    traceback written to a log file that the one line on stderr names. Commands are
    imported when they are asked for (`COMMANDS`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        known = COMMANDS.get(cmd_name)
        if cmd_name not in self.commands and known is not None:
            importlib.import_module(known.module)  # its decorators add it to this group
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        shown = [(name, c) for name, c in sorted(COMMANDS.items()) if not c.hidden]
        if not shown:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in shown)
        rows = [(name, _clipped(c.help, limit)) for name, c in shown]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KrouteError as error:
            from router.core import shown  # a message may quote catalog text: one line, clean

            raise click.ClickException(shown.flat(str(error))) from None
        except (click.exceptions.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            ctx.exit(INTERRUPTED)
        except BrokenPipeError:  # `kroute ... | head`: the reader has all it wanted
            _silence_stdout()
            ctx.exit(CLOSED_PIPE)
        except Exception as error:
            where = _log_crash()
            told = f"the traceback is in {where}" if where else "no log could be written"
            click.echo(
                f"Error: kroute failed unexpectedly ({type(error).__name__}: {error}). "
                f"Please report it; {told}.",
                err=True,
            )
            ctx.exit(UNEXPECTED)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush at exit does not
    fail on the closed pipe again and print a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no stdout to speak of: nothing will be flushed to it
        pass


def _clipped(text: str, limit: int) -> str:
    """Return `text` cut at a word to fit `limit` characters, with "..." when cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 3)].rsplit(" ", 1)[0].rstrip(",;:") + "..."


def first_sentence(text: str) -> str:
    """Return the first sentence of a command's help, on one line (what `COMMANDS` holds)."""
    flat = " ".join(text.split("\n\n")[0].split())
    end = flat.find(". ")
    return flat if end < 0 else flat[: end + 1]


def _log_crash() -> Path | None:
    """Append the current exception's traceback to the crash log; return its path, or None
    when it cannot be written."""
    import datetime
    import traceback

    from router.client import locate, trust

    state = locate.state_dir(os.environ)
    log = state / "logs" / CRASH_LOG
    try:
        trust.prepare(log.parent, state=state)  # the daemon's logs share it: 0700, checked
        stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        fd = trust.open_private(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        with open(fd, "a", encoding="utf-8") as handle:
            handle.write(f"--- {stamp} kroute {__version__} {' '.join(sys.argv[1:])}\n")
            handle.write(traceback.format_exc())
    except (OSError, KrouteError):
        return None
    return log


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


def resolve_config(
    catalog_dir: Path | None, config_file: Path | None, *, need_catalog: bool = False
) -> Config:
    """Return the configuration the options and the environment name (DESIGN 4.1).

    Raises ConfigError (a KrouteError) for a missing or invalid file, and, with
    `need_catalog`, when nothing names a catalog: no option, no kroute.toml here or above,
    and none of the default roots here (a route over whatever lies below the current
    directory would index a home folder and answer nothing useful)."""
    from dataclasses import replace

    from router.base.errors import ConfigError
    from router.catalog import config
    from router.client import locate

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
    here = Path.cwd().resolve()
    nearest = locate.find_config(here)
    found = None if nearest is None else Path(nearest)
    if found is None and need_catalog and not config.present_roots(here):
        raise ConfigError(
            f"No {config.FILE_NAME} in {here} or any directory above it, and none of "
            f"{', '.join(config.DEFAULT_ROOTS)} under {here}",
            f"Run `kroute init` in the repository root to create {config.FILE_NAME}, run "
            "kroute from inside the repository, or name a catalog with --catalog DIR",
        )
    if found is not None:
        return config.load(found)
    # No config: the catalog is the default roots found here (docs/, .claude/skills/...),
    # not everything below the current directory, which may be a home folder.
    present = config.present_roots(here)
    return replace(config.bare(here), roots=present) if present else config.bare(here)


def emit_json(document: object) -> None:
    """Print a document as sorted, indented JSON, every string in it cleaned of what a
    terminal or an agent must not be shown (`shown.scrubbed`)."""
    import orjson

    from router.core import shown

    options = orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2
    click.echo(orjson.dumps(shown.scrubbed(document), option=options).decode("utf-8"))


def say(lines: str, *, err: bool = False) -> None:
    """Print text that holds catalog or log text, cleaned of what a terminal or an agent
    must not be shown (`shown.clean`, lines kept): its fields are made `flat` by whoever
    builds it, so that no field starts a line of its own."""
    from router.core import shown

    click.echo(shown.clean(lines, lines=True), err=err)


def color_wanted() -> bool:
    """Return whether to color: only on a terminal, and never with NO_COLOR set."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


# The commands live in submodules by concern; importing one registers its commands on `main`.
