"""The `kroute` command line. This package is the only place that imports click.

Every error the router raises on purpose reaches one handler (`group._Group.invoke`), which
prints `Error: <what happened>. <what to do>` and exits 1; usage errors exit 2. A command's
module is imported only when that command runs (`group.COMMANDS`), so `kroute --help` and a
typo answer in a few tens of milliseconds.
"""

from router.cli.group import main, resolve_config

__all__ = ["main", "resolve_config"]
