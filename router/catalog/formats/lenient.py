"""Lenient YAML: quote what strict YAML misreads in front matter, as the tools that write it
mean it.

Two rewritings of a block's text, which `frontmatter` tries only after strict YAML has failed:

- Cursor's unquoted globs (`globs: **/*.py`), which strict YAML reads as aliases;
- plain values holding `: ` (`title: ADR003: Avoid Default Exports`), common in the front
  matter of decision records written for documentation sites, which strict YAML reads as a
  second mapping; the reader means the rest of the line.

Each keeps every line where it was, so a later YAML error's line is still the file's, and
returns the file lines it changed (the block's first line is the file's second, after the
opening fence).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import yaml

# What a YAML text's parser events are read with: the caller's own loader, so that a quote kept
# is one the caller's load will read as a quoted scalar.
Events = Callable[[str], Iterable[yaml.Event]]

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


def bare_stars(block: str) -> tuple[str, tuple[int, ...]]:
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
    """One plain value `colon_values` quoted: its block lines and the opening quote."""

    first: int  # 0-based block line of the key
    last: int  # 0-based block line where the value ends (continuation lines included)
    column: int  # column of the inserted opening quote on `first`


def colon_values(text: str, events: Events) -> tuple[str, tuple[int, ...]]:
    """Return `text` with each plain value holding `: ` single-quoted, and the file lines of
    their keys.

    The candidates are found line by line, so some may sit inside a block scalar (`|`, `>`)
    or a multi-line quoted value, where strict YAML already reads them as text. A quoted value
    is kept only where the parser (`events`) then finds a single-quoted scalar starting at the
    inserted quote; the others get their original lines back. When the quoted text is not
    YAML, it is returned as it is, for the caller to report its error."""
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
            starts = _single_quoted_starts(candidate, events)
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


def _single_quoted_starts(text: str, events: Events) -> set[tuple[int, int]]:
    """Return the (line, column) of every single-quoted scalar in `text`.

    Raises yaml.YAMLError when `text` is not YAML."""
    return {
        (event.start_mark.line, event.start_mark.column)
        for event in events(text)
        if isinstance(event, yaml.ScalarEvent) and event.style == "'" and event.start_mark
    }
