"""Path globs as shelves, `exclude` and `governs` targets use them.

Semantics (gitignore-like, which is how Cursor, Copilot and most repositories read them):
- `**` spans any number of directories, `*` and `?` stay inside one, `{a,b}` and `[..]` as
  usual; a leading `/` or `./` anchors to the repository root (every pattern is anchored).
- A pattern without `/` that holds a wildcard (`*.py`) matches the base name at any depth.
- A pattern covers a path when it matches the path or one of its parent directories, so a
  directory target (`migrations/`, `src/ingest`) covers everything below it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_WILDCARDS = frozenset("*?[{")
# Patterns that cover every path say nothing about a particular file, so they never make a
# named anchor (a Cursor rule with `globs: **/*` is an always-apply rule in disguise).
UNIVERSAL = frozenset({"*", "**", "**/*", "**/**", "*/**", "**/*.*"})


def clean(pattern: str) -> str:
    """Return a pattern or path in canonical form: `/` separators, no leading `./` or `/`,
    no trailing `/`, no doubled `/`."""
    pattern = pattern.strip().replace("\\", "/")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    pattern = re.sub(r"/{2,}", "/", pattern).strip("/")
    return pattern


def is_universal(pattern: str) -> bool:
    """Return whether the pattern covers every path."""
    return clean(pattern) in UNIVERSAL


# A pattern rooted nowhere that keeps files by their extension alone (`**/*.py`, `*.tsx`,
# `**/*.{ts,tsx}`) covers every file of a language: it says which files a rule is for, not
# what a task naming one of them is about.
_LANGUAGE_WIDE = re.compile(r"(?:\*\*/)?\*\.(?:\w+|\{\w+(?:,\w+)*\})")


def is_language_wide(pattern: str) -> bool:
    """Return whether the pattern keeps every file of some extensions, wherever it lies."""
    return compile(pattern).language_wide


@dataclass(frozen=True, slots=True)
class Matcher:
    """A compiled pattern."""

    pattern: str
    literal: bool
    regex: re.Pattern[str] | None
    basename: bool
    language_wide: bool = False
    # the pattern's folders before its first wildcard: every path it covers starts with them, so
    # a path that does not is turned away before any regex runs (a shelf table is tried
    # against every file of a catalog)
    head: str = ""

    def covers(self, path: str) -> bool:
        """Return whether the pattern matches `path` (canonical form) or a parent of it."""
        if self.literal:
            return path == self.pattern or path.startswith(self.pattern + "/")
        assert self.regex is not None
        if not path.startswith(self.head):
            return False
        if self.basename:
            return any(self.regex.fullmatch(part) for part in path.split("/"))
        if self.regex.fullmatch(path):
            return True
        parts = path.split("/")
        return any(self.regex.fullmatch("/".join(parts[:i])) for i in range(1, len(parts)))


@functools.lru_cache(maxsize=8192)
def compile(pattern: str) -> Matcher:
    """Return the matcher of a glob or literal path."""
    text = clean(pattern)
    if not _WILDCARDS.intersection(text):
        return Matcher(text, True, None, False)
    wide = bool(_LANGUAGE_WIDE.fullmatch(text))
    basename = "/" not in text
    # to the last `/` before the first wildcard: `site/**` covers `site` itself
    literal = text[: min(text.find(c) for c in _WILDCARDS if c in text)]
    head = "" if basename else literal[: max(literal.rfind("/"), 0)]
    return Matcher(text, False, re.compile(_translate(text)), basename, wide, head)


def covers(pattern: str, path: str) -> bool:
    """Return whether `pattern` covers the canonical repository-relative `path`."""
    return compile(pattern).covers(path)


def _translate(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == n:
            out.append("(?:/.*)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "{":
            end = glob.find("}", i)
            if end == -1:
                out.append(re.escape(c))
                i += 1
            else:
                options = glob[i + 1 : end].split(",")
                out.append("(?:" + "|".join(_translate(o) for o in options) + ")")
                i = end + 1
        elif c == "[":
            end = glob.find("]", i + 1)
            if end == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = glob[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)
