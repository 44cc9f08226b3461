"""`kroute --help` without importing click: the group's help as click renders it, kept in
`router/data/help.txt`.

Importing click costs more than an interpreter's start (`bench.py --imports`); the overview
is the one thing a user asks for that needs nothing else. Click renders help at the terminal's
width up to 80 columns, so from 80 columns on (and when stdout is not a terminal) its text is
always the same: that text is stored, and a test checks it against click's rendering
(`pytest --update-golden` rewrites it). Narrower terminals, other programs' names and every
other command line go to click. Standard library only, and only `os` and `sys`.
"""

import os
import sys

HELP_FILE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "help.txt")
WIDE = 80  # click's default max_content_width: from here on the help no longer changes
ASKS = (["--help"], ["-h"])
PROGRAM = "kroute"


def columns(environ: "os._Environ[str] | dict[str, str]") -> int:
    """Return the terminal's width as click reads it (shutil.get_terminal_size: $COLUMNS,
    else the width of stdout's terminal, else 80)."""
    try:
        wanted = int(environ.get("COLUMNS", "0"))
    except ValueError:
        wanted = 0
    if wanted > 0:
        return wanted
    try:
        width = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        width = 0
    return width or WIDE


def shown(args: list[str], program: str, environ: "os._Environ[str] | dict[str, str]") -> bool:
    """Print the stored overview and return True when `args` ask for it and click would
    print exactly it; return False (printing nothing) otherwise, also when the file cannot
    be read: click then answers."""
    if args not in ASKS or program != PROGRAM or columns(environ) < WIDE:
        return False
    try:
        with open(HELP_FILE, encoding="utf-8") as handle:
            text = handle.read()
    except OSError:
        return False
    sys.stdout.write(text)
    sys.stdout.flush()
    return True
