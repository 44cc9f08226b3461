"""The agent harnesses kroute wires its hooks into (Claude Code, Codex CLI, Gemini CLI): their
settings files by scope, their events, and the commands written for each scope.

A project install is shared through the repository, so it names nothing of this machine:
the shims are copied under the harness's own directory (`.claude/hooks/kroute/`, found
through the project-dir variable the harness sets) and find `kroute-hook` on PATH and the
daemon's socket themselves (hooks/lib.sh). A local or user install is personal: it names
this interpreter's `kroute-hook` and the shipped shims by absolute path (a version-manager
shim on PATH costs tens of milliseconds), and a local one the daemon's socket too."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from router.integrations.install import (
    MARKER,
    InstallError,
    Plan,
    command,
    dump,
    hooks_dir,
    kroute_timeout,
    merge_hooks,
    plan_shims,
    read_settings,
    unmerge_hooks,
)

HOOK_BIN_ON_PATH = "kroute-hook"  # what a project install runs: whatever PATH finds
BUDGET_ENV = "KROUTE_HOOK_BUDGET"  # read by `kroute-hook` (router.integrations.hook)
# Kept from the harness's timeout for starting the shim and Python and printing the answer:
# the rest is the budget a hook may spend waiting for a daemon that starts or loads.
BUDGET_MARGIN = 1.0  # seconds
# The longest a prompt waits for a load however long the harness would let it: a person
# waits on the prompt meanwhile.
BUDGET_CAP = 10.0  # seconds
SHIM_DIR = Path("hooks") / "kroute"  # under the harness directory, for a project install
SCOPES = ("project", "local", "user")
# `sh -c` script running the shim its $0 names, relative to the nearest directory at or above
# the working directory that holds it; plain POSIX sh, whatever shell the harness uses.
FIND_SHIM = 'd=$PWD; until [ -x "$d/$0" ]; do [ -n "$d" ] || exit 0; d=${d%/*}; done; exec "$d/$0"'


@dataclass(frozen=True, slots=True)
class Harness:
    """One agent harness: where its hook settings live and what kroute answers there."""

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


HARNESSES = {
    "claude": Harness(
        "claude",
        ".claude",
        "settings.json",
        "settings.local.json",
        "settings.json",
        (
            ("UserPromptSubmit", None, "user-prompt-submit"),
            ("SessionStart", None, "session-start"),
            # every tool that writes a file (harness.FILE_TOOLS), and Read
            ("PreToolUse", "Edit|MultiEdit|Write|NotebookEdit|Read", "pre-tool-use"),
            # which catalog documents the agent read (the shadow log's reads; prints nothing)
            ("PostToolUse", "Read", "post-tool-use"),
        ),
        5,  # seconds
        '"$CLAUDE_PROJECT_DIR"',
    ),
    "codex": Harness(
        "codex",
        ".codex",
        "hooks.json",
        None,
        "hooks.json",
        (
            ("SessionStart", None, "session-start"),
            ("UserPromptSubmit", None, "user-prompt-submit"),
            # apply_patch is how Codex writes every file (`Edit` and `Write` are its matcher
            # aliases); a shell command names no file kroute can route before it runs
            ("PreToolUse", "apply_patch", "pre-tool-use"),
            # Codex reads files with shell commands: which catalog documents they read
            ("PostToolUse", "Bash", "post-tool-use"),
        ),
        5,  # seconds
        None,  # Codex sets no project-dir variable; it runs hooks in the session's directory
        trust=(
            "Codex runs a project's hooks only in a trusted project, and only hooks you "
            "trusted: start codex here and trust the project when it asks, then run /hooks "
            "and trust kroute's hooks (again after any kroute install that changes them). "
            "`kroute doctor` checks both"
        ),
    ),
    "gemini": Harness(
        "gemini",
        ".gemini",
        "settings.json",
        None,
        "settings.json",
        (
            ("SessionStart", None, "session-start"),
            ("BeforeAgent", None, "before-agent"),
            # BeforeTool cannot add context; AfterTool appends it to the tool's result
            ("AfterTool", "read_file|write_file|replace", "after-tool"),
        ),
        5000,  # milliseconds
        '"$GEMINI_PROJECT_DIR"',
        per_second=1000,
        trust=(
            "Gemini CLI runs a project's hooks only in a trusted folder: start gemini here "
            "and trust the folder when it asks (or run /permissions). `kroute doctor` "
            "checks it"
        ),
    ),
}


@dataclass(frozen=True, slots=True)
class Machine:
    """What a personal (local or user) install names by absolute path."""

    hook_bin: Path
    version: str
    socket: Path | None = None  # local scope only: the daemon of this repository


def plan_install(
    harness: Harness, scope: str, root: Path, home: Path, machine: Machine, shadow: bool
) -> list[Plan]:
    """Return the plans installing a harness's hooks in a scope: the settings file merged
    (other hooks untouched) and, for a project install, the shims copied into the
    repository. Raises InstallError for a settings file that cannot be merged safely."""
    path = harness.settings(scope, root, home)
    before, settings = read_settings(path)
    mode = {"KROUTE_MODE": "shadow"} if shadow else {}
    commands = {}
    for event, matcher, shim in harness.events:
        # the budget of the timeout the entry will have: one kept from an earlier install
        budget = {BUDGET_ENV: f"{harness.budget(kroute_timeout(settings, event)):g}"}
        if scope == "project":
            env = {MARKER[:-1]: HOOK_BIN_ON_PATH, **budget, **mode}
            word = harness.project_shim(_shim_dir(harness) / harness.name / shim)
        else:
            env = {
                MARKER[:-1]: str(machine.hook_bin),
                "KROUTE_VERSION": machine.version,
                **budget,
            }
            if scope == "local" and machine.socket is not None:
                env["KROUTE_SOCKET"] = str(machine.socket)
            env.update(mode)
            word = shlex.quote(str(hooks_dir() / harness.name / shim))
        commands[event] = (matcher, command(env, word))
    merge_hooks(settings, commands, harness.timeout)
    plans = [Plan(path, before, dump(settings))]
    if scope == "project":
        shims = [shim for _, _, shim in harness.events]
        plans += plan_shims(root / _shim_dir(harness), harness.name, shims, root, remove=False)
    return plans


def plan_uninstall(harness: Harness, scope: str, root: Path, home: Path) -> list[Plan]:
    """Return the plans taking out exactly what `plan_install` put in: kroute's entries (a
    settings file left empty is removed, as install created it) and a project's shims.
    Raises InstallError for a settings file that cannot be read safely."""
    path = harness.settings(scope, root, home)
    before, settings = read_settings(path)
    untouched = dump(settings)
    unmerge_hooks(settings, [event for event, _, _ in harness.events])
    after: str | None = dump(settings) if settings else None
    if dump(settings) == untouched:  # nothing of kroute's there: the file stays as it is
        after = before
    stop = root if scope != "user" else home
    plans = [Plan(path, before, after, stop=stop)]
    if scope == "project":
        shims = [shim for _, _, shim in harness.events]
        copies = plan_shims(root / _shim_dir(harness), harness.name, shims, root, remove=True)
        plans += [plan for plan in copies if plan.before is not None]
    return plans


def _shim_dir(harness: Harness) -> Path:
    """Return where a project install copies the shims, relative to the repository."""
    return Path(harness.directory) / SHIM_DIR
