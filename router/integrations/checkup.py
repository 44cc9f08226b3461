"""Whether the hooks kroute installed can run, as the harness will run them: `kroute-hook`
found where the command looks for it, the shims executable, a daemon startable by the hook's
interpreter. `kroute install` checks what it wrote; `kroute status` what it finds installed.

A harness is rarely started from the shell an install runs in: a virtualenv activated there
is not on the harness's PATH, so it does not count (the quickstart's venv is such a one)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from router import client
from router.base.errors import KrouteError
from router.harnesses import registry
from router.harnesses.settings import Settings
from router.integrations import install
from router.integrations.install import MARKER, read_settings

# What the daemon's process imports before it listens: an interpreter that cannot import it
# cannot start one (a hook installed without kroute's dependencies).
DAEMON_MODULE = "router.serve.foreground"
IMPORT_WAIT = 30.0  # seconds an interpreter may take to import the daemon on a busy machine


@dataclass(frozen=True, slots=True)
class Finding:
    """One reason the hooks cannot run: what is wrong, and what to do about it."""

    problem: str
    fix: str

    def __str__(self) -> str:
        return f"{self.problem}. {self.fix}."


@dataclass(frozen=True, slots=True)
class Installed:
    """One harness's hooks as a settings file holds them: the scope, the `kroute-hook` its
    commands name and the shims they run (paths as the hook will see them)."""

    harness: str
    scope: str
    settings: Path
    hook_bin: str
    shims: tuple[Path, ...]


def harness_path(env: Mapping[str, str]) -> str:
    """Return the PATH a harness started outside this shell has: this one's, without the
    bin directory of a virtualenv activated in it."""
    active = env.get("VIRTUAL_ENV")
    skip = {os.path.join(active, "bin")} if active else set()
    parts = env.get("PATH", os.defpath).split(os.pathsep)
    return os.pathsep.join(part for part in parts if part.rstrip("/") not in skip)


def find_hook_bin(hook_bin: str, env: Mapping[str, str]) -> Path | None:
    """Return the executable a hook command's KROUTE_HOOK_BIN names (looked up on the
    harness's PATH when it is a bare name), or None when there is none."""
    if "/" in hook_bin:
        path = Path(hook_bin)
        return path if path.is_file() and os.access(path, os.X_OK) else None
    found = shutil.which(hook_bin, path=harness_path(env))
    return Path(found) if found else None


def check(
    installed: Installed, target: client.Target | None, env: Mapping[str, str]
) -> list[Finding]:
    """Return what keeps one installed harness's hooks from running (empty: they can run).
    `target` is the repository's daemon (None: none to start, as outside a repository)."""
    findings = []
    hook_bin = find_hook_bin(installed.hook_bin, env)
    if hook_bin is None:
        findings.append(_missing(installed, env))
    for shim in installed.shims:
        if not shim.is_file():
            again = f"kroute install {installed.harness} --{installed.scope}"
            findings.append(Finding(f"the hook shim {shim} is missing", f"Run {again} again"))
        elif not os.access(shim, os.X_OK):
            findings.append(Finding(f"the hook shim {shim} is not executable", f"chmod +x {shim}"))
    if hook_bin is not None and target is not None:
        findings += startable(hook_bin, target)
    return findings


def _missing(installed: Installed, env: Mapping[str, str]) -> Finding:
    """Return the finding of a `kroute-hook` the harness will not find, with its fix."""
    if "/" in installed.hook_bin:
        return Finding(
            f"{installed.hook_bin}, which the {installed.harness} hooks run, is missing or "
            "not executable",
            f"Run kroute install {installed.harness} --{installed.scope} again from the "
            "environment kroute is installed in",
        )
    here = shutil.which(installed.hook_bin, path=env.get("PATH", os.defpath))
    where = f" (only {here}, through the activated virtualenv)" if here else ""
    return Finding(
        f"{installed.hook_bin} is not on PATH{where}: the {installed.harness} hooks will "
        "print nothing",
        "Put kroute on PATH (pipx install <kroute checkout> or uv tool install <kroute "
        f"checkout>), or run kroute install {installed.harness} --local (or --user), "
        "which writes the command by absolute path",
    )


