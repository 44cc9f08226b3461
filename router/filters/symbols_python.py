"""Python: `def`/`class` at any depth, module-level names, and `import`/`from` imports.

Module-level assignments at column 0 count whatever their case (`current_app = ...`,
`g: "_AppCtxGlobals" = ...`, `MAX = 3`): they are what other modules import from this one.
Dunder names (`__init__`, `__setitem__`, `__all__`) never count: every class has them and
they belong to the language's protocols, not to the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from router.filters.symbols_common import IDENT, MAX_STATEMENT, Extracted, Hit, Terminators

_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(" + IDENT + r")", re.M)
_ASSIGNMENT = re.compile(r"^(" + IDENT + r")[ \t]*(?::[^=\n]*)?=(?!=)", re.M)
_TYPE_ALIAS = re.compile(r"^type[ \t]+(" + IDENT + r")[^=\n]*=", re.M)
_DUNDER = re.compile(r"__\w+__")
_FROM = re.compile(r"^[ \t]*+from[ \t]++(\.*+[A-Za-z0-9_.]*+)[ \t]++import[ \t]++(\(?)", re.M)
_CLOSE_PAREN = re.compile(r"\)")
_LINE_END = re.compile(r"\n")
_DOTTED_AS = r"[A-Za-z_][A-Za-z0-9_.]*(?:[ \t]+as[ \t]+" + IDENT + r")?"
_IMPORT = re.compile(
    r"^[ \t]*import[ \t]+(" + _DOTTED_AS + r"(?:[ \t]*,[ \t]*" + _DOTTED_AS + r")*)"
    r"[ \t]*(?:#[^\n]*)?$",
    re.M,
)
_ITEM = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)(?:\s+as\s+(" + IDENT + r"))?")
_COMMENT = re.compile(r"#[^\n]*")


def _defined(content: str) -> list[Hit]:
    hits: list[Hit] = []
    for pattern in (_DEF, _ASSIGNMENT, _TYPE_ALIAS):
        hits.extend(
            (m.start(), 0, m.group(1))
            for m in pattern.finditer(content)
            if not _DUNDER.fullmatch(m.group(1))
        )
    return hits


def _items(names: str, first_segment: bool) -> Iterator[str]:
    """Yield the bound name of each `name [as alias]` item in a comma list."""
    for item in _COMMENT.sub(" ", names).strip().strip("()").split(","):
        match = _ITEM.fullmatch(item.strip())
        if match is None:
            continue
        if match.group(2):
            yield match.group(2)
        else:
            dotted = match.group(1)
            yield dotted.split(".")[0] if first_segment else dotted.split(".")[-1]


def _imported(content: str) -> list[Hit]:
    text = content.replace("\\\n", "  ")  # join continuation lines, offsets unchanged
    hits: list[Hit] = []
    closes, ends = Terminators(_CLOSE_PAREN, text), Terminators(_LINE_END, text)
    for m in _FROM.finditer(text):
        if m.group(1) == "__future__":  # compiler switches, not names the code uses
            continue
        if m.group(2):  # a parenthesized list: up to the first `)`, within the bound
            stop = closes.next(m.end())
            if stop < 0 or stop - m.end() > MAX_STATEMENT:
                continue
        else:
            stop = ends.next(m.end())
            stop = len(text) if stop < 0 else stop
        names = _items(text[m.end() : stop], first_segment=False)
        hits.extend((m.start(), i, name) for i, name in enumerate(names))
    for m in _IMPORT.finditer(text):
        names = _items(m.group(1), first_segment=True)
        hits.extend((m.start(), i, name) for i, name in enumerate(names))
    return hits


def extract(content: str) -> Extracted:
    """Return Python (definition hits, import hits)."""
    return _defined(content), _imported(content)
