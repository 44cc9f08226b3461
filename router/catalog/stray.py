"""Catalog files the roots leave out: files of a format kroute reads (Cursor rules, skills,
Copilot instructions, skill rules, and any document in one of the usual catalog homes) that
lie in no root, so that no route ever offers them. `kroute check` and `kroute doctor` name
the folder to add to `roots` for each group. Reads directories only."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass

from router.catalog import pattern
from router.catalog.config import DEFAULT_ROOTS, FILE_NAME, Config
from router.catalog.walk import SKIP_DIRS, format_of

# What a file of each format is called when a stray group is named.
NAMES = {
    "rule": "Cursor rule",
    "skill": "skill",
    "instruction": "Copilot instruction file",
    "rules": "skill-rules.json",
    "markdown": "document",
    "json": "JSON catalog file",
}
RULES_FILE = "skill-rules.json"
# A walk of a huge tree stops here: what it found so far is reported (a monorepo of a
# million files would otherwise make `check` wait on the disk for no catalog).
MAX_VISITED = 200_000


@dataclass(frozen=True, slots=True)
class Home:
    """A folder holding catalog files that no root covers: the folder to add to `roots`,
    how many such files it holds, and of which formats (counts by format name)."""

    folder: str
    files: int
    formats: tuple[tuple[str, int], ...]

    def says(self) -> str:
        """Return the sentence naming what the folder holds, e.g. `250 Cursor rules`."""
        parts = [f"{n} {NAMES[kind]}{'' if n == 1 else 's'}" for kind, n in self.formats]
        return ", ".join(parts)


def homes(config: Config) -> list[Home]:
    """Return the folders holding catalog files outside every root (and outside `exclude`,
    which leaves files out on purpose), in path order. A folder holding a kroute.toml of its
    own is another catalog and is not looked into."""
    found: dict[str, Counter[str]] = {}
    visited = 0
    base = config.root
    for top, dirs, files in os.walk(base):
        rel_top = os.path.relpath(top, base).replace(os.sep, "/")
        rel_top = "" if rel_top == "." else rel_top
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIP_DIRS
            and not os.path.islink(os.path.join(top, d))
            and not _rooted(config, _join(rel_top, d))
            and not os.path.isfile(os.path.join(top, d, FILE_NAME))
        )
        visited += len(files) + len(dirs)
        for name in files:
            relpath = _join(rel_top, name)
            kind = _format(relpath)
            if kind is None or _rooted(config, relpath) or _excluded(config, relpath):
                continue
            found.setdefault(_home_of(relpath, kind), Counter())[kind] += 1
        if visited > MAX_VISITED:
            break
    return [
        Home(folder, sum(counts.values()), tuple(sorted(counts.items())))
        for folder, counts in sorted(found.items())
    ]


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _format(relpath: str) -> str | None:
    """Return the format a file outside the roots is recognised by: the formats whose file
    names say they are catalog files anywhere, and any catalog file in a usual home."""
    name = relpath.rsplit("/", 1)[-1]
    if name == RULES_FILE and "/skills/" in f"/{relpath}":
        return "rules"
    kind = format_of(relpath)
    if kind in ("rule", "skill", "instruction"):
        return kind
    if kind is not None and _default_home(relpath) is not None:
        return kind
    return None


def _default_home(relpath: str) -> str | None:
    """Return the usual catalog home (`DEFAULT_ROOTS`) a path lies under, or None."""
    for home in DEFAULT_ROOTS:
        if relpath.startswith(home + "/"):
            return home
    return None


def _home_of(relpath: str, kind: str) -> str:
    """Return the folder to add to `roots` for a stray file: its usual home, else the
    folder of skills a SKILL.md's folder sits in, else the file's own folder."""
    home = _default_home(relpath)
    if home is not None:
        return home
    folder = relpath.rpartition("/")[0]
    if kind == "skill" and "/" in folder:
        return folder.rpartition("/")[0]
    return folder or "."


def _rooted(config: Config, relpath: str) -> bool:
    """Return whether a path lies under one of the configured roots (or is one)."""
    for root in config.roots:
        clean = pattern.clean(root)
        if clean in ("", ".") or relpath == clean or relpath.startswith(clean + "/"):
            return True
    return False


def _excluded(config: Config, relpath: str) -> bool:
    return any(pattern.covers(glob, relpath) for glob in config.exclude)
