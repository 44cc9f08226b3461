"""What a commit is about to record: staged paths, and the staged text of catalog files,
checked the way the catalog reads them (for the git pre-commit hook)."""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

from router.catalog import reader, walk
from router.catalog.config import Config
from router.catalog.diagnostic import ERROR, Diagnostic


def _git(root: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, check=True).stdout


def staged(root: Path) -> list[str]:
    """Return the staged (added, copied, modified, renamed) paths under `root`, relative to
    it, in git's order. Empty outside a git repository."""
    try:
        top = Path(_git(root, "rev-parse", "--show-toplevel").decode().strip()).resolve()
        names = _git(root, "diff", "--cached", "--name-only", "-z", "--diff-filter=ACMR")
    except (OSError, subprocess.CalledProcessError):
        return []
    out = []
    for name in names.decode("utf-8", "replace").split("\0"):
        if not name:
            continue
        try:
            out.append((top / name).relative_to(root).as_posix())
        except ValueError:
            continue  # outside the catalog's repository root
    return out


def check(config: Config, paths: list[str]) -> list[Diagnostic]:
    """Return the errors of the staged versions of the catalog files among `paths` (what
    the commit records, not what the working tree holds)."""
    wanted = [p for p in paths if walk.is_catalog_path(config, p)]
    if not wanted:
        return []
    with tempfile.TemporaryDirectory(prefix="kroute-staged-") as scratch:
        mirror = Path(scratch)
        for path in wanted:
            try:
                blob = _git(config.root, "show", f":./{path}")
            except (OSError, subprocess.CalledProcessError):
                continue
            target = mirror / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob)
        staged_config = replace(config, root=mirror)
        errors: list[Diagnostic] = []
        for path in wanted:
            if (mirror / path).is_file():
                result = reader.read(staged_config, path)
                errors.extend(d for d in result.diagnostics if d.severity == ERROR)
        return errors
