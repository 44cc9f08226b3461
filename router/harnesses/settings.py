"""Where an agent harness (Claude Code, Codex CLI, Gemini CLI) keeps its hook settings by
scope, which events kroute's hooks answer there, and the timeout it gives them: what
`kroute install` writes (`router.integrations.install`) and `kroute doctor` reads."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from router.base.errors import InstallError

# Kept from the harness's timeout for starting the shim and Python and printing the answer
# (what a hook spends outside its own clock, a fraction of this with both cores busy: see
# the README's first-prompt figures): the rest is the budget a hook may spend waiting for a
# daemon that starts or loads. A hook the harness kills for overrunning loses only an answer
# that came in this margin, which a larger margin would not have waited for at all.
BUDGET_MARGIN = 0.5  # seconds
# The longest a prompt waits for a load however long the harness would let it: a person
# waits on the prompt meanwhile.
BUDGET_CAP = 10.0  # seconds
# `sh -c` script running the shim its $0 names, relative to the nearest directory at or above
# the working directory that holds it; plain POSIX sh, whatever shell the harness uses.
FIND_SHIM = 'd=$PWD; until [ -x "$d/$0" ]; do [ -n "$d" ] || exit 0; d=${d%/*}; done; exec "$d/$0"'


@dataclass(frozen=True, slots=True)
class Settings:
    """One agent harness's hook settings: where they live and what kroute answers there."""

    name: str
    directory: str  # the harness's directory, in the repository and under HOME
    project_file: str  # the settings file's name in `directory`, per scope
    local_file: str | None  # None: the harness has no personal per-project file
    user_file: str
    events: tuple[tuple[str, str | None, str], ...]  # (event, matcher, shim file)
    timeout: int  # in the harness's unit; the hook keeps within it (`budget`)
    # A shell word expanding to the repository root as the hook runs; None when the harness
    # names no project directory, and the shim is found from the working directory up.
    project_dir: str | None
    per_second: int = 1  # timeout units in a second
    trust: str = ""  # how to trust the project's hooks, as the harness asks; "" needs none

    def project_shim(self, relative: Path) -> str:
        """Return the shell words that run a shim copied into the repository (`relative`
        to its root) in a project install: through the project-dir variable the harness
        sets, else found from the working directory up (Codex runs hooks in the session's
        directory and sets no such variable; a `git rev-parse` there fails outside git and
        names the wrong root in a monorepo's subproject). A working directory with no shim
        above it runs nothing and exits 0."""
        if self.project_dir is not None:
            return f"{self.project_dir}/{shlex.quote(str(relative))}"
        return f"sh -c {shlex.quote(FIND_SHIM)} {shlex.quote(str(relative))}"

    def budget(self, timeout: object) -> float:
        """Return the seconds a hook given `timeout` (in the harness's unit; its default
        when that is not a number) may wait for a daemon that starts or loads."""
        units = timeout if isinstance(timeout, int | float) and timeout > 0 else self.timeout
        return max(0.0, min(BUDGET_CAP, units / self.per_second - BUDGET_MARGIN))

    def settings(self, scope: str, root: Path, home: Path) -> Path:
        """Return the settings file of a scope. Raises InstallError for a scope the harness
        does not have."""
        if scope == "user":
            return home / self.directory / self.user_file
        if scope == "local":
            if self.local_file is None:
                raise InstallError(
                    f"{self.name} has no personal per-project settings file",
                    "Use --project (shared) or --user",
                )
            return root / self.directory / self.local_file
        return root / self.directory / self.project_file
