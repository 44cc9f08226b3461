"""YAML front matter: find it, parse it, and read Cursor's unquoted globs as Cursor does."""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

try:  # the C loader is several times faster; fall back where libyaml is missing
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

_FENCE = re.compile(r"^---[ \t]*$")
_END = re.compile(r"^(---|\.\.\.)[ \t]*$")
# A value (or list item) that begins with `*`: strict YAML reads it as an alias, while Cursor
# reads `globs: **/*.py` and `globs: *.vue, *.jsx` as globs.
_BARE_STAR = re.compile(r"^(\s*(?:[\w.-]+:|-)\s+)(\*[^#\n]*?)\s*$")


class FrontMatterError(ValueError):
    """Front matter that is not YAML or not a mapping; `line` is the file's 1-based line."""

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """A parsed front-matter block."""

    meta: dict[str, object]
    lenient_lines: tuple[int, ...] = ()  # file lines read by the Cursor fallback


def split(text: str) -> str | None:
    """Return the front-matter text of a Markdown file, or None when it has none.

    Raises FrontMatterError when the opening fence has no closing one."""
    lines = text.splitlines()
    if not lines or not _FENCE.match(lines[0].lstrip("\ufeff")):
        return None
    for number, line in enumerate(lines[1:], start=1):
        if _END.match(line):
            return "\n".join(lines[1:number])
    raise FrontMatterError("front matter opened with `---` is never closed", 1)


def parse(block: str) -> FrontMatter:
    """Return the mapping of a front-matter block (the text between the fences).

    An empty block is an empty mapping. Raises FrontMatterError with the file line of the
    YAML error, or when the block is not a mapping."""
    try:
        meta = yaml.load(block, Loader=_Loader) if block.strip() else {}
        lenient: tuple[int, ...] = ()
    except yaml.YAMLError as strict_error:
        quoted, lenient = _quote_bare_stars(block)
        if not lenient:
            raise _problem(strict_error, block) from None
        try:
            meta = yaml.load(quoted, Loader=_Loader)
        except yaml.YAMLError as lenient_error:
            # quoting keeps every line where it was, so this error's line is the file's
            raise _problem(lenient_error, quoted) from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise FrontMatterError(
            f"front matter must be a mapping of fields, not a {type(meta).__name__}", 2
        )
    return FrontMatter({str(k): v for k, v in meta.items()}, lenient)


def _quote_bare_stars(block: str) -> tuple[str, tuple[int, ...]]:
    """Return the block with each bare `*...` value single-quoted, and the file lines changed."""
    out, changed = [], []
    for number, line in enumerate(block.splitlines(), start=2):
        match = _BARE_STAR.match(line)
        if match:
            value = match.group(2).replace("'", "''")
            line = f"{match.group(1)}'{value}'"
            changed.append(number)
        out.append(line)
    return "\n".join(out), tuple(changed)


def _problem(error: yaml.YAMLError, block: str) -> FrontMatterError:
    mark = getattr(error, "problem_mark", None)
    context_mark = getattr(error, "context_mark", None)
    # An unclosed bracket or quote is found only at the end of the block; the line where it
    # opened is the one to fix.
    at_end = mark is None or mark.index >= len(block.rstrip())
    if context_mark is not None and at_end:
        mark = context_mark
    line = mark.line + 2 if mark is not None else None  # +1 for 1-based, +1 for the fence
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    context = getattr(error, "context", None)
    text = f"{context}, {problem}" if context else str(problem)
    return FrontMatterError(f"front matter is not valid YAML: {text}", line)
