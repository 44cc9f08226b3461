"""`kroute doctor`: everything a hook needs on this machine, checked and explained.

A hook that cannot run prints nothing (it never breaks the agent), so a broken setup looks
exactly like a catalog with nothing to say. Each check here names one thing a hook needs
and, when it is missing, what to do: kroute.toml readable and holding only known settings,
`kroute` and `kroute-hook` on the PATH a harness gets, each installed harness's hooks
present, runnable and of this kroute's version, trusted where the harness records trust,
a daemon startable, and no catalog folder left out of the roots. `checkup` holds the
per-installation checks `kroute install` and `kroute status` share; nothing here starts a
daemon or writes a file."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from router import __version__, client
from router.base.errors import ConfigError, KrouteError
from router.catalog import config, stray
from router.client import locate
from router.harnesses import registry
from router.integrations import checkup, install, toolfile, trust
from router.integrations.checkup import Finding

CONSOLE = "kroute"  # what `.mcp.json` and a teammate's shell run
PATH_FIX = "Install kroute on PATH: pipx install <kroute checkout> (or uv tool install)"


@dataclass(frozen=True, slots=True)
class Check:
    """One thing a hook needs: what was checked, what was found when it holds, and each
    problem with its fix when it does not."""

    topic: str
    holds: str
    findings: tuple[Finding, ...] = ()

    def as_dict(self) -> dict[str, object]:
        """Return the JSON form."""
        return {
            "topic": self.topic,
            "ok": not self.findings,
            "says": self.holds,
            "problems": [{"problem": f.problem, "fix": f.fix} for f in self.findings],
        }


def examine(here: Path, home: Path, env: Mapping[str, str], hook_bin: Path) -> list[Check]:
    """Return every check of the repository around `here` (`hook_bin`: this kroute's
    `kroute-hook`, whose interpreter must be able to start a daemon)."""
    nearest = locate.find_config(here)
    found = None if nearest is None else Path(nearest)
    console = _console(env)
    if found is None:
        return [
            Check(
                "kroute.toml",
                "",
                (
                    Finding(
                        f"no kroute.toml at or above {here}, so every hook here prints nothing",
                        "Run kroute init in the repository root, then kroute check",
                    ),
                ),
            ),
            console,
        ]
    root = found.parent.resolve()
    cfg, read = _config(found)
    checks = [read, console]
    if cfg is not None:
        checks.append(_homes(cfg))
    target = client.target(root, found.resolve(), env)
    try:
        running = client.state(target)[0] == "running"
    except KrouteError:  # a runtime dir that is not the user's: the daemon check says so
        running = False
    installed = checkup.installed(root, home)
    startable = None if running else target
    checks += [_hooks(hooks, root, home, env, startable) for hooks in installed]
    if not installed:
        checks.append(_none_installed(root))
    checks.append(_daemon(target, running, hook_bin, bool(installed)))
    return checks


def _console(env: Mapping[str, str]) -> Check:
    """Return the check that `kroute` and `kroute-hook` are on the PATH a harness started
    outside this shell has (a virtualenv active here is not on it)."""
    path = checkup.harness_path(env)
    missing = [
        name for name in (CONSOLE, install.HOOK_BIN_ON_PATH) if not shutil.which(name, path=path)
    ]
    if not missing:
        where = Path(shutil.which(CONSOLE, path=path) or CONSOLE).parent
        return Check("PATH", f"kroute and kroute-hook are on the PATH a harness gets ({where})")
    here = [n for n in missing if shutil.which(n, path=env.get("PATH", ""))]
    why = " (only through the virtualenv active in this shell)" if here else ""
    return Check(
        "PATH",
        "",
        (
            Finding(
                f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not on the "
                f"PATH a harness gets{why}: project hooks and .mcp.json run them by name",
                PATH_FIX,
            ),
        ),
    )


def _config(found: Path) -> tuple[config.Config | None, Check]:
    """Return the loaded config and its check (every problem of the file, each apart)."""
    try:
        cfg = config.load(found)
    except ConfigError as error:
        problems = getattr(error, "problems", (error,))
        findings = tuple(Finding(p.what, p.todo or "Fix kroute.toml") for p in problems)
        return None, Check("kroute.toml", "", findings)
    roots = [r for r in cfg.roots if (cfg.root / r).exists()]
    holds = f"{found} reads; roots here: {', '.join(roots) or 'none yet'}"
    if not roots:
        finding = Finding(
            f"none of the roots in {found.name} exists ({', '.join(cfg.roots)}), so every "
            "route is silent",
            "Add documents under one of them, or set roots to where they are",
        )
        return cfg, Check("kroute.toml", holds, (finding,))
    return cfg, Check("kroute.toml", holds)


def _homes(cfg: config.Config) -> Check:
    """Return the check that no folder of catalog files lies outside the roots."""
    findings = tuple(
        Finding(
            f"{home.folder} holds {home.says()} that no root covers, so no route offers them",
            f"Add {json.dumps(home.folder)} to roots in {config.FILE_NAME}",
        )
        for home in stray.homes(cfg)
    )
    return Check("catalog homes", "every folder of catalog files is under a root", findings)


def _hooks(
    found: checkup.Installed,
    root: Path,
    home: Path,
    env: Mapping[str, str],
    target: client.Target | None,
) -> Check:
    """Return the check of one installed harness: runnable (`checkup`), of this version,
    and trusted where the harness records trust."""
    topic = f"{found.harness} hooks ({found.scope}, {found.settings})"
    # a kroute-hook missing from PATH is the PATH check's to say, once for every harness
    unsaid = f"{install.HOOK_BIN_ON_PATH} is not on PATH"
    ran = [f for f in checkup.check(found, target, env) if not f.problem.startswith(unsaid)]
    findings = [*ran, *_version(found, root, home)]
    if found.harness == "codex":
        findings += trust.codex(root, found.settings, env, home)
    elif found.harness == "gemini" and found.scope == "project":
        findings += trust.gemini(root, env, home)
    holds = "installed, runnable" + (", trusted" if found.harness != "claude" else "")
    return Check(topic, holds, tuple(findings))


def _version(found: checkup.Installed, root: Path, home: Path) -> list[Finding]:
    """Return the finding of hooks another kroute version installed: what a fresh install
    would change (settings or copied shims), or a personal install naming another version."""
    harness = registry.AGENTS[found.harness]
    again = f"kroute install {found.harness} --{found.scope}"
    if found.scope != "project":
        stamp = _version_of(found.settings)
        if stamp and stamp != __version__:
            return [
                Finding(
                    f"the {found.harness} hooks were installed by kroute {stamp}, this is "
                    f"{__version__}",
                    f"Run {again} again from this kroute",
                )
            ]
        return []
    shadow = "KROUTE_MODE=shadow" in found.settings.read_text(encoding="utf-8")
    machine = install.Machine(Path(install.HOOK_BIN_ON_PATH), __version__)
    try:
        plans = install.plan_install(harness, "project", root, home, machine, shadow)
    except KrouteError as error:
        return [Finding(str(error).rstrip("."), f"Fix it, then run {again}")]
    stale = [str(plan.path.relative_to(root)) for plan in plans if plan.changes]
    if not stale:
        return []
    return [
        Finding(
            f"the {found.harness} hooks are not those kroute {__version__} installs "
            f"({', '.join(stale)} would change)",
            f"Run {again} and commit what it writes",
        )
    ]


def _version_of(settings: Path) -> str:
    """Return the KROUTE_VERSION a personal install wrote into its commands ("" if none)."""
    text = settings.read_text(encoding="utf-8")
    start = text.find("KROUTE_VERSION=")
    if start < 0:
        return ""
    return text[start + len("KROUTE_VERSION=") :].split()[0].strip("'\"\\")


def _none_installed(root: Path) -> Check:
    """Return the check that some agent is wired to kroute: hooks, or the MCP server."""
    if toolfile.installed(root):
        return Check("hooks", "no hooks installed; .mcp.json serves kroute's tools")
    return Check(
        "hooks",
        "",
        (
            Finding(
                "no kroute hooks are installed for this repository, so no agent gets pointers",
                "Run kroute install claude (or codex, gemini), or kroute mcp install",
            ),
        ),
    )


def _daemon(target: client.Target, running: bool, hook_bin: Path, checked: bool) -> Check:
    """Return the check that a daemon serves the repository or can be started (each
    installed harness's hook already checked its own interpreter)."""
    if running:
        return Check("daemon", f"a daemon serves {target.root}")
    findings = [] if checked else checkup.startable(hook_bin, target)
    return Check("daemon", "not running; a hook starts one on demand", tuple(findings))
