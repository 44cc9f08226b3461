"""`kroute install` and `kroute uninstall`: the files behind the hooks, planned first (a dry
run prints the diff), then written, merging with what is there and never clobbering it.
The harness specifics (which settings file, which events) are each harness's `SETTINGS`
(`router.harnesses`).

A project install is shared through the repository, so it names nothing of this machine:
the shims are copied under the harness's own directory (`.claude/hooks/kroute/`, found
through the project-dir variable the harness sets) and find `kroute-hook` on PATH and the
daemon's socket themselves (hooks/lib.sh). A local or user install is personal: it names
this interpreter's `kroute-hook` and the shipped shims by absolute path (a version-manager
shim on PATH costs tens of milliseconds), and a local one the daemon's socket too."""

from __future__ import annotations

import difflib
import json
import shlex
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from router.base.errors import InstallError
from router.harnesses.settings import Settings

MARKER = "KROUTE_HOOK_BIN="  # every hook command kroute writes starts with it
GIT_MARKER = "# git pre-commit (kroute)"
SHIM_COMMON = ("run", "lib.sh")  # what every harness shim execs or sources
EXECUTABLE = 0o755
HOOK_BIN_ON_PATH = "kroute-hook"  # what a project install runs: whatever PATH finds
BUDGET_ENV = "KROUTE_HOOK_BUDGET"  # read by `kroute-hook` (router.integrations.hook)
SHIM_DIR = Path("hooks") / "kroute"  # under the harness directory, for a project install
SCOPES = ("project", "local", "user")


@dataclass(frozen=True, slots=True)
class Plan:
    """One file to write or remove: its path, its text before (None: new) and after (None:
    removed). A removal prunes the directories it leaves empty, up to `stop`."""

    path: Path
    before: str | None
    after: str | None
    moves: tuple[tuple[Path, Path], ...] = ()  # renames: before writing, after removing
    executable: bool = False
    stop: Path | None = None

    @property
    def changes(self) -> bool:
        """True when applying would change anything."""
        return self.before != self.after or bool(self.moves)

    def diff(self) -> str:
        """Return a unified diff of the planned change (moves described first)."""
        lines = [f"move {old} -> {new}\n" for old, new in self.moves]
        lines += difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            (self.after or "").splitlines(keepends=True),
            fromfile=str(self.path) if self.before is not None else "/dev/null",
            tofile=str(self.path) if self.after is not None else "/dev/null",
        )
        return "".join(lines)

    def apply(self) -> None:
        """Write (or remove) the planned file, with the planned moves."""
        if self.after is None:
            self.path.unlink(missing_ok=True)
            for old, new in self.moves:
                old.rename(new)
            prune(self.path.parent, self.stop)
            return
        for old, new in self.moves:
            old.rename(new)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(self.after, encoding="utf-8")
        if self.executable:
            self.path.chmod(EXECUTABLE)


def prune(directory: Path, stop: Path | None) -> None:
    """Remove `directory` and its parents while they are empty, never `stop` or above it."""
    if stop is None:
        return
    while directory != stop and stop in directory.parents:
        try:
            directory.rmdir()
        except OSError:  # not empty (or not there): what is left is not ours
            return
        directory = directory.parent


def hooks_dir() -> Path:
    """Return the directory of the shipped hook shims."""
    return Path(str(resources.files("router").joinpath("data/hooks"))).resolve()


def read_settings(path: Path) -> tuple[str | None, dict[str, Any]]:
    """Return a JSON settings file's text (None when absent) and its object. Raises
    InstallError when it exists but is not a JSON object (it is never overwritten)."""
    before = path.read_text(encoding="utf-8") if path.exists() else None
    try:
        settings = json.loads(before) if before and before.strip() else {}
    except ValueError as error:
        raise InstallError(
            f"{path} is not valid JSON ({error})",
            "Fix it first; kroute never overwrites a file it cannot read",
        ) from None
    if not isinstance(settings, dict):
        raise InstallError(f"{path} is not a JSON object", "Fix it first")
    return before, settings


def dump(settings: Mapping[str, Any]) -> str:
    """Return settings as kroute writes them."""
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def _groups(settings: dict[str, Any], event: str, create: bool) -> list[Any]:
    """Return the hook groups of an event (created when `create`). Raises InstallError when
    the settings do not have the shape every harness documents."""
    hooks = settings.setdefault("hooks", {}) if create else settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError("`hooks` in the settings is not an object", "Fix the settings file")
    groups = hooks.setdefault(event, []) if create else hooks.get(event, [])
    if not isinstance(groups, list):
        raise InstallError(f"`hooks.{event}` is not a list", "Fix the settings file")
    return groups


def _ours(item: Any) -> bool:
    return isinstance(item, dict) and str(item.get("command", "")).startswith(MARKER)


def kroute_timeout(settings: dict[str, Any], event: str) -> Any:
    """Return the `timeout` of kroute's entry for an event in a harness's settings (None when
    there is none): `merge_hooks` keeps it."""
    hooks = settings.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    for group in groups if isinstance(groups, list) else []:
        for item in group.get("hooks", []) if isinstance(group, dict) else []:
            if _ours(item):
                return item.get("timeout")
    return None


