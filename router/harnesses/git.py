"""git's pre-commit hook: the staged paths (and the commit's task, when there is one) routed,
the answer printed as plain text. Installed as a git hook, not through settings (`SETTINGS`
is None; `router.integrations.install.plan_git`)."""

from __future__ import annotations

from router.harnesses import pipe

NAME = "git"
EVENTS = ("pre-commit",)
SETTINGS = None
# the hook pipes its task and staged paths to the router, and prints the answer, as a pipe does
plan = pipe.plan
wrap = pipe.wrap
