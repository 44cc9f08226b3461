"""Go: column-0 declarations (gofmt) and imports, plus the `pkg.Name` uses of imports.

An import yields the name Go code uses (the alias, else the package segment) and then every
exported `alias.Name` the file uses (`metav1.ObjectMeta` gives `metav1`, then `ObjectMeta`),
since a chunk about `ObjectMeta` is about the imported package, not about this file.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from router.filters.symbols_common import IDENT, Extracted, Hit

_FUNC = re.compile(r"^func[ \t]*+(?:\([^)\n]*+\)[ \t]*+)?(" + IDENT + r")", re.M)
_NAME_LIST = IDENT + r"(?:[ \t]*,[ \t]*" + IDENT + r")*"
_DECL = re.compile(r"^(?:type|const|var)[ \t]+(" + _NAME_LIST + r")", re.M)
_DECL_OPEN = re.compile(r"^(?:type|const|var)[ \t]*+\(", re.M)
_GROUP_CLOSE = re.compile(r"^\)", re.M)
_GROUP_LINE = re.compile(r"^([ \t]*)(" + _NAME_LIST + r")", re.M)
_IMPORT_SPEC = r"(?:(" + IDENT + r"|\.)[ \t]+)?[\"`]([^\"`\n]+)[\"`]"
_IMPORT = re.compile(r"^import[ \t]+" + _IMPORT_SPEC, re.M)
_IMPORT_OPEN = re.compile(r"^import[ \t]*+\(", re.M)
_IMPORT_CLOSE = re.compile(r"\)")
_GROUP_SPEC = re.compile(r"^[ \t]*" + _IMPORT_SPEC, re.M)
_MAJOR_VERSION = re.compile(r"v[0-9]+")
_EXPORTED_USE = r"(?<![A-Za-z0-9_.])({names})\.([A-Z][A-Za-z0-9_]*)"


def _split_names(names: str) -> list[str]:
    return [name.strip() for name in names.split(",")]


def _groups(
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


def _defined(content: str) -> list[Hit]:
    hits: list[Hit] = [(m.start(), 0, m.group(1)) for m in _FUNC.finditer(content)]
    for m in _DECL.finditer(content):
        hits.extend((m.start(), i, name) for i, name in enumerate(_split_names(m.group(1))))
    for offset, body in _groups(content, _DECL_OPEN, _GROUP_CLOSE):
        lines = list(_GROUP_LINE.finditer(body))
        if not lines:
            continue
        # Only the group's own level: struct fields nested deeper are not declarations.
        level = min(len(line.group(1)) for line in lines)
        for line in lines:
            if len(line.group(1)) == level:
                names = _split_names(line.group(2))
                hits.extend((offset + line.start(), i, name) for i, name in enumerate(names))
    return hits


def _import_name(alias: str | None, path: str, content: str) -> str:
    """Return the name Go code uses for an import: the alias, else the package segment.

    A major-version suffix (`.../pgx/v5`) names the segment before it, unless the file
    itself writes `v5.` (Kubernetes API packages are really called `v1`).
    """
    if alias is not None:
        return "" if alias in ("_", ".") else alias
    segments = [segment for segment in path.split("/") if segment]
    if not segments:
        return ""
    last = segments[-1]
    used = re.search(r"(?<![A-Za-z0-9_.])" + last + r"\.[A-Za-z_]", content) is not None
    if len(segments) > 1 and _MAJOR_VERSION.fullmatch(last) and not used:
        return segments[-2]
    return last


def _imported(content: str) -> list[Hit]:
    hits: list[Hit] = [
        (m.start(), 0, _import_name(m.group(1), m.group(2), content))
        for m in _IMPORT.finditer(content)
    ]
    for offset, body in _groups(content, _IMPORT_OPEN, _IMPORT_CLOSE):
        for m in _GROUP_SPEC.finditer(body):
            name = _import_name(m.group(1), m.group(2), content)
            hits.append((offset + m.start(), 0, name))
    packages = sorted({name for _, _, name in hits if name}, key=len, reverse=True)
    if packages:
        uses = re.compile(_EXPORTED_USE.format(names="|".join(map(re.escape, packages))))
        hits.extend((m.start(), 1, m.group(2)) for m in uses.finditer(content))
    return hits


def extract(content: str) -> Extracted:
    """Return Go (definition hits, import hits)."""
    return _defined(content), _imported(content)
