"""The `kroute` command line. This package is the only place that imports click.

Every error the router raises on purpose reaches one handler (`group._Group.invoke`), which
prints `Error: <what happened>. <what to do>` and exits 1; usage errors exit 2. A command's
module is imported only when that command runs (`group.COMMANDS`), and `kroute --help`
imports no click at all (`overview`), so help and a typo answer in a few tens of
milliseconds; nor do `kroute route TASK`, `status` and `stop` when a daemon runs
(`shortcut`), which answer in little more than the interpreter's start.
"""

import os
import sys


def main(args: list[str] | None = None) -> None:
    """Run the `kroute` command line on `args` (default: the process's arguments). Exits
    as click does: 0 when done, 1 for an error of the input, 2 for a usage error."""
    from router.cli import overview

    given = sys.argv[1:] if args is None else args
    if overview.shown(given, os.path.basename(sys.argv[0]), os.environ):
        return
    from router.cli import shortcut

    code = shortcut.answered(given, os.environ)
    if code is not None:
        sys.exit(code)
    from router.cli.group import main as group

    group(args)
