"""Shared pieces of the per-language symbol readers (router.filters.symbols_*).

Pure: standard library only, no I/O.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable

# A hit is (offset in content, order within that statement, name); sorting hits gives
# first-occurrence order even when several languages' patterns are merged.
Hit = tuple[int, int, str]
# What one language reads from one file: (definition hits, import hits).
Extracted = tuple[list[Hit], list[Hit]]

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
JS_IDENT = r"[A-Za-z_$][A-Za-z0-9_$]*"
IDENT_RE = re.compile(IDENT)
# Statement bodies are bounded so that text full of unterminated openers (`use x` with no
# `;`, `from m import (` with no `)`) costs O(length x bound), not O(length squared).
MAX_STATEMENT = 2000
BOUNDED = "{1," + str(MAX_STATEMENT) + "}+"  # possessive: never backtracks
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"//[^\n]*")


def names(hits: Iterable[Hit]) -> tuple[str, ...]:
    """Return hit names in first-occurrence order, deduplicated, without `_` or empties."""
    seen: dict[str, None] = {}
    for _, _, name in sorted(hits, key=lambda hit: (hit[0], hit[1])):
        if name and name != "_":
            seen.setdefault(name, None)
    return tuple(seen)


def strip_c_comments(text: str) -> str:
    """Return `text` without `/* */` and `//` comments (used inside one statement only)."""
    return _LINE_COMMENT.sub(" ", _BLOCK_COMMENT.sub(" ", text))


class Terminators:
    """Offsets of every match of one pattern, found once; `next(at)` bisects.

    Readers that need "the first terminator after this opener" ask here instead of scanning
    forward from every opener, so a file of openers without terminators stays linear.
    """

    def __init__(self, pattern: re.Pattern[str], content: str) -> None:
        self.offsets = [m.start() for m in pattern.finditer(content)]

    def next(self, at: int) -> int:
        """Return the first offset >= `at`, or -1 when there is none."""
        index = bisect.bisect_left(self.offsets, at)
        return self.offsets[index] if index < len(self.offsets) else -1