def startable(hook_bin: Path, target: client.Target) -> list[Finding]:
    """Return what keeps `hook_bin` from starting the repository's daemon: an interpreter
    that cannot import it, or a runtime directory that is not the user's own."""
    findings = []
    interpreter = _interpreter(hook_bin)
    if interpreter is not None:
        try:
            done = subprocess.run(
                [interpreter, "-c", f"import {DAEMON_MODULE}"],
                capture_output=True,
                text=True,
                timeout=IMPORT_WAIT,
            )
            failed = done.returncode != 0
            why = (done.stderr.strip().splitlines() or ["no reason given"])[-1]
        except (OSError, subprocess.TimeoutExpired) as error:
            failed, why = True, str(error)
        if failed:
            findings.append(
                Finding(
                    f"{hook_bin} cannot start the daemon: {interpreter} cannot import it ({why})",
                    "Install kroute with its dependencies into that environment",
                )
            )
    try:
        client.check_runtime(target)
    except KrouteError as error:
        findings.append(Finding(error.what, error.todo or "See kroute status"))
    return findings


def _interpreter(script: Path) -> str | None:
    """Return the interpreter a Python script's `#!` line names, or None (not a Python
    script: a wrapper whose interpreter cannot be told)."""
    try:
        with script.open("rb") as stream:
            first = stream.readline(4096).decode("utf-8", errors="replace")
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = shlex.split(first[2:].strip())
    if words and os.path.basename(words[0]) == "env":
        words = words[1:]
    if not words or "python" not in os.path.basename(words[0]):
        return None
    return words[0]


def installed(root: Path, home: Path) -> list[Installed]:
    """Return kroute's hooks found in every harness's settings files of every scope, for the
    repository at `root` (unreadable files are skipped: `kroute install` says what is wrong)."""
    found = []
    for harness in registry.AGENTS.values():
        for scope in install.SCOPES:
            if scope == "local" and harness.local_file is None:
                continue
            path = harness.settings(scope, root, home)
            try:
                _, settings = read_settings(path)
            except (KrouteError, OSError):
                continue
            commands = _commands(settings, harness)
            if commands:
                found.append(_parse(harness, scope, path, commands, root))
    return found


def _commands(settings: Mapping[str, object], harness: Settings) -> list[str]:
    """Return kroute's hook commands in a harness's settings."""
    hooks = settings.get("hooks")
    out = []
    for event, _, _ in harness.events:
        groups = hooks.get(event) if isinstance(hooks, dict) else None
        for group in groups if isinstance(groups, list) else []:
            items = group.get("hooks") if isinstance(group, dict) else None
            for item in items if isinstance(items, list) else []:
                command = item.get("command") if isinstance(item, dict) else None
                if isinstance(command, str) and command.startswith(MARKER):
                    out.append(command)
    return out


def _parse(harness: Settings, scope: str, path: Path, commands: list[str], root: Path) -> Installed:
    """Return the installed hooks that `commands` (kroute's, in one settings file) run: a
    shim named through the project-dir variable, or relative to the repository (found from
    the working directory up), is read as the one in `root`."""
    project_word = (harness.project_dir or "").strip('"')
    hook_bin = install.HOOK_BIN_ON_PATH
    shims = []
    for command in commands:
        try:
            words = shlex.split(command)
        except ValueError:
            continue
        for word in words:
            if word.startswith(MARKER):
                hook_bin = word[len(MARKER) :]
        if words and "=" not in words[-1].split("/")[0]:
            word = words[-1].replace(project_word, str(root)) if project_word else words[-1]
            shims.append(root / word)  # an absolute word stays as it is
    return Installed(harness.name, scope, path, hook_bin, tuple(shims))
