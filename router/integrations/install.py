"""`kroute install`: wire the hooks into Claude Code settings and git, idempotently, merging
with what is there and never clobbering it. Plans are computed first (a dry run prints the
diff); applying writes the planned text and nothing else."""

from __future__ import annotations

import difflib
import json
import shlex
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from router.base.errors import KrouteError

# (event, matcher, shim file): the Claude Code events kroute answers
CLAUDE_EVENTS = (
    ("UserPromptSubmit", None, "user-prompt-submit"),
    ("SessionStart", None, "session-start"),
    ("PreToolUse", "Edit|Write|Read", "pre-tool-use"),
)
CLAUDE_TIMEOUT = 5  # seconds; the hook bounds itself at 1 s, this is Claude Code's backstop
MARKER = "KROUTE_HOOK_BIN="  # every command kroute writes starts with it
GIT_MARKER = "# git pre-commit (kroute)"


class InstallError(KrouteError):
    """A settings file or hook cannot be merged safely."""


@dataclass(frozen=True, slots=True)
class Plan:
    """One file to write: its path, its text before (None: new) and after."""

    path: Path
    before: str | None
    after: str
    moves: tuple[tuple[Path, Path], ...] = ()  # renames done before writing
    executable: bool = False

    @property
    def changes(self) -> bool:
        """True when applying would change anything."""
        return self.before != self.after or bool(self.moves)

    def diff(self) -> str:
        """Return a unified diff of the planned change (moves described first)."""
        lines = [f"move {old} -> {new}\n" for old, new in self.moves]
        lines += difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=str(self.path) if self.before is not None else "/dev/null",
            tofile=str(self.path),
        )
        return "".join(lines)

    def apply(self) -> None:
        """Write the planned text (after the planned moves)."""
        for old, new in self.moves:
            old.rename(new)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(self.after, encoding="utf-8")
        if self.executable:
            self.path.chmod(0o755)


def hooks_dir() -> Path:
    """Return the directory of the shipped hook shims."""
    return Path(str(resources.files("router").joinpath("data/hooks"))).resolve()


def claude_command(
    shim: str, hook_bin: Path, version: str, shadow: bool, socket: Path | None = None
) -> str:
    """Return the settings command running one shim, with the interpreter's kroute-hook by
    absolute path (a version-manager shim on PATH costs tens of milliseconds) and, for a
    project's settings, the daemon's socket (which spares the shim its search)."""
    parts = [f"{MARKER}{shlex.quote(str(hook_bin))}", f"KROUTE_VERSION={shlex.quote(version)}"]
    if socket is not None:
        parts.append(f"KROUTE_SOCKET={shlex.quote(str(socket))}")
    if shadow:
        parts.append("KROUTE_MODE=shadow")
    parts.append(shlex.quote(str(hooks_dir() / "claude" / shim)))
    return " ".join(parts)


def merge_claude(settings: dict[str, Any], commands: dict[str, tuple[str | None, str]]) -> None:
    """Put kroute's command for each event into Claude Code settings, in place: an existing
    kroute entry is updated, any other hook is left exactly as it was."""
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError("`hooks` in the settings is not an object", "Fix the settings file")
    for event, (matcher, command) in commands.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InstallError(f"`hooks.{event}` is not a list", "Fix the settings file")
        ours = None
        for group in groups:
            for item in group.get("hooks", []) if isinstance(group, dict) else []:
                if isinstance(item, dict) and str(item.get("command", "")).startswith(MARKER):
                    ours = (group, item)
        if ours is None:
            group = {"hooks": [{"type": "command", "command": command, "timeout": CLAUDE_TIMEOUT}]}
            if matcher is not None:
                group = {"matcher": matcher, **group}
            groups.append(group)
            continue
        group, item = ours
        item["command"] = command
        item.setdefault("timeout", CLAUDE_TIMEOUT)
        if matcher is not None:
            group["matcher"] = matcher


def plan_claude(
    settings_path: Path, hook_bin: Path, version: str, shadow: bool, socket: Path | None = None
) -> Plan:
    """Return the plan merging kroute's hooks into a Claude Code settings file. Raises
    InstallError when the file exists but is not a JSON object (it is never overwritten)."""
    before = settings_path.read_text(encoding="utf-8") if settings_path.exists() else None
    try:
        settings = json.loads(before) if before and before.strip() else {}
    except ValueError as error:
        raise InstallError(
            f"{settings_path} is not valid JSON ({error})",
            "Fix it first; kroute never overwrites a file it cannot read",
        ) from None
    if not isinstance(settings, dict):
        raise InstallError(f"{settings_path} is not a JSON object", "Fix it first")
    commands = {
        event: (matcher, claude_command(shim, hook_bin, version, shadow, socket))
        for event, matcher, shim in CLAUDE_EVENTS
    }
    merge_claude(settings, commands)
    return Plan(settings_path, before, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")


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
