"""Symbols a source file defines and imports, read with line-anchored patterns.

One module per language (`symbols_rust`, `symbols_ts`, `symbols_go`, `symbols_python`);
this one picks the language and normalizes the text first: a leading BOM is dropped and
CRLF / CR line ends become LF, so such files give the same symbols as LF files. Only the
first MAX_SCAN_CHARS characters are read, which bounds the work per file.

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
- Python module-level assignments count whatever their case (`current_app`, `g`, `MAX`);
  3.12 `type X = ...` aliases count; dunders (`__setitem__`, `__all__`) never count.
- Rust items inside `impl Trait for Type { ... }` (`type Service`, `type Error`, `fn call`,
  `fn from`) do not count: the trait names them. CommonJS `var path = require('path')` is an
  import, not a definition.
- Imports yield the name the importing file uses: the alias when given. Rust `self` in a
  group yields the parent segment; globs `*` and `_` aliases yield nothing. Go yields the
  alias or the last path segment, but a major-version suffix (`.../pgx/v5`) yields the
  segment before it, the package name Go code uses (unless the file writes `v1.`); then
  every exported `pkg.Name` the file uses counts as imported too. Python `import m.n`
  yields `m` (the name Python binds); `import m.n as k` yields `k`. Case is kept
  (`use catalogd::Registry;`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from router.filters import symbols_go, symbols_python, symbols_rust, symbols_ts
from router.filters.symbols_common import Extracted, Hit, names

__all__ = ["MAX_SCAN_CHARS", "Symbols", "classify", "defined", "imported"]

# Text beyond this many characters is not read. Real source files that matter for a focus
# are far smaller (the definitions an agent edits sit in the first few thousand lines), and
# the bound keeps one pathological file (a 4 MB generated Rust file, 200k unterminated
# `import {` lines) from taking seconds (`bench.py`'s symbol extraction line says how long).
MAX_SCAN_CHARS = 128 * 1024
_BOM = "\ufeff"


@dataclass(frozen=True, slots=True)
class Symbols:
    """What a file defines and what it imports; a name in both is only in `defined`."""

    defined: tuple[str, ...]
    imported: tuple[str, ...]


_Extractor = Callable[[str], Extracted]
_ALL_LANGUAGES: tuple[_Extractor, ...] = (
    symbols_rust.extract,
    symbols_ts.extract,
    symbols_go.extract,
    symbols_python.extract,
)
_BY_EXTENSION: dict[str, _Extractor] = {
    extension: language
    for language, extensions in (
        (symbols_rust.extract, "rs"),
        (symbols_ts.extract, "ts tsx mts cts js jsx mjs cjs"),
        (symbols_go.extract, "go"),
        (symbols_python.extract, "py pyi"),
    )
    for extension in extensions.split()
}


def _language_of(path: str) -> _Extractor | None:
    """Return the language named by the path's extension (case-insensitive), if known."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    if "." not in base:
        return None
    return _BY_EXTENSION.get(base.rsplit(".", 1)[-1].lower())


def normalize(content: str) -> str:
    """Return the scanned part of `content`: bounded, without a leading BOM, LF line ends."""
    text = content[:MAX_SCAN_CHARS].removeprefix(_BOM)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _extract(content: str, path: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return (defined, imported) before the defined-wins rule; see the module docstring."""
    text = normalize(content)
    language = _language_of(path)
    if language is not None:
        defs, imps = language(text)
        if defs or imps:
            return names(defs), names(imps)
    all_defs: list[Hit] = []
    all_imps: list[Hit] = []
    for extract in _ALL_LANGUAGES:
        if extract is not language:  # it already found nothing; reading twice costs time
            defs, imps = extract(text)
            all_defs.extend(defs)
            all_imps.extend(imps)
    return names(all_defs), names(all_imps)


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
