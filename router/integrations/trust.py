"""Whether a harness will run the hooks kroute installed, read where the harness records
its trust. Codex CLI runs a project's hooks only in a project the user trusted
(`[projects."<dir>"] trust_level` in `$CODEX_HOME/config.toml`) and only hooks the user
trusted in `/hooks` (`[hooks.state."<hooks.json>:<event>:<group>:<handler>"]`, with a
`trusted_hash` Codex compares with its own hash of the hook). Gemini CLI runs a project's
settings, hooks included, only in a trusted folder (`~/.gemini/trustedFolders.json`, the
longest rule that holds the folder wins; on unless `security.folderTrust.enabled` is false).
Without trust both skip kroute without a word, so `kroute doctor` reads the records.

Only what the harness writes is read; nothing is written. The hash Codex keeps is not
recomputed (Codex's own, and it changes with Codex): a hook trusted once and changed by a
later install shows as modified in `/hooks`, which the finding says."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from router.integrations.checkup import Finding
from router.integrations.install import MARKER

# Codex's names for the events in its hook-state keys (its `hook_event_key_label`).
CODEX_LABELS = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "PreToolUse": "pre_tool_use",
    "PostToolUse": "post_tool_use",
}
GEMINI_TRUST = ("TRUST_FOLDER", "TRUST_PARENT")
GEMINI_DISTRUST = "DO_NOT_TRUST"


def codex_home(env: Mapping[str, str], home: Path) -> Path:
    """Return Codex's home directory (`$CODEX_HOME`, else `~/.codex`)."""
    return Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"


def codex(root: Path, hooks_file: Path, env: Mapping[str, str], home: Path) -> list[Finding]:
    """Return what keeps Codex from running kroute's hooks in `hooks_file` (a project's
    `.codex/hooks.json`, or the user's) for the repository at `root`: hooks switched off,
    the project not trusted (project hooks only), kroute's hooks not trusted or disabled."""
    config_file = codex_home(env, home) / "config.toml"
    settings, unread = _toml(config_file)
    if unread:
        return [Finding(unread, "Fix it, or run /hooks in codex, which rewrites it")]
    findings = []
    features = settings.get("features")
    features = features if isinstance(features, dict) else {}
    if features.get("hooks") is False or features.get("codex_hooks") is False:
        findings.append(
            Finding(
                f"Codex's hooks are switched off in {config_file} ([features] hooks = false)",
                "Remove that line (hooks are on by default)",
            )
        )
    if hooks_file.is_relative_to(root):
        findings += _codex_project(root, settings, config_file)
    findings += _codex_hooks(hooks_file, settings, config_file)
    return findings


def _codex_project(root: Path, settings: Mapping[str, Any], config_file: Path) -> list[Finding]:
    """Return the finding of a project Codex does not trust (the nearest entry for the
    repository or a directory above it decides)."""
    projects = settings.get("projects")
    projects = projects if isinstance(projects, dict) else {}
    for folder in (root, *root.parents):
        entry = projects.get(str(folder))
        if isinstance(entry, dict) and "trust_level" in entry:
            if entry["trust_level"] == "trusted":
                return []
            return [
                Finding(
                    f"Codex does not trust {folder} ({config_file} says trust_level = "
                    f"{json.dumps(entry['trust_level'])}), so it skips the project's hooks",
                    f'Set trust_level = "trusted" under [projects."{folder}"] there',
                )
            ]
    return [
        Finding(
            f"Codex has not been told to trust {root}, so it skips the project's hooks",
            f"Start codex in {root} and trust the project when it asks (or add "
            f'[projects."{root}"] trust_level = "trusted" to {config_file})',
        )
    ]


def _codex_hooks(hooks_file: Path, settings: Mapping[str, Any], config_file: Path) -> list[Finding]:
    """Return the findings of kroute's hooks in `hooks_file` that Codex was never told to
    trust, or that are disabled there."""
    hooks = settings.get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    states = states if isinstance(states, dict) else {}
    untrusted, disabled = [], []
    for event, group, handler in _ours(hooks_file):
        key = f"{hooks_file}:{CODEX_LABELS.get(event, event)}:{group}:{handler}"
        state = states.get(key)
        state = state if isinstance(state, dict) else {}
        if state.get("enabled") is False:
            disabled.append(event)
        elif not state.get("trusted_hash"):
            untrusted.append(event)
    findings = []
    if untrusted:
        findings.append(
            Finding(
                f"Codex has not been told to trust kroute's {', '.join(untrusted)} hooks in "
                f"{hooks_file}, so it skips them",
                "Start codex in the repository, run /hooks and trust them (trust them again "
                "after a kroute install changes them: Codex then shows them as modified)",
            )
        )
    if disabled:
        findings.append(
            Finding(
                f"kroute's {', '.join(disabled)} hooks are disabled in {config_file}",
                "Enable them in codex with /hooks",
            )
        )
    return findings


