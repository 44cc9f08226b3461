"""The `kroute` command line. This package is the only place that imports click.

Every error the router raises on purpose reaches one handler (`group._Group.invoke`), which
prints `Error: <what happened>. <what to do>` and exits 1; usage errors exit 2.
"""

from router.cli import catalog_commands, daemon_commands, mcp_commands, shadow_commands
from router.cli.group import main, resolve_config

__all__ = [
    "catalog_commands",
    "daemon_commands",
    "main",
    "mcp_commands",
    "resolve_config",
    "shadow_commands",
]