def merge_hooks(
    settings: dict[str, Any], commands: Mapping[str, tuple[str | None, str]], timeout: int
) -> None:
    """Put kroute's command for each event into a harness's settings, in place: an existing
    kroute entry is updated, any other hook is left exactly as it was."""
    for event, (matcher, command) in commands.items():
        groups = _groups(settings, event, create=True)
        ours = None
        for group in groups:
            for item in group.get("hooks", []) if isinstance(group, dict) else []:
                if _ours(item):
                    ours = (group, item)
        if ours is None:
            group = {"hooks": [{"type": "command", "command": command, "timeout": timeout}]}
            if matcher is not None:
                group = {"matcher": matcher, **group}
            groups.append(group)
            continue
        group, item = ours
        item["command"] = command
        item.setdefault("timeout", timeout)
        if matcher is not None:
            group["matcher"] = matcher


def unmerge_hooks(settings: dict[str, Any], events: Iterable[str]) -> None:
    """Take kroute's commands out of a harness's settings, in place, with the groups, event
    lists and `hooks` object left empty by that (install created them); nothing else."""
    for event in events:
        groups = _groups(settings, event, create=False)
        for group in list(groups):
            items = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(items, list) or not any(_ours(item) for item in items):
                continue
            items[:] = [item for item in items if not _ours(item)]
            if not items:
                groups.remove(group)
        hooks = settings.get("hooks")
        if isinstance(hooks, dict) and event in hooks and not groups:
            del hooks[event]
    if settings.get("hooks") == {}:
        del settings["hooks"]


def command(env: Mapping[str, str], shim: str) -> str:
    """Return a hook command: MARKER's variable first (how kroute finds its own entries),
    then the other variables, then the shim (already quoted or expanded as a shell word)."""
    parts = [f"{name}={shlex.quote(value)}" for name, value in env.items()]
    return " ".join([*parts, shim])


def plan_shims(
    target: Path, harness: str, shims: Iterable[str], stop: Path, remove: bool
) -> list[Plan]:
    """Return the plans copying (or removing) the shims a harness runs, with the runner and
    lib.sh beside them as the shipped tree has them (each shim execs `../run`)."""
    names = [*SHIM_COMMON, *(f"{harness}/{shim}" for shim in shims)]
    plans = []
    for name in names:
        path = target / name
        before = path.read_text(encoding="utf-8") if path.exists() else None
        after = None if remove else (hooks_dir() / name).read_text(encoding="utf-8")
        plans.append(Plan(path, before, after, executable=name != "lib.sh", stop=stop))
    return plans


def git_hooks_dir(repo: Path) -> Path:
    """Return the repository's hooks directory (honouring core.hooksPath). Raises
    InstallError outside a git repository."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--git-path", "hooks"],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        raise InstallError(f"{repo} is not inside a git repository", "Run it in one") from None
    path = Path(out)
    return path if path.is_absolute() else (repo / path).resolve()


def plan_git(repo: Path, kroute_bin: Path) -> Plan:
    """Return the plan installing kroute's pre-commit hook. A foreign pre-commit hook is
    kept: it moves to `pre-commit.local`, which kroute's hook runs first."""
    directory = git_hooks_dir(repo)
    target = directory / "pre-commit"
    shim = (hooks_dir() / "git" / "pre-commit").read_text(encoding="utf-8")
    after = shim.replace(
        "kroute=${KROUTE_BIN:-kroute}", f"kroute=${{KROUTE_BIN:-{shlex.quote(str(kroute_bin))}}}"
    )
    before = target.read_text(encoding="utf-8") if target.exists() else None
    if before is None or GIT_MARKER in before:
        return Plan(target, before, after, executable=True)
    local = directory / "pre-commit.local"
    if local.exists():
        raise InstallError(
            f"{target} is not kroute's and {local} exists too",
            "Merge them by hand, then run kroute install git again",
        )
    return Plan(target, None, after, moves=((target, local),), executable=True)


def plan_git_uninstall(repo: Path) -> Plan:
    """Return the plan removing kroute's pre-commit hook, the hook it kept as
    `pre-commit.local` moved back. A pre-commit hook that is not kroute's is left alone."""
    directory = git_hooks_dir(repo)
    target = directory / "pre-commit"
    before = target.read_text(encoding="utf-8") if target.exists() else None
    if before is None or GIT_MARKER not in before:
        return Plan(target, before, before)
    local = directory / "pre-commit.local"
    return Plan(target, before, None, moves=((local, target),) if local.exists() else ())


@dataclass(frozen=True, slots=True)
class Machine:
    """What a personal (local or user) install names by absolute path."""

    hook_bin: Path
    version: str
    socket: Path | None = None  # local scope only: the daemon of this repository


def plan_install(
    harness: Settings, scope: str, root: Path, home: Path, machine: Machine, shadow: bool
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


def plan_uninstall(harness: Settings, scope: str, root: Path, home: Path) -> list[Plan]:
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


def _shim_dir(harness: Settings) -> Path:
    """Return where a project install copies the shims, relative to the repository."""
    return Path(harness.directory) / SHIM_DIR
