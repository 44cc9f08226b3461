"""TypeScript / JavaScript: declarations at column 0 or exported; ES and CommonJS imports.

A CommonJS binding (`var path = require('path')`, `const { a, b: c } = require('x')`, and
in the same declaration `, join = path.join`) is an import, not a definition: the name is
the module the file uses.
"""

from __future__ import annotations

import re

from router.filters.symbols_common import (
    JS_IDENT,
    MAX_STATEMENT,
    Extracted,
    Hit,
    Terminators,
    strip_c_comments,
)

_DEF = re.compile(
    r"^(?P<indent>[ \t]*)(?P<export>export[ \t]+)?(?:(?:default|declare|abstract|async)[ \t]+)*"
    r"(?:function\b(?:[ \t]*\*)?[ \t]*|(?:class|interface|type|const[ \t]+enum|enum|const|let"
    r"|var|namespace)[ \t]+)(" + JS_IDENT + r")",
    re.M,
)
_IMPORT_START = re.compile(r"^[ \t]*+import[ \t]++(?=[^;'\"`])", re.M)
_IMPORT_STOP = re.compile(r"[;'\"`]")
_TYPE_ONLY = re.compile(r"type\s++(?=[{*A-Za-z_$])")
_CLAUSE = re.compile(
    r"\s*+(?:(?P<default>" + JS_IDENT + r")\s*+(?:,\s*+)?)?"
    r"(?:\{(?P<named>[^}]*+)\}|\*\s*+as\s++(?P<ns>" + JS_IDENT + r"))?\s*+",
    re.S,
)
_NAMED = re.compile(
    r"(?:type\s+)?(?P<name>" + JS_IDENT + r")(?:\s+as\s+(?P<alias>" + JS_IDENT + r"))?", re.S
)
# `name = require(` after `const/let/var` or after a declaration's `,` (also at line start).
_REQUIRE = re.compile(
    r"(?:^(?:export[ \t]+)?(?:const|let|var)[ \t]+|,[ \t]*)(" + JS_IDENT + r")[ \t]*=[ \t]*"
    r"require[ \t]*\(",
    re.M,
)
_REQUIRE_DESTRUCTURED = re.compile(
    r"^(?:export[ \t]+)?(?:const|let|var)[ \t]+\{([^}\n]*+)\}[ \t]*=[ \t]*require[ \t]*\(", re.M
)
# `, name = module.member` continuing a declaration, where `module` was required.
_MEMBER_ALIAS = re.compile(
    r"^[ \t]*,[ \t]*(" + JS_IDENT + r")[ \t]*=[ \t]*(" + JS_IDENT + r")\.", re.M
)


def _clause_names(clause: str) -> list[str]:
    """Return the local names an import clause (`X, {A, B as C}` / `* as NS`) binds."""
    match = _CLAUSE.fullmatch(strip_c_comments(clause))
    if match is None:
        return []
    found: list[str] = []
    if match.group("default"):
        found.append(match.group("default"))
    if match.group("ns"):
        found.append(match.group("ns"))
    for item in (match.group("named") or "").split(","):
        named = _NAMED.fullmatch(item.strip())
        if named is None:
            continue
        name = named.group("alias") or named.group("name")
        if name != "default":
            found.append(name)
    return found


def _es_imports(content: str) -> list[Hit]:
    hits: list[Hit] = []
    stops = Terminators(_IMPORT_STOP, content)
    for m in _IMPORT_START.finditer(content):
        stop = stops.next(m.end())
        if stop < 0 or content[stop] not in "'\"" or stop - m.end() > MAX_STATEMENT:
            continue
        body = content[m.end() : stop].rstrip()
        if not body.endswith("from") or len(body) < len("from") + 1:
            continue  # a side-effect import (`import "x"`) or not an import at all
        clause = body[: -len("from")]
        if not clause[-1:].isspace():
            continue
        clause = clause.strip()
        type_only = _TYPE_ONLY.match(clause)
        found = _clause_names(clause[type_only.end() :] if type_only else clause)
        hits.extend((m.start(), i, name) for i, name in enumerate(found))
    return hits


def _commonjs_imports(content: str) -> list[Hit]:
    hits: list[Hit] = [(m.start(1), 0, m.group(1)) for m in _REQUIRE.finditer(content)]
    for m in _REQUIRE_DESTRUCTURED.finditer(content):
        for i, item in enumerate(m.group(1).split(",")):
            local = item.split(":")[-1].strip()
            if re.fullmatch(JS_IDENT, local):
                hits.append((m.start(), i, local))
    required = {name for _, _, name in hits}
    hits.extend(
        (m.start(1), 0, m.group(1))
        for m in _MEMBER_ALIAS.finditer(content)
        if m.group(2) in required
    )
    return hits


def extract(content: str) -> Extracted:
    """Return TypeScript/JavaScript (definition hits, import hits)."""
    commonjs = _commonjs_imports(content)
    bound = {name for _, _, name in commonjs}
    imps = _es_imports(content) + commonjs
    defs = [
        (m.start(), 0, m.group(3))
        for m in _DEF.finditer(content)
        if (not m.group("indent") or m.group("export")) and m.group(3) not in bound
    ]
    return defs, imps
