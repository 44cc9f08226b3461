"""Symbols a source file defines and imports, read with line-anchored patterns.

Pure core: standard library only, no I/O. The relevance filter (DESIGN 8) uses these to tell
a chunk about what the focus file *is* from a chunk about what it merely *uses*.

Language by extension: `.rs` Rust; `.ts .tsx .mts .cts .js .jsx .mjs .cjs` TypeScript and
JavaScript; `.go` Go; `.py .pyi` Python. Fallback: when the extension is unknown, or when its
own patterns find nothing at all (no definition, no import), every language's patterns are
tried. Extensions lie (generated files, pasted snippets, DESIGN 8's headline pairs a `.go`
path with Rust text), and an empty answer would silently disable the symbol signals; trying
every language always would let one language's patterns misfire on another's code.

Choices (precision against recall):
- Patterns anchor at line start, so commented-out code (`// use x;`, `# import y`) does not
  count; a block comment or string line that starts like a declaration does.
- Rust and Python items count at any indentation (methods in `impl` blocks and classes are
  part of what a file defines). TypeScript/JavaScript declarations count at column 0 or when
  exported, so locals in function bodies (`const i = 0`) do not. Go declarations count at
  column 0 (gofmt): funcs, methods `func (r *T) Name`, and grouped `const/var/type (...)`.
- Python assignments count only for module-level ALL_CAPS names of 2+ characters (constants
  other modules name); 3.12 `type X = ...` aliases count.
- Imports yield the name the importing file uses: the alias when given. Rust `self` in a
  group yields the parent segment; globs `*` and `_` aliases yield nothing. Go yields the
  alias or the last path segment, but a major-version suffix (`.../pgx/v5`) yields the
  segment before it, the package name Go code uses. Python `import m.n` yields `m` (the name
  Python binds); `import m.n as k` yields `k`. Case is kept (`use catalogd::Registry;`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

__all__ = ["Symbols", "classify", "defined", "imported"]


@dataclass(frozen=True, slots=True)
class Symbols:
    """What a file defines and what it imports; a name in both is only in `defined`."""

    defined: tuple[str, ...]
    imported: tuple[str, ...]


# A hit is (offset in content, order within that statement, name); sorting hits gives
# first-occurrence order even when several languages' patterns are merged.
_Hit = tuple[int, int, str]
_Extractor = Callable[[str], list[_Hit]]

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_JS_IDENT = r"[A-Za-z_$][A-Za-z0-9_$]*"
_IDENT_RE = re.compile(_IDENT)
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
# Statement bodies are bounded so that text full of unterminated openers (`use x` with no
# `;`, `from m import (` with no `)`) costs O(length x bound), not O(length squared).
_MAX_STATEMENT = 2000
_BOUNDED = "{1," + str(_MAX_STATEMENT) + "}+"  # possessive: never backtracks
_LINE_COMMENT = re.compile(r"//[^\n]*")


def _names(hits: Iterable[_Hit]) -> tuple[str, ...]:
    """Return hit names in first-occurrence order, deduplicated, without `_` or empties."""
    seen: dict[str, None] = {}
    for _, _, name in sorted(hits, key=lambda hit: (hit[0], hit[1])):
        if name and name != "_":
            seen.setdefault(name, None)
    return tuple(seen)


def _strip_c_comments(text: str) -> str:
    """Return `text` without `/* */` and `//` comments (used inside one statement only)."""
    return _LINE_COMMENT.sub(" ", _BLOCK_COMMENT.sub(" ", text))


# --- Rust ----------------------------------------------------------------------------

_RUST_VIS = r"(?:pub(?:[ \t]*\([^)\n]*\))?[ \t]+)?"
_RUST_DEF = re.compile(
    r"^[ \t]*" + _RUST_VIS + r"(?:(?:default|async|unsafe|const|extern(?:[ \t]+\"[^\"\n]*\")?)"
    r"[ \t]+)*(?:fn|struct|enum|union|trait|type|const|static|mod)[ \t]+(?:mut[ \t]+)?"
    r"(?:r#)?(" + _IDENT + r")",
    re.M,
)
_RUST_USE = re.compile(r"^[ \t]*" + _RUST_VIS + r"use[ \t]+([^;]" + _BOUNDED + r");", re.M)
_RUST_EXTERN_CRATE = re.compile(
    r"^[ \t]*" + _RUST_VIS + r"extern[ \t]+crate[ \t]+(" + _IDENT + r")"
    r"(?:[ \t]+as[ \t]+(" + _IDENT + r"))?[ \t]*;",
    re.M,
)
_USE_TOKEN = re.compile(r"\s+|::|[{},*]|(?:r#)?" + _IDENT + r"|(.)", re.S)
_RUST_PATH_KEYWORDS = frozenset({"crate", "self", "super"})
_MAX_USE_DEPTH = 16  # deeper `{` nesting is not real code (and would exhaust the stack)


class _BadUse(Exception):
    """A `use` statement that does not parse as a use tree (it is then ignored)."""


class _UseTree:
    """Recursive-descent reader of one Rust use tree: `a::b::{c, d::{self, E as F}, *}`."""

    def __init__(self, body: str) -> None:
        self.tokens: list[str] = []
        for match in _USE_TOKEN.finditer(_strip_c_comments(body)):
            if match.group(1) is not None:
                raise _BadUse(body)
            if not match.group(0).isspace():
                self.tokens.append(match.group(0).removeprefix("r#"))
        self.pos = 0
        self.depth = 0

    def peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def take(self) -> str:
        token = self.peek()
        if not token:
            raise _BadUse("unexpected end")
        self.pos += 1
        return token

    def names(self) -> list[str]:
        """Return the names the whole statement brings into scope; raises _BadUse."""
        found = self.tree(None)
        if self.pos != len(self.tokens):
            raise _BadUse("trailing tokens")
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
            if not _IDENT_RE.fullmatch(token) or token == "as":
                raise _BadUse(token)
            if self.peek() == "::":
                self.take()
                parent = parent if token == "self" else token
                continue
            if self.peek() == "as":
                self.take()
                alias = self.take()
                if not _IDENT_RE.fullmatch(alias):
                    raise _BadUse(alias)
                return [alias]
            name = parent if token == "self" else token
            if name is None or name in _RUST_PATH_KEYWORDS:
                return []
            return [name]

    def group(self, parent: str | None) -> list[str]:
        self.depth += 1
        if self.depth > _MAX_USE_DEPTH:
            raise _BadUse("nested too deep")
        found: list[str] = []
        while self.peek() != "}":
            found.extend(self.tree(parent))
            if self.peek() == ",":
                self.take()
            elif self.peek() != "}":
                raise _BadUse(self.peek())
        self.take()
        self.depth -= 1
        return found


def _rust_defined(content: str) -> list[_Hit]:
    return [(m.start(), 0, m.group(1)) for m in _RUST_DEF.finditer(content)]


def _rust_imported(content: str) -> list[_Hit]:
    hits: list[_Hit] = []
    for m in _RUST_USE.finditer(content):
        try:
            names = _UseTree(m.group(1)).names()
        except _BadUse:
            continue
        hits.extend((m.start(), i, name) for i, name in enumerate(names))
    for m in _RUST_EXTERN_CRATE.finditer(content):
        hits.append((m.start(), 0, m.group(2) or m.group(1)))
    return hits


# --- TypeScript / JavaScript ---------------------------------------------------------

_TS_DEF = re.compile(
    r"^(?P<indent>[ \t]*)(?P<export>export[ \t]+)?(?:(?:default|declare|abstract|async)[ \t]+)*"
    r"(?:function\b(?:[ \t]*\*)?[ \t]*|(?:class|interface|type|const[ \t]+enum|enum|const|let"
    r"|var|namespace)[ \t]+)(" + _JS_IDENT + r")",
    re.M,
)
# `import <body>'` up to the first quote; the body must then end in `from` (see _ts_imported).
_TS_IMPORT = re.compile(r"^[ \t]*+import[ \t]++([^;'\"`]" + _BOUNDED + r")['\"]", re.M)
_TS_FROM_TAIL = re.compile(r"\sfrom\s*+$")
_TS_TYPE_ONLY = re.compile(r"type\s++(?=[{*A-Za-z_$])")
_TS_CLAUSE = re.compile(
    r"\s*+(?:(?P<default>" + _JS_IDENT + r")\s*+(?:,\s*+)?)?"
    r"(?:\{(?P<named>[^}]*+)\}|\*\s*+as\s++(?P<ns>" + _JS_IDENT + r"))?\s*+",
    re.S,
)
_TS_NAMED = re.compile(
    r"(?:type\s+)?(?P<name>" + _JS_IDENT + r")(?:\s+as\s+(?P<alias>" + _JS_IDENT + r"))?", re.S
)


def _ts_defined(content: str) -> list[_Hit]:
    return [
        (m.start(), 0, m.group(3))
        for m in _TS_DEF.finditer(content)
        if not m.group("indent") or m.group("export")
    ]


def _ts_clause_names(clause: str) -> list[str]:
    """Return the local names an import clause (`X, {A, B as C}` / `* as NS`) binds."""
    match = _TS_CLAUSE.fullmatch(_strip_c_comments(clause))
    if match is None:
        return []
    names: list[str] = []
    if match.group("default"):
        names.append(match.group("default"))
    if match.group("ns"):
        names.append(match.group("ns"))
    for item in (match.group("named") or "").split(","):
        named = _TS_NAMED.fullmatch(item.strip())
        if named is None:
            continue
        name = named.group("alias") or named.group("name")
        if name != "default":
            names.append(name)
    return names


def _ts_imported(content: str) -> list[_Hit]:
    hits: list[_Hit] = []
    for m in _TS_IMPORT.finditer(content):
        body = m.group(1)
        tail = _TS_FROM_TAIL.search(body)
        if tail is None:
            continue  # a side-effect import (`import "x"`) or not an import at all
        clause = body[: tail.start()].strip()
        type_only = _TS_TYPE_ONLY.match(clause)
        names = _ts_clause_names(clause[type_only.end() :] if type_only else clause)
        hits.extend((m.start(), i, name) for i, name in enumerate(names))
    return hits


# --- Go ------------------------------------------------------------------------------

_GO_FUNC = re.compile(r"^func[ \t]*+(?:\([^)\n]*+\)[ \t]*+)?(" + _IDENT + r")", re.M)
_GO_NAME_LIST = _IDENT + r"(?:[ \t]*,[ \t]*" + _IDENT + r")*"
_GO_DECL = re.compile(r"^(?:type|const|var)[ \t]+(" + _GO_NAME_LIST + r")", re.M)
_GO_DECL_OPEN = re.compile(r"^(?:type|const|var)[ \t]*+\(", re.M)
_GO_GROUP_CLOSE = re.compile(r"^\)", re.M)
_GO_GROUP_LINE = re.compile(r"^([ \t]*)(" + _GO_NAME_LIST + r")", re.M)
_GO_IMPORT_SPEC = r"(?:(" + _IDENT + r"|\.)[ \t]+)?[\"`]([^\"`\n]+)[\"`]"
_GO_IMPORT = re.compile(r"^import[ \t]+" + _GO_IMPORT_SPEC, re.M)
_GO_IMPORT_OPEN = re.compile(r"^import[ \t]*+\(", re.M)
_GO_IMPORT_CLOSE = re.compile(r"\)")
_GO_GROUP_SPEC = re.compile(r"^[ \t]*" + _GO_IMPORT_SPEC, re.M)
_GO_MAJOR_VERSION = re.compile(r"v[0-9]+")


def _split_names(names: str) -> list[str]:
    return [name.strip() for name in names.split(",")]


def _go_groups(
    content: str, opener: re.Pattern[str], closer: re.Pattern[str]
) -> Iterator[tuple[int, str]]:
    """Yield (offset, body) of each `opener ... closer` group, groups disjoint.

    Closers are found once and bisected, and an opener inside the previous group is skipped
    (Go groups do not nest), so the cost stays linear whatever the text.
    """
    closes = [m.start() for m in closer.finditer(content)]
    end = -1
    for m in opener.finditer(content):
        if m.start() < end:
            continue
        index = bisect.bisect_left(closes, m.end())
        if index == len(closes):
            return
        end = closes[index]
        yield m.end(), content[m.end() : end]


def _go_defined(content: str) -> list[_Hit]:
    hits: list[_Hit] = [(m.start(), 0, m.group(1)) for m in _GO_FUNC.finditer(content)]
    for m in _GO_DECL.finditer(content):
        hits.extend((m.start(), i, name) for i, name in enumerate(_split_names(m.group(1))))
    for offset, body in _go_groups(content, _GO_DECL_OPEN, _GO_GROUP_CLOSE):
        lines = list(_GO_GROUP_LINE.finditer(body))
        if not lines:
            continue
        # Only the group's own level: struct fields nested deeper are not declarations.
        level = min(len(line.group(1)) for line in lines)
        for line in lines:
            if len(line.group(1)) == level:
                names = _split_names(line.group(2))
                hits.extend((offset + line.start(), i, name) for i, name in enumerate(names))
    return hits


def _go_import_name(alias: str | None, path: str) -> str:
    """Return the name Go code uses for an import: the alias, else the package segment."""
    if alias is not None:
        return "" if alias in ("_", ".") else alias
    segments = [segment for segment in path.split("/") if segment]
    if not segments:
        return ""
    if len(segments) > 1 and _GO_MAJOR_VERSION.fullmatch(segments[-1]):
        return segments[-2]
    return segments[-1]


def _go_imported(content: str) -> list[_Hit]:
    hits: list[_Hit] = [
        (m.start(), 0, _go_import_name(m.group(1), m.group(2)))
        for m in _GO_IMPORT.finditer(content)
    ]
    for offset, body in _go_groups(content, _GO_IMPORT_OPEN, _GO_IMPORT_CLOSE):
        for m in _GO_GROUP_SPEC.finditer(body):
            hits.append((offset + m.start(), 0, _go_import_name(m.group(1), m.group(2))))
    return hits


# --- Python --------------------------------------------------------------------------

_PY_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(" + _IDENT + r")", re.M)
_PY_CONSTANT = re.compile(r"^(_*[A-Z][A-Z0-9_]+)[ \t]*(?::[^=\n]*)?=(?!=)", re.M)
_PY_TYPE_ALIAS = re.compile(r"^type[ \t]+(" + _IDENT + r")[^=\n]*=", re.M)
_PY_FROM = re.compile(
    r"^[ \t]*+from[ \t]++(\.*+[A-Za-z0-9_.]*+)[ \t]++import[ \t]++"
    r"(\([^)]" + _BOUNDED + r"\)|[^\n]*+)",
    re.M,
)
_PY_DOTTED_AS = r"[A-Za-z_][A-Za-z0-9_.]*(?:[ \t]+as[ \t]+" + _IDENT + r")?"
_PY_IMPORT = re.compile(
    r"^[ \t]*import[ \t]+(" + _PY_DOTTED_AS + r"(?:[ \t]*,[ \t]*" + _PY_DOTTED_AS + r")*)"
    r"[ \t]*(?:#[^\n]*)?$",
    re.M,
)
_PY_ITEM = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)(?:\s+as\s+(" + _IDENT + r"))?")
_PY_COMMENT = re.compile(r"#[^\n]*")


def _py_defined(content: str) -> list[_Hit]:
    hits: list[_Hit] = []
    for pattern in (_PY_DEF, _PY_CONSTANT, _PY_TYPE_ALIAS):
        hits.extend((m.start(), 0, m.group(1)) for m in pattern.finditer(content))
    return hits


def _py_items(names: str, first_segment: bool) -> Iterator[str]:
    """Yield the bound name of each `name [as alias]` item in a comma list."""
    for item in _PY_COMMENT.sub(" ", names).strip().strip("()").split(","):
        match = _PY_ITEM.fullmatch(item.strip())
        if match is None:
            continue
        if match.group(2):
            yield match.group(2)
        else:
            dotted = match.group(1)
            yield dotted.split(".")[0] if first_segment else dotted.split(".")[-1]


def _py_imported(content: str) -> list[_Hit]:
    text = content.replace("\\\n", "  ")  # join continuation lines, offsets unchanged
    hits: list[_Hit] = []
    for m in _PY_FROM.finditer(text):
        if m.group(1) == "__future__":  # compiler switches, not names the code uses
            continue
        names = _py_items(m.group(2), first_segment=False)
        hits.extend((m.start(), i, name) for i, name in enumerate(names))
    for m in _PY_IMPORT.finditer(text):
        names = _py_items(m.group(1), first_segment=True)
        hits.extend((m.start(), i, name) for i, name in enumerate(names))
    return hits


# --- language choice -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Language:
    defined: _Extractor
    imported: _Extractor


_RUST = _Language(_rust_defined, _rust_imported)
_TYPESCRIPT = _Language(_ts_defined, _ts_imported)
_GO = _Language(_go_defined, _go_imported)
_PYTHON = _Language(_py_defined, _py_imported)
_ALL_LANGUAGES = (_RUST, _TYPESCRIPT, _GO, _PYTHON)
_BY_EXTENSION = {
    extension: language
    for language, extensions in (
        (_RUST, "rs"),
        (_TYPESCRIPT, "ts tsx mts cts js jsx mjs cjs"),
        (_GO, "go"),
        (_PYTHON, "py pyi"),
    )
    for extension in extensions.split()
}


def _language_of(path: str) -> _Language | None:
    """Return the language named by the path's extension (case-insensitive), if known."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    if "." not in base:
        return None
    return _BY_EXTENSION.get(base.rsplit(".", 1)[-1].lower())


def _extract(content: str, path: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return (defined, imported) before the defined-wins rule; see the module docstring."""
    language = _language_of(path)
    if language is not None:
        defs, imps = language.defined(content), language.imported(content)
        if defs or imps:
            return _names(defs), _names(imps)
    all_defs = [hit for lang in _ALL_LANGUAGES for hit in lang.defined(content)]
    all_imps = [hit for lang in _ALL_LANGUAGES for hit in lang.imported(content)]
    return _names(all_defs), _names(all_imps)


def defined(content: str, path: str) -> tuple[str, ...]:
    """Return what `content` defines (language by `path`), first occurrence first; no raise."""
    return _extract(content, path)[0]


def imported(content: str, path: str) -> tuple[str, ...]:
    """Return the names `content` imports, first occurrence first (also defined ones); no raise."""
    return _extract(content, path)[1]


def classify(content: str, path: str) -> Symbols:
    """Return defined and imported symbols, a name in both counting as defined; no raise."""
    defs, imps = _extract(content, path)
    own = set(defs)
    return Symbols(defined=defs, imported=tuple(name for name in imps if name not in own))