def _ours(hooks_file: Path) -> list[tuple[str, int, int]]:
    """Return (event, group index, handler index) of every kroute command in a Codex
    hooks.json, as Codex numbers them in its hook-state keys."""
    try:
        settings = json.loads(hooks_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    found = []
    for event, groups in (hooks or {}).items() if isinstance(hooks, dict) else ():
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            items = group.get("hooks") if isinstance(group, dict) else None
            for h, item in enumerate(items if isinstance(items, list) else []):
                command = item.get("command") if isinstance(item, dict) else None
                if isinstance(command, str) and command.startswith(MARKER):
                    found.append((event, g, h))
    return found


def gemini_home(env: Mapping[str, str], home: Path) -> Path:
    """Return Gemini CLI's settings directory (`$GEMINI_CLI_HOME/.gemini`, else
    `~/.gemini`)."""
    return Path(env.get("GEMINI_CLI_HOME") or home) / ".gemini"


def gemini(root: Path, env: Mapping[str, str], home: Path) -> list[Finding]:
    """Return what keeps Gemini CLI from running a project's hooks in `root`: a folder it
    was told not to trust, or one it was never told to trust (while folder trust is on)."""
    settings_file = gemini_home(env, home) / "settings.json"
    settings, _ = _json(settings_file)
    security = settings.get("security") if isinstance(settings, dict) else None
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(folder_trust, dict) and folder_trust.get("enabled") is False:
        return []  # every folder is trusted
    if env.get("GEMINI_TRUST_WORKSPACE") == "true":
        return []
    rules_file = Path(
        env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or gemini_home(env, home) / "trustedFolders.json"
    )
    rules, unread = _json(rules_file)
    if unread:
        return [Finding(unread, "Fix it (Gemini CLI stops on it too), or remove it")]
    level, rule = _gemini_level(root, rules if isinstance(rules, dict) else {})
    if level in GEMINI_TRUST:
        return []
    if level == GEMINI_DISTRUST:
        return [
            Finding(
                f"Gemini CLI was told not to trust {rule} ({rules_file}), so it ignores the "
                "project's settings and hooks",
                f"Start gemini in {root} and run /permissions to trust the folder",
            )
        ]
    return [
        Finding(
            f"Gemini CLI has not been told to trust {root}, so it ignores the project's "
            "settings and hooks",
            f"Start gemini in {root} and choose to trust the folder (or run /permissions)",
        )
    ]


def _gemini_level(root: Path, rules: Mapping[str, Any]) -> tuple[str | None, str]:
    """Return the trust level of the longest rule holding `root` and that rule's path, as
    Gemini CLI decides it (a TRUST_PARENT rule holds its path's parent)."""
    real = os.path.realpath(root)
    best: tuple[int, str | None, str] = (-1, None, "")
    for path, level in rules.items():
        if not isinstance(level, str):
            continue
        effective = os.path.dirname(path) if level == "TRUST_PARENT" else path
        held = os.path.realpath(effective) if os.path.exists(effective) else effective
        inside = real == held or real.startswith(held.rstrip("/") + "/")
        if inside and len(path) > best[0]:
            best = (len(path), level, path)
    return best[1], best[2]


def _toml(path: Path) -> tuple[dict[str, Any], str]:
    """Return a TOML file's table ({} when absent) and "" — or {} and why it cannot be
    read."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")), ""
    except FileNotFoundError:
        return {}, ""
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        return {}, f"{path} cannot be read ({error}), so kroute cannot tell what Codex trusts"


def _json(path: Path) -> tuple[Any, str]:
    """Return a JSON file's value (which may carry // comments, as Gemini CLI allows; {}
    when absent) and "" — or {} and why it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, ""
    except (OSError, UnicodeDecodeError) as error:
        return {}, f"{path} cannot be read ({error})"
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    try:
        return json.loads("\n".join(lines)), ""
    except ValueError as error:
        return {}, f"{path} is not valid JSON ({error})"
