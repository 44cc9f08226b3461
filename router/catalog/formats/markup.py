"""Markdown's lines and inline markup: classify each line, and strip markup to plain text.

What every reading of a Markdown body starts from, knowing nothing of decision records
(which are `markdown`'s): fenced code, ATX headings and HTML comments (which may span lines)
told from text; block markers (quotes, list items, task boxes, admonitions) and inline markup
(links, images, emphasis, code ticks, tags, escapes, entities) dropped, their text kept. Pure,
and linear in its input: every line is looked at a bounded number of times and every pattern's
repetition is bounded, so nothing backtracks without limit. Nothing here raises on any `str`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import NamedTuple

SPAN_MAX = 1000  # the longest link text, target or tag read as one

BLANK, TEXT, HEADING, FENCE, CODE = range(5)  # a Line's kind
_T = rf"[^\[\]\n]{{0,{SPAN_MAX}}}"  # a link's text, or its reference
_P = rf"[^()\n]{{0,{SPAN_MAX}}}"  # a link's target and title
_FENCE_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})(.*)")
_ATX = re.compile(r" {0,3}(#{1,6})(?=\s|$)")  # `\s`: some write a no-break space
ITEM = re.compile(r"[ \t>]*(?:[-*+]|\d{1,9}[.)])[ \t]+")
_QUOTE = re.compile(r"(?:>[ \t]*)+")
_TASK = re.compile(r"\[[ xX]\][ \t]+")
REF_DEF = re.compile(rf"\[({_T})\]:[ \t]*(\S+)")  # [1]: the label, [2]: the target
IMAGE = re.compile(rf"!\[({_T})\]\({_P}\)")
_ALERT = re.compile(r"\[!(?:note|tip|important|warning|caution)\]", re.I)
_HREF = rf"\(\s*<?([^()\s<>]{{0,{SPAN_MAX}}})>?(?:\s{_P})?\)"  # `(href "title")`
# Inline, full, collapsed, shortcut: [1] the text, [2] an inline target, [3] a reference.
LINK = re.compile(rf"\[({_T})\](?:{_HREF}|\[({_T})\])?")
LINK_TEXT = re.compile(rf"\[({_T})\](?:\({_P}\)|\[{_T}\])")
_SHORTCUT = re.compile(rf"\[(?<![\w\]]\[)({_T})\](?![(\[:])")
_AUTOLINK = re.compile(rf"<((?:https?|mailto|ftp):[^<>\s]{{1,{SPAN_MAX}}})>")
_TAG = re.compile(rf"</?[A-Za-z][A-Za-z0-9-]*(?:[\s/][^<>\n]{{0,{SPAN_MAX}}})?>")
_STARS = re.compile(r"\*(?<!\s\*)\**|~(?<!\s~)~|\*\**(?!\s)|~~(?!\s)")
_UNDERSCORES = re.compile(r"_(?<![^\W_]_)_*|__*(?![^\W_])")  # not inside snake_case
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_HARD_BREAK = re.compile(r"\\(?=\s|$)")
_TICKS = re.compile(r"``*")
_HOLE = re.compile(r"\ue000(\d{1,9})\ue001")
# Every pattern above that `strip` searches a text for opens with the character its matches
# open with, what it looks back at looked at after it (`\[(?<![\w\]]\[)`, not
# `(?<![\w\]])\[`), and no repeat (`\*\**`, not `\*+`): such a pattern is searched for at C
# speed, one opening with a look-behind or a repeat is tried at every position of the text
# (tests/catalog/formats/test_markup.py holds each equal to its plainer spelling).
_FENCE_CHARS = frozenset("`~")
# A character some step of `strip` acts on: a text without any is plain.
_INLINE = re.compile(r"[\ue000\ue001`\\\[<*~_&|]")
# What a stripped line opens with when `unblock` may drop something: a quote, a reference
# definition or task box, a table row, a thematic break, a list item, an admonition (a
# numbered item opens with a digit).
_MARKER_STARTS = frozenset(">[|-:*_+")


class Line(NamedTuple):
    """One line of a body, as `scan` classifies it.

    A named tuple, not a frozen dataclass: a cold load makes one per line of every body,
    and a tuple is built in C, where a frozen dataclass sets each field through a call
    (a third of `scan`'s time)."""

    kind: int  # BLANK, TEXT, HEADING, FENCE (its info string as text) or CODE
    text: str  # comments removed; a heading's text without its `#`s
    level: int = 0


BLANK_LINE = Line(BLANK, "")  # also what a reader takes past the last line


def scan(body: str) -> list[Line]:
    """Return a Line per line of `body` (a byte-order mark and CR line ends aside); outside
    code fences, HTML comments (which may span lines) are dropped."""
    body = body.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines: list[Line] = []
    append = lines.append
    fence, in_comment = "", False
    for raw in body.split("\n"):
        if fence:
            closing = raw.strip()
            closes = closing.startswith(fence) and not closing.strip(fence[0])
            fence = "" if closes else fence
            append(Line(FENCE, "") if closes else Line(CODE, raw))
            continue
        line = raw
        if in_comment or "<!--" in raw:
            line, in_comment = _uncomment(raw, in_comment)
        # A fence opens, and a heading starts, with the first character after the indent
        # the patterns allow: most lines are neither, and are not matched against them.
        first = line.lstrip(" \t")[:1]
        if not first or not line.strip():
            append(BLANK_LINE)
            continue
        if first in _FENCE_CHARS:
            opening = _FENCE_OPEN.match(line)
            if opening and not (opening[1][0] == "`" and "`" in opening[2]):
                fence = opening[1]
                append(Line(FENCE, opening[2].strip()))
                continue
        elif first == "#" and (heading := _ATX.match(line)):
            append(Line(HEADING, strip_closing(line[heading.end() :]), len(heading[1])))
            continue
        append(Line(TEXT, line))
    return lines


def _uncomment(line: str, in_comment: bool) -> tuple[str, bool]:
    """Return a line without its `<!-- -->` parts, and whether a comment runs on past it."""
    if not in_comment and "<!--" not in line:
        return line, False
    kept: list[str] = []
    pos = 0
    while True:
        if in_comment:
            end = line.find("-->", pos)
            if end < 0:
                return "".join(kept), True
            pos = end + 3
        start = line.find("<!--", pos)
        kept.append(line[pos:] if start < 0 else line[pos:start])
        if start < 0:
            return "".join(kept), False
        pos, in_comment = start + 4, True


def strip_closing(text: str) -> str:
    """Return a heading's text without its optional closing `#` sequence."""
    text = text.strip()
    bare = text.rstrip("#")
    return bare.rstrip() if bare != text and (not bare or bare[-1].isspace()) else text


def flatten(lines: Sequence[Line]) -> str:
    """Return the plain text of some lines, one paragraph (heading, code block) a line."""
    out: list[str] = []
    text_run: list[str] = []  # at most one of the two runs holds lines at a time
    code_run: list[str] = []
    for kind, raw, _ in lines:
        if kind == TEXT:
            if text := unblock(raw):
                if code_run:
                    out.append(" ".join(" ".join(code_run).split()))
                    code_run = []
                text_run.append(text)
                continue
        elif kind == CODE and raw.strip():
            if text_run:
                out.append(strip(" ".join(text_run)))
                text_run = []
            code_run.append(raw)
            continue
        if text_run:
            out.append(strip(" ".join(text_run)))
            text_run = []
        if code_run:
            out.append(" ".join(" ".join(code_run).split()))
            code_run = []
        if kind == HEADING:
            out.append(strip(raw))
    if text_run:
        out.append(strip(" ".join(text_run)))
    if code_run:
        out.append(" ".join(" ".join(code_run).split()))
    return "\n".join(part for part in out if part)


def unblock(line: str) -> str:
    """Return a line without its block markers (quote, list item, task box, admonition); ""
    for a reference definition, a table delimiter row or a thematic break."""
    text = line.strip()
    first = text[:1]
    if first not in _MARKER_STARTS and not first.isdecimal():
        return text  # most lines: no marker can start here
    text = text[match.end() :] if (match := _QUOTE.match(text)) else text
    if REF_DEF.match(text) or ("|" in text and "-" in text and set(text) <= set("|-: \t")):
        return ""
    if len(text) >= 3 and text[0] in "-*_" and len(set(text.replace(" ", ""))) == 1:
        return ""
    text = text[match.end() :] if (match := ITEM.match(text)) else text
    text = text[match.end() :] if (match := _TASK.match(text)) else text
    return (text.lstrip(":").partition(" ")[2] if text.startswith(":::") else text).strip()


def strip(text: str) -> str:
    """Return inline Markdown as plain text, whitespace collapsed, code spans kept as written
    (a pattern runs only on text holding a character all its matches hold)."""
    if not _INLINE.search(text):  # plain text: only its whitespace to collapse
        return " ".join(text.split())
    codes: list[str] = []
    text = text.replace("\ue000", "").replace("\ue001", "")
    text = _hide_code(text, codes) if "`" in text else text
    text = _ESCAPE.sub(lambda m: _hole(codes, m[1]), text) if "\\" in text else text
    text = _ALERT.sub("", IMAGE.sub(r"\1", text)) if "[" in text else text
    text = _HARD_BREAK.sub("", text) if "\\" in text else text
    text = _SHORTCUT.sub(r"\1", LINK_TEXT.sub(r"\1", text)) if "[" in text else text
    text = _TAG.sub(" ", _AUTOLINK.sub(r"\1", text)) if "<" in text else text
    text = _STARS.sub("", text) if "*" in text or "~" in text else text
    text = _UNDERSCORES.sub("", text) if "_" in text else text
    text = html.unescape(text.replace("|", " "))
    if codes:  # a hole forged through an entity gets nothing, or some span's text
        text = _HOLE.sub(lambda m: codes[int(m[1])] if int(m[1]) < len(codes) else "", text)
    return " ".join(text.split())


def _hide_code(text: str, codes: list[str]) -> str:
    """Return `text` with each code span made a hole (its text in `codes`), stray ticks gone."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    closer, seen = [-1] * len(runs), dict[int, int]()  # the next run as long, if any
    for k in range(len(runs) - 1, -1, -1):
        length = runs[k][1] - runs[k][0]
        closer[k], seen[length] = seen.get(length, -1), k
    kept: list[str] = []
    pos = k = 0
    while k < len(runs):
        if (close := closer[k]) >= 0:
            kept += [text[pos : runs[k][0]], _hole(codes, text[runs[k][1] : runs[close][0]])]
            pos, k = runs[close][1], close
        k += 1
    return ("".join(kept) + text[pos:]).replace("`", "")  # a hole holds no tick


def _hole(codes: list[str], value: str) -> str:
    """Return a numbered hole for `value`, kept in `codes` until `strip` puts it back."""
    codes.append(value)
    return f"\ue000{len(codes) - 1}\ue001"
