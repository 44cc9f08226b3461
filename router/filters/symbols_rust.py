"""Rust: what a file defines (items at any depth) and imports (`use`, `extern crate`).

Items inside `impl Trait for Type { ... }` do not count as definitions: their names
(`type Service`, `type Error`, `fn call`, `fn from`) belong to the trait, which the file
implements rather than defines, and they would otherwise turn imported traits' vocabulary
into the file's own. Inherent `impl Type { ... }` methods still count.
"""

from __future__ import annotations

import bisect
import re

from router.filters.symbols_common import (
    IDENT,
    IDENT_RE,
    MAX_STATEMENT,
    Extracted,
    Hit,
    Terminators,
    strip_c_comments,
)

_VIS = r"(?:pub(?:[ \t]*\([^)\n]*\))?[ \t]+)?"
_DEF = re.compile(
    r"^[ \t]*" + _VIS + r"(?:(?:default|async|unsafe|const|extern(?:[ \t]+\"[^\"\n]*\")?)"
    r"[ \t]+)*(?:fn|struct|enum|union|trait|type|const|static|mod)[ \t]+(?:mut[ \t]+)?"
    r"(?:r#)?(" + IDENT + r")",
    re.M,
)
_USE_START = re.compile(r"^[ \t]*+" + _VIS + r"use[ \t]++", re.M)
_SEMICOLON = re.compile(";")
_EXTERN_CRATE = re.compile(
    r"^[ \t]*" + _VIS + r"extern[ \t]+crate[ \t]+(" + IDENT + r")"
    r"(?:[ \t]+as[ \t]+(" + IDENT + r"))?[ \t]*;",
    re.M,
)
_IMPL = re.compile(r"^([ \t]*)(?:unsafe[ \t]+)?impl\b", re.M)
_BRACE_OR_SEMI = re.compile(r"[{;]")
_TRAIT_FOR = re.compile(r"\sfor\s+(?!<)")  # `impl X for T`, not a `for<'a>` bound
_MAX_IMPL_HEADER = 2000  # longer `impl ... {` headers (where clauses) are not real code
_USE_TOKEN = re.compile(r"\s+|::|[{},*]|(?:r#)?" + IDENT + r"|(.)", re.S)
_PATH_KEYWORDS = frozenset({"crate", "self", "super"})
_MAX_USE_DEPTH = 16  # deeper `{` nesting is not real code (and would exhaust the stack)


class _BadUseError(Exception):
    """A `use` statement that does not parse as a use tree (it is then ignored)."""


class _UseTree:
    """Recursive-descent reader of one Rust use tree: `a::b::{c, d::{self, E as F}, *}`."""

    def __init__(self, body: str) -> None:
        self.tokens: list[str] = []
        for match in _USE_TOKEN.finditer(strip_c_comments(body)):
            if match.group(1) is not None:
                raise _BadUseError(body)
            if not match.group(0).isspace():
                self.tokens.append(match.group(0).removeprefix("r#"))
        self.pos = 0
        self.depth = 0

    def peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def take(self) -> str:
        token = self.peek()
        if not token:
            raise _BadUseError("unexpected end")
        self.pos += 1
        return token

    def names(self) -> list[str]:
        """Return the names the whole statement brings into scope; raises _BadUseError."""
        found = self.tree(None)
        if self.pos != len(self.tokens):
            raise _BadUseError("trailing tokens")
        return found

    def tree(self, parent: str | None) -> list[str]:
        if self.peek() == "::":
            self.take()
        while True:
            token = self.take()
            if token == "{":
                return self.group(parent)
            if token == "*":
                return []
            if not IDENT_RE.fullmatch(token) or token == "as":
                raise _BadUseError(token)
            if self.peek() == "::":
                self.take()
                parent = parent if token == "self" else token
                continue
            if self.peek() == "as":
                self.take()
                alias = self.take()
                if not IDENT_RE.fullmatch(alias):
                    raise _BadUseError(alias)
                return [alias]
            name = parent if token == "self" else token
            if name is None or name in _PATH_KEYWORDS:
                return []
            return [name]

    def group(self, parent: str | None) -> list[str]:
        self.depth += 1
        if self.depth > _MAX_USE_DEPTH:
            raise _BadUseError("nested too deep")
        found: list[str] = []
        while self.peek() != "}":
            found.extend(self.tree(parent))
            if self.peek() == ",":
                self.take()
            elif self.peek() != "}":
                raise _BadUseError(self.peek())
        self.take()
        self.depth -= 1
        return found


def _closes_on_line(content: str, opening: int) -> int:
    """Return the offset of the `}` closing the `{` at `opening` on its own line, else -1."""
    line_end = content.find("\n", opening)
    depth = 0
    for offset in range(opening, len(content) if line_end < 0 else line_end):
        char = content[offset]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return offset
    return -1


def _trait_impl_spans(content: str) -> list[tuple[int, int]]:
    """Return (start, end) of each `impl Trait for Type { ... }` body, in order.

    The body ends at the first line that is the header's indentation followed by `}`
    (rustfmt layout); headers and bodies are found with bisected terminators, so the cost
    stays linear in the text.
    """
    stops = Terminators(_BRACE_OR_SEMI, content)
    closers: dict[str, Terminators] = {}
    spans: list[tuple[int, int]] = []
    for m in _IMPL.finditer(content):
        if spans and m.start() < spans[-1][1]:
            continue
        stop = stops.next(m.end())
        if stop < 0 or content[stop] != "{" or stop - m.end() > _MAX_IMPL_HEADER:
            continue
        if not _TRAIT_FOR.search(content, m.end(), stop):
            continue
        same_line = _closes_on_line(content, stop)
        if same_line >= 0:  # `impl Send for T {}` or a one-line body
            spans.append((stop, same_line))
            continue
        indent = m.group(1)
        if indent not in closers:
            closers[indent] = Terminators(
                re.compile("^" + re.escape(indent) + r"\}", re.M), content
            )
        end = closers[indent].next(stop)
        spans.append((stop, end if end >= 0 else len(content)))
    return spans


def _inside(spans: list[tuple[int, int]], starts: list[int], offset: int) -> bool:
    """Return whether `offset` lies in one of the disjoint, ordered `spans`."""
    index = bisect.bisect_right(starts, offset) - 1
    return index >= 0 and offset < spans[index][1]


def extract(content: str) -> Extracted:
    """Return Rust (definition hits, import hits)."""
    spans = _trait_impl_spans(content)
    starts = [start for start, _ in spans]
    defs = [
        (m.start(), 0, m.group(1))
        for m in _DEF.finditer(content)
        if not _inside(spans, starts, m.start())
    ]
    imps: list[Hit] = []
    ends = Terminators(_SEMICOLON, content)
    for m in _USE_START.finditer(content):
        end = ends.next(m.end())
        if end < 0 or end == m.end() or end - m.end() > MAX_STATEMENT:
            continue
        try:
            found = _UseTree(content[m.end() : end]).names()
        except _BadUseError:
            continue
        imps.extend((m.start(), i, name) for i, name in enumerate(found))
    for m in _EXTERN_CRATE.finditer(content):
        imps.append((m.start(), 0, m.group(2) or m.group(1)))
    return defs, imps
