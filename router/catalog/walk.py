"""Which files are the catalog: walking the roots (symlinks that leave a root refused, tool
and version-control folders skipped), which file names are read and in which format, and the
stamp a snapshot keys each file by (DESIGN 4.1). Reads directories and file metadata only."""

from __future__ import annotations

import os
from pathlib import Path

from router.catalog import pattern
from router.catalog.config import Config
from router.catalog.diagnostic import WARNING, Diagnostic

# Tool caches and version-control internals are never catalogs.
SKIP_DIRS = frozenset(
    (
        ".git .hg .svn node_modules .venv venv __pycache__ .mypy_cache .pytest_cache "
        ".ruff_cache .tox"
    ).split()
)


def stamp_of(info: os.stat_result) -> tuple[int, int]:
    """Return the (size, mtime in ns) a snapshot keys a file by."""
    return info.st_size, info.st_mtime_ns


def format_of(relpath: str) -> str | None:
    """Return the catalog format a file name implies, or None for files never read."""
    name = relpath.rsplit("/", 1)[-1]
    if name.endswith(".mdc"):
        return "rule"
    if name == "SKILL.md":
        return "skill"
    if name.endswith(".instructions.md"):
        return "instruction"
    if name.endswith(".md"):
        return "markdown"
    if name.endswith(".json"):
        return "json"
    return None


def is_catalog_path(config: Config, relpath: str) -> bool:
    """Return whether a repository-relative file path belongs to the catalog."""
    if format_of(relpath) is None:
        return False
    if _skipped(relpath.rpartition("/")[0]):
        return False
    if _excluded(config, relpath):
        return False
    return any(_under(relpath, root) for root in config.roots)


def _skipped(folder: str) -> bool:
    """Return whether a repository-relative folder lies in a skipped directory."""
    return any(part in SKIP_DIRS for part in folder.split("/"))


def _excluded(config: Config, relpath: str) -> bool:
    return any(pattern.covers(glob, relpath) for glob in config.exclude)


def walked(
    config: Config, stamps: dict[str, tuple[int, int]] | None = None
) -> tuple[list[str], tuple[Diagnostic, ...]]:
    """Return the repository-relative catalog files under the roots, sorted, and what the
    walk found wrong (symlinks leading outside a root, no root at all); each file's stamp
    goes into `stamps` when given."""
    problems: list[Diagnostic] = []
    present = _walk(config, problems, stamps)
    if not any((config.root / pattern.clean(r)).exists() for r in config.roots):
        named = ", ".join(config.roots)
        problems.append(
            Diagnostic(
                ".",
                f"none of the catalog roots exists ({named}); set `roots` in kroute.toml",
                WARNING,
            )
        )
    return present, tuple(problems)


def _under(relpath: str, root: str) -> bool:
    root = pattern.clean(root)
    return root in ("", ".") or relpath == root or relpath.startswith(root + "/")


def _walk(
    config: Config,
    problems: list[Diagnostic],
    stamps: dict[str, tuple[int, int]] | None = None,
) -> list[str]:
    """Return the repository-relative catalog files under the roots, sorted, adding the
    walk's problems (symlinks leading outside their root) to `problems` and, when `stamps`
    is given, each file's stamp to it (None for a file that cannot be stat'ed).

    Symlinked directories are never walked (the tree they lead to is walked under its own
    root, or escapes); a symlinked file is read only when it stays inside its root."""
    base = config.root
    found: set[str] = set()
    for root in config.roots:
        top = base / pattern.clean(root) if pattern.clean(root) not in ("", ".") else base
        if top.is_file():
            rel = _relative(base, top)
            if rel is not None and is_catalog_path(config, rel):
                found.add(rel)
            continue
        prefix = _relative(base, top)
        if prefix is not None and not _skipped(prefix):
            _walk_root(config, top, "" if prefix == "." else prefix, found, problems, stamps)
    problems.sort(key=lambda d: d.path)
    return sorted(found)


def _walk_root(
    config: Config,
    top: Path,
    prefix: str,
    found: set[str],
    problems: list[Diagnostic],
    stamps: dict[str, tuple[int, int]] | None,
) -> None:
    """Add the catalog files of the directory `top` (repository-relative `prefix`) to
    `found`, and its escaping symlinks to `problems` (see `_walk`)."""
    pending = [(str(top), prefix)]
    while pending:
        directory, rel_dir = pending.pop()
        try:
            listing = os.scandir(directory)
        except OSError:
            continue
        with listing:
            for item in listing:
                rel = f"{rel_dir}/{item.name}" if rel_dir else item.name
                try:
                    is_dir = item.is_dir()
                except OSError:  # a symlink loop: a file whose read says so
                    is_dir = False
                if is_dir:
                    if item.name not in SKIP_DIRS and _stays(config, top, item, problems):
                        pending.append((item.path, rel))
                elif _is_catalog_file(config, top, item, rel, problems):
                    found.add(rel)
                    if stamps is not None:
                        try:
                            stamps[rel] = stamp_of(item.stat())
                        except OSError:
                            stamps.pop(rel, None)


def _stays(config: Config, top: Path, item: os.DirEntry[str], problems: list[Diagnostic]) -> bool:
    """Return whether a directory entry is walked into: not a symlink (one leading outside
    its root is added to `problems`: the tree it leads to is walked under its own root)."""
    if not item.is_symlink():
        return True
    target = _resolved(Path(item.path))
    if target is not None and _relative(top, target) is None:
        problems.append(_escape(config.root, Path(item.path)))
    return False


def _is_catalog_file(
    config: Config, top: Path, item: os.DirEntry[str], rel: str, problems: list[Diagnostic]
) -> bool:
    """Return whether a file met by the walk is a catalog file: a catalog format, not
    excluded, and (a symlink) staying inside its root; one escaping is added to `problems`."""
    # under this root and no skipped directory by how the walk got here: of
    # is_catalog_path, only the name and the excludes are left to ask
    if format_of(item.name) is None or _excluded(config, rel):
        return False
    if item.is_symlink():
        target = _resolved(Path(item.path))  # None for a loop: `read` says so
        if target is not None and _relative(top, target) is None:
            problems.append(_escape(config.root, Path(item.path)))
            return False
    return True


def escapes(config: Config, relpath: str) -> bool:
    """Return whether a catalog file resolves outside every root that holds it (False for a
    symlink loop, which `read` reports)."""
    resolved = _resolved(config.root / relpath)
    if resolved is None:
        return False
    for root in config.roots:
        top = _resolved(config.root / pattern.clean(root))
        if top is not None and _under(relpath, root) and _relative(top, resolved) is not None:
            return False
    return True


def _resolved(path: Path) -> Path | None:
    """Return `path` with its symlinks resolved, or None when they loop (Python before 3.13
    raises RuntimeError there, later ones OSError)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def _escape(base: Path, link: Path) -> Diagnostic:
    rel = _relative(base, link) or str(link)
    return Diagnostic(rel, "symlink leads outside its catalog root; skipped", WARNING)


def _relative(base: Path, path: Path) -> str | None:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        resolved, resolved_base = _resolved(path), _resolved(base)
        if resolved is None or resolved_base is None:
            return None
        try:
            return resolved.relative_to(resolved_base).as_posix()
        except ValueError:
            return None
