"""YAML front matter: find it, parse it, and read what strict YAML rejects as the tools do.

Two lenient readings run only after strict YAML (libyaml's C loader) has failed:

- Cursor's unquoted globs (`globs: **/*.py`), which strict YAML reads as aliases;
- plain values holding `: ` (`title: ADR003: Avoid Default Exports`), common in the front
  matter of decision records written for documentation sites, which strict YAML reads as a
  second mapping; the reader means the rest of the line.

Hostile YAML is refused: aliases that would expand a small block into a huge or recursive
value never reach the catalog.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

try:  # the C loader is several times faster; fall back where libyaml is missing
    from yaml import CSafeLoader as _Base
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Base  # type: ignore[assignment]

_FENCE = re.compile(r"^---[ \t]*$")
_END = re.compile(r"^(---|\.\.\.)[ \t]*$")
# A value (or list item) that begins with `*`: strict YAML reads it as an alias, while Cursor
# reads `globs: **/*.py` and `globs: *.vue, *.jsx` as globs.
_BARE_STAR = re.compile(r"^(\s*(?:[\w.-]+:|-)\s+)(\*[^#\n]*?)\s*$")
_ANCHOR = re.compile(r"(?:^|[\s\[{,])&([^\s\[\]{},]+)")  # `&name`, which a later `*name` uses
# A `key: value` line (top level, nested, or after block-sequence dashes) whose value starts
# like a plain scalar: not a quote, flow collection, block scalar, anchor, alias, tag,
# comment or reserved indicator, nor `-`, `?`, `:` followed by a space.
_KEY_VALUE = re.compile(
    r"""
    (?P<head>
      (?P<lead>[ ]*(?:-[ ]+)*)                  # indentation, then any `- ` dashes
      (?:"[^"\\\n]*"|'[^'\n]*'                  # a quoted key, or a plain one whose `:`s
        |(?:[^\s#'"\[\]{},&*!|>%@`?:-]|[?:-](?=\S))(?:[^:#\n]|:(?=\S)|(?<=\S)\#)*?
      )                                         #   are not followed by a space
      :[ \t]+
    )
    (?P<value>(?:[^\s#'"\[\]{},&*!|>%@`?:-]|[?:-](?=\S)).*)
    """,
    re.VERBOSE,
)
# `: ` (or `:` at the end) inside a plain scalar: strict YAML starts a mapping there.
_INNER_COLON = re.compile(r":(?:[ \t]|$)")
# What may precede the `*` of an alias, besides white space; a `*` after anything else (as
# in the quoted glob '**/*.py') is text.
_BEFORE_ALIAS = "[{,:\ufeff"

# Aliases are bounded rather than refused: front matter does use `<<: *defaults` and list
# anchors (`governs: &paths [...]`, then `*paths`). What a bomb needs is many aliases or
# aliases standing for much, so both are bounded. The event stream is checked before
# anything is built, which costs microseconds however large the expansion would be.
MAX_ALIASES = 64  # alias uses in one block; `<<: *defaults` a few times is far below
# What the aliases of one block may stand for once expanded: a collection counts 1, a
# scalar 1 plus its length, so a bomb of many small values and one of a few long texts
# (`s: &s <60 KiB>`, then `[*s, *s, ...]`) are both refused; no more than a block may hold
# written out.
MAX_ALIAS_EXPANSION = 64 * 1024
# Characters in one block. The largest front matter of the corpora is under 3 KiB; parsing
# costs about a millisecond per KiB, and the lenient readings reparse, so a block of the
# whole 1 MiB a file may hold took 2 s.
MAX_BLOCK_CHARS = 64 * 1024


class FrontMatterError(ValueError):
    """Front matter that is not YAML or not a mapping; `line` is the file's 1-based line."""

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """A parsed front-matter block.

    `lenient_lines` and `colon_lines` are the file lines (1-based, the opening fence is line 1)
    read by the Cursor glob fallback and by the `: `-in-a-value fallback."""

    meta: dict[str, object]
    lenient_lines: tuple[int, ...] = ()  # file lines read by the Cursor fallback
    colon_lines: tuple[int, ...] = ()  # file lines whose value held an unquoted `: `


# What PyYAML's safe constructors raise, besides YAMLError, on values such as `2024-13-45`,
# `0x_` or `!!int x`.
_BUILD_ERRORS = (ArithmeticError, AttributeError, LookupError, TypeError, ValueError)


class _CheckedLoader(_Base):
    """The safe loader, with every failure to build a value raised as a ConstructorError
    carrying the node's mark. Used only to find the line once the fast loader has failed."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except _BUILD_ERRORS as error:
            tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
            value = node.value if isinstance(node, yaml.ScalarNode) else getattr(node, "id", "node")
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read {value!r} as {tag} ({error})", node.start_mark
            ) from error


def split(text: str) -> str | None:
    """Return the front-matter text of a Markdown file, or None when it has none.

    A byte-order mark before the opening `---` is ignored, so text decoded as `utf-8` rather
    than `utf-8-sig` splits the same. Raises FrontMatterError (line 1) when the opening fence
    has no closing one."""
    return parts(text)[0]


def parts(text: str) -> tuple[str | None, str]:
    """Return (the front-matter text or None, the body after the closing fence or the whole
    text). Raises FrontMatterError as `split` does."""
    lines = text.splitlines()
    if not lines or not _FENCE.match(lines[0].lstrip("\ufeff")):
        return None, text
    for number, line in enumerate(lines[1:], start=1):
        if _END.match(line):
            return "\n".join(lines[1:number]), "\n".join(lines[number + 1 :])
    raise FrontMatterError("front matter opened with `---` is never closed", 1)


def parse(block: str) -> FrontMatter:
    """Return the mapping of a front-matter block (the text between the fences).

    An empty block is an empty mapping. Strict YAML comes first; only when it fails are
    Cursor's bare globs and plain values holding `: ` quoted, the block parsed again, and the
    changed file lines returned in `lenient_lines` and `colon_lines`.

    Raises FrontMatterError with the file line when the block is not YAML even so, when it is
    not a mapping, when it is longer than MAX_BLOCK_CHARS (line 1), or when its aliases would
    expand too far or refer to themselves."""
    if len(block) > MAX_BLOCK_CHARS:
        raise FrontMatterError(
            f"front matter is {len(block)} characters, over the {MAX_BLOCK_CHARS // 1024} KiB "
            "limit; move the long values into the body",
            1,
        )
    if not block.strip():
        return FrontMatter({})
    lenient: tuple[int, ...] = ()
    colon: tuple[int, ...] = ()
    try:
        meta = _load(block)
    except yaml.YAMLError as strict_error:
        meta, lenient, colon = _load_leniently(block, strict_error)
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise FrontMatterError(
            f"front matter must be a mapping of fields, not a {type(meta).__name__}", 2
        )
    return FrontMatter({str(k): v for k, v in meta.items()}, lenient, colon)


def _load(text: str) -> Any:
    """Return the YAML value of `text`, after refusing alias abuse when it may hold aliases.

    Raises yaml.YAMLError when it is not YAML, FrontMatterError on alias abuse."""
    if _may_hold_aliases(text):
        _refuse_alias_abuse(text)
    try:
        return yaml.load(text, Loader=_Base)
    except _BUILD_ERRORS:
        pass
    try:  # again, to learn which value could not be built, and where
        return yaml.load(text, Loader=_CheckedLoader)
    except _BUILD_ERRORS as error:  # pragma: no cover - raised outside construct_object
        raise yaml.constructor.ConstructorError(
            None, None, f"cannot read a value ({error})", None
        ) from error


def _may_hold_aliases(text: str) -> bool:
    """Return whether `text` has a `*` where a YAML alias could begin: at the start, after
    white space, or after a flow indicator. Most blocks have no `*` at all."""
    at = text.find("*")
    while at >= 0:
        if at == 0 or text[at - 1].isspace() or text[at - 1] in _BEFORE_ALIAS:
            return True
        at = text.find("*", at + 1)
    return False


def _load_leniently(
    block: str, strict_error: yaml.YAMLError
) -> tuple[Any, tuple[int, ...], tuple[int, ...]]:
    """Return the value of a block strict YAML rejected, with bare globs and plain values
    holding `: ` quoted, and the file lines of each kind that were changed.

    Raises FrontMatterError: the strict error when nothing could be quoted, else the error of
    the quoted block (quoting keeps every line where it was, so its line is the file's)."""
    text, lenient = _quote_bare_stars(block)
    text, colon = _quote_colon_values(text)
    if not lenient and not colon:
        raise _problem(strict_error, block) from None
    try:
        return _load(text), lenient, colon
    except yaml.YAMLError as error:
        if lenient and colon:  # a quoted "value" may have been text inside another scalar
            globs_only, _ = _quote_bare_stars(block)
            try:
                return _load(globs_only), lenient, ()
            except yaml.YAMLError:
                pass
        raise _problem(error, text) from None


def _quote_bare_stars(block: str) -> tuple[str, tuple[int, ...]]:
    """Return the block with each bare `*...` value single-quoted, and the file lines changed."""
    out: list[str] = []
    changed: list[int] = []
    anchors: set[str] = set()
    for number, line in enumerate(block.splitlines(), start=2):
        match = _BARE_STAR.match(line)
        if match and match.group(2)[1:] not in anchors:  # `*name` of an earlier `&name`
            value = match.group(2).replace("'", "''")
            line = f"{match.group(1)}'{value}'"
            changed.append(number)
        else:
            anchors.update(_ANCHOR.findall(line))
        out.append(line)
    return "\n".join(out), tuple(changed)


@dataclass(frozen=True, slots=True)
class _Quoted:
    """One plain value `_quote_colon_values` quoted: its block lines and the opening quote."""

    first: int  # 0-based block line of the key
    last: int  # 0-based block line where the value ends (continuation lines included)
    column: int  # column of the inserted opening quote on `first`


def _quote_colon_values(text: str) -> tuple[str, tuple[int, ...]]:
    """Return `text` with each plain value holding `: ` single-quoted, and the file lines of
    their keys.

    The candidates are found line by line, so some may sit inside a block scalar (`|`, `>`)
    or a multi-line quoted value, where strict YAML already reads them as text. A quoted value
    is kept only where the parser then finds a single-quoted scalar starting at the inserted
    quote; the others get their original lines back. When the quoted text is not YAML, it is
    returned as it is, for the caller to report its error."""
    original = text.splitlines()
    lines = list(original)
    quoted: list[_Quoted] = []
    index = 0
    while index < len(lines):
        found = _quote_value(lines, index)
        if found is None:
            index += 1
            continue
        quoted.append(found)
        index = found.last + 1
    while quoted:
        candidate = "\n".join(lines)
        try:
            starts = _single_quoted_starts(candidate)
        except yaml.YAMLError:
            return candidate, tuple(q.first + 2 for q in quoted)
        stray = [q for q in quoted if (q.first, q.column) not in starts]
        if not stray:
            return candidate, tuple(q.first + 2 for q in quoted)
        for q in stray:  # inside some other scalar: the lines were fine as they were
            lines[q.first : q.last + 1] = original[q.first : q.last + 1]
        quoted = [q for q in quoted if q not in stray]
    return text, ()


def _quote_value(lines: list[str], index: int) -> _Quoted | None:
    """Single-quote, in place, the plain value holding `: ` that starts on `lines[index]`,
    with its continuation lines; return where it is, or None when that line has none."""
    match = _KEY_VALUE.fullmatch(lines[index])
    if match is None:
        return None
    value, comment = _cut_comment(match["value"])
    if not _INNER_COLON.search(value):
        return None
    head, key_column = match["head"], len(match["lead"])
    pieces: list[tuple[str, str]] = [(head, value)]  # (what precedes, text) of each line
    last = index
    if not comment:  # a comment ends a plain scalar; otherwise deeper lines continue it
        while last + 1 < len(lines):
            following = lines[last + 1]
            stripped = following.strip()
            indent = following[: len(following) - len(following.lstrip(" "))]
            if not stripped or len(indent) <= key_column or stripped.startswith("#"):
                break
            piece, comment = _cut_comment(stripped)
            pieces.append((indent, piece))
            last += 1
            if comment:
                break
    for offset, (before, piece) in enumerate(pieces):
        opening = "'" if offset == 0 else ""
        closing = f"'{comment}" if index + offset == last else ""
        escaped = piece.replace("'", "''")
        lines[index + offset] = f"{before}{opening}{escaped}{closing}"
    return _Quoted(index, last, len(head))


def _cut_comment(value: str) -> tuple[str, str]:
    """Split a plain value from a trailing ` # comment`; return (value, comment or "")."""
    found = re.search(r"[ \t]#", value)
    if found is None:
        return value.rstrip(), ""
    return value[: found.start()].rstrip(), value[found.start() :]


def _single_quoted_starts(text: str) -> set[tuple[int, int]]:
    """Return the (line, column) of every single-quoted scalar in `text`.

    Raises yaml.YAMLError when `text` is not YAML."""
    return {
        (event.start_mark.line, event.start_mark.column)
        for event in _events(text)
        if isinstance(event, yaml.ScalarEvent) and event.style == "'" and event.start_mark
    }


def _events(text: str) -> Iterator[yaml.Event]:
    return yaml.parse(text, Loader=_Base)


def _refuse_alias_abuse(text: str) -> None:
    """Raise FrontMatterError when the aliases of `text` are too many, would expand to too
    many values, or refer to a value that contains them (a recursive value).

    Walks the event stream, which never expands an alias. Returns quietly when `text` is not
    YAML or uses an undefined or repeated anchor: loading it reports that error."""
    sizes: dict[str, int | None] = {}  # anchor -> expanded size; None while still open
    stack: list[tuple[str | None, int]] = []  # open collections: anchor, expanded size so far
    aliases = expanded = 0

    def refuse(reason: str, event: yaml.Event) -> FrontMatterError:
        mark = event.start_mark
        return FrontMatterError(
            f"front matter uses YAML aliases beyond what a catalog needs ({reason}); "
            "write the values out",
            mark.line + 2 if mark is not None else None,
        )

    def add(size: int) -> None:
        if stack:
            anchor, so_far = stack[-1]
            stack[-1] = (anchor, so_far + size)

    try:
        for event in _events(text):
            if isinstance(event, yaml.DocumentStartEvent):
                sizes.clear()
            elif isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise refuse(f"more than {MAX_ALIASES} aliases", event)
                if event.anchor not in sizes:
                    return  # undefined alias
                target = sizes[event.anchor]
                if target is None:
                    raise refuse(f"*{event.anchor} refers to a value that contains it", event)
                expanded += target
                if expanded > MAX_ALIAS_EXPANSION:
                    raise refuse(
                        f"they stand for more than {MAX_ALIAS_EXPANSION // 1024} KiB of values",
                        event,
                    )
                add(target)
            elif isinstance(event, yaml.NodeEvent):
                anchor = event.anchor
                if anchor is not None:
                    if anchor in sizes:
                        return  # repeated anchor
                    sizes[anchor] = None
                if isinstance(event, yaml.CollectionStartEvent):
                    stack.append((anchor, 1))
                    continue
                size = 1 + len(event.value) if isinstance(event, yaml.ScalarEvent) else 1
                if anchor is not None:
                    sizes[anchor] = size
                add(size)
            elif isinstance(event, yaml.CollectionEndEvent):
                anchor, size = stack.pop()
                if anchor is not None:
                    sizes[anchor] = size
                add(size)
    except yaml.YAMLError:
        return


def _problem(error: yaml.YAMLError, block: str) -> FrontMatterError:
    """Return the FrontMatterError for a YAML error in `block`, at the file line to fix."""
    if isinstance(error, yaml.reader.ReaderError):  # a character YAML does not allow
        return FrontMatterError(
            f"front matter is not valid YAML: {error.reason}",
            block.count("\n", 0, error.position) + 2,
        )
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
