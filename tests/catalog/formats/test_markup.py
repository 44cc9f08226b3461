"""Markdown's lines and inline markup (router.catalog.formats.markup).

How whole bodies read as plain text is tested through `plain` with router.catalog.formats.record;
here, the parts it is made of.
"""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from router.catalog.formats import markup
from router.catalog.formats.markup import BLANK, CODE, FENCE, HEADING, TEXT


def kinds(body: str) -> list[tuple[int, str, int]]:
    return [(line.kind, line.text, line.level) for line in markup.scan(body)]


def test_scan_classifies_lines_and_drops_comments() -> None:
    body = "\ufeff# Title #\r\n\r\ntext <!-- a\r\nb --> after\r\n```py\r\ncode\r\n```\r\n## Sub"
    assert kinds(body) == [
        (HEADING, "Title", 1),
        (BLANK, "", 0),
        (TEXT, "text ", 0),
        (TEXT, " after", 0),
        (FENCE, "py", 0),
        (CODE, "code", 0),
        (FENCE, "", 0),
        (HEADING, "Sub", 2),
    ]


def test_scan_fences_and_heading_levels() -> None:
    assert kinds("```a`b\nnot a fence") == [(TEXT, "```a`b", 0), (TEXT, "not a fence", 0)]
    assert kinds("~~~\n# in code\n~~~~\n###### six\n####### seven") == [
        (FENCE, "", 0),
        (CODE, "# in code", 0),
        (FENCE, "", 0),
        (HEADING, "six", 6),
        (TEXT, "####### seven", 0),
    ]
    assert kinds("x <!-- one --> y <!-- two") == [(TEXT, "x  y ", 0)]


@pytest.mark.parametrize(
    ("text", "bare"), [(" Title ## ", "Title"), ("C#", "C#"), ("##", ""), ("a #b", "a #b")]
)
def test_strip_closing(text: str, bare: str) -> None:
    assert markup.strip_closing(text) == bare


@pytest.mark.parametrize(
    ("line", "text"),
    [
        ("> - [x] done", "done"),
        ("1. first", "first"),
        ("  plain  ", "plain"),
        ("[ref]: ./a.md", ""),
        ("|---|:-:|", ""),
        ("* * *", ""),
    ],
)
def test_unblock(line: str, text: str) -> None:
    assert markup.unblock(line) == text


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("`a_b` and ``x ` y`` *em*", "a_b and x ` y em"),
        ("a \\*b\\* c\\", "a *b* c"),
        ("[t](u) [r][x] [s] ![i](p.png) <b>b</b> <https://x.org>", "t r s i b https://x.org"),
        ("x \ue0000\ue001 y", "x 0 y"),  # a hole written out is no hole
        ("&#xe000;0&#xe001; `k`", "k k"),  # one forged through an entity gets a span's text
    ],
)
def test_strip(text: str, plain: str) -> None:
    assert markup.strip(text) == plain


def test_flatten_gives_a_line_per_paragraph_heading_and_code_block() -> None:
    lines = markup.scan("# H\n\npara\none\n\n```\n a   b \n```\n- x\n- y")
    assert markup.flatten(lines) == "H\npara one\na b\nx y"


@pytest.mark.parametrize(
    ("pattern", "text", "groups"),
    [
        (markup.LINK, '[a](b.md "t")', ("a", "b.md", None)),
        (markup.LINK, "[a][r]", ("a", None, "r")),
        (markup.REF_DEF, "[R]: <x.md>", ("R", "<x.md>")),
    ],
)
def test_link_and_reference_groups(
    pattern: re.Pattern[str], text: str, groups: tuple[str | None, ...]
) -> None:
    match = pattern.match(text)
    assert match is not None and match.groups() == groups


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_nothing_raises(body: str) -> None:
    lines = markup.scan(body)
    assert isinstance(markup.flatten(lines), str)
    assert all(isinstance(markup.strip(markup.unblock(line.text)), str) for line in lines)


# The plainer spellings of the patterns `strip` searches with (see markup's note on them).
PLAIN_PATTERNS = {
    "_SHORTCUT": (re.compile(rf"(?<![\w\]])\[({markup._T})\](?![(\[:])"), r"\1"),
    "_STARS": (re.compile(r"(?<!\s)(?:\*+|~~)|(?:\*+|~~)(?!\s)"), ""),
    "_UNDERSCORES": (re.compile(r"(?<![^\W_])_+|_+(?![^\W_])"), ""),
    "_TICKS": (re.compile(r"`+"), "|"),
}
MARKUP_TEXT = st.text(alphabet="a_*~`[]()!: \t\n\u00e9\u2003", max_size=40)


@pytest.mark.parametrize("name", sorted(PLAIN_PATTERNS))
@given(raw=MARKUP_TEXT)
def test_each_fast_pattern_finds_what_its_plainer_spelling_finds(name: str, raw: str) -> None:
    plain, replacement = PLAIN_PATTERNS[name]
    assert getattr(markup, name).sub(replacement, raw) == plain.sub(replacement, raw)


def unblock_everywhere(line: str) -> str:
    """`markup.unblock` without its first-character shortcut: every marker tried."""
    text = line.strip()
    text = text[match.end() :] if (match := markup._QUOTE.match(text)) else text
    if markup.REF_DEF.match(text) or ("|" in text and "-" in text and set(text) <= set("|-: \t")):
        return ""
    if len(text) >= 3 and text[0] in "-*_" and len(set(text.replace(" ", ""))) == 1:
        return ""
    text = text[match.end() :] if (match := markup.ITEM.match(text)) else text
    text = text[match.end() :] if (match := markup._TASK.match(text)) else text
    return (text.lstrip(":").partition(" ")[2] if text.startswith(":::") else text).strip()


LINE_TEXT = st.text(alphabet="a1\u0663 \t>-*+_|:[]xX.)!#`~\u00a0", max_size=24)


@given(LINE_TEXT)
def test_unblock_gives_what_trying_every_marker_gives(line: str) -> None:
    assert markup.unblock(line) == unblock_everywhere(line)


def scan_matching_everything(body: str) -> list[markup.Line]:
    """`markup.scan` matching every line against the fence and heading patterns."""
    body = body.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines: list[markup.Line] = []
    fence, in_comment = "", False
    for raw in body.split("\n"):
        if fence:
            closing = raw.strip()
            closes = closing.startswith(fence) and not closing.strip(fence[0])
            fence = "" if closes else fence
            lines.append(markup.Line(FENCE, "") if closes else markup.Line(CODE, raw))
            continue
        line, in_comment = markup._uncomment(raw, in_comment)
        opening, heading = markup._FENCE_OPEN.match(line), markup._ATX.match(line)
        if not line.strip():
            lines.append(markup.BLANK_LINE)
        elif opening and not (opening[1][0] == "`" and "`" in opening[2]):
            fence = opening[1]
            lines.append(markup.Line(FENCE, opening[2].strip()))
        elif heading:
            lines.append(
                markup.Line(HEADING, markup.strip_closing(line[heading.end() :]), len(heading[1]))
            )
        else:
            lines.append(markup.Line(TEXT, line))
    return lines


@given(st.text(alphabet="a #`~<!->\t\n\r\u00a0", max_size=60))
def test_scan_gives_what_matching_every_line_gives(body: str) -> None:
    assert markup.scan(body) == scan_matching_everything(body)


def flatten_line_by_line(lines: list[markup.Line]) -> str:
    """`markup.flatten` as first written: every line weighed for both runs."""
    out: list[str] = []
    text_run: list[str] = []
    code_run: list[str] = []
    for line in [*lines, markup.BLANK_LINE]:
        text = markup.unblock(line.text) if line.kind == TEXT else ""
        code = line.text if line.kind == CODE and line.text.strip() else ""
        if text_run and not text:
            out.append(markup.strip(" ".join(text_run)))
            text_run = []
        if code_run and not code:
            out.append(" ".join(" ".join(code_run).split()))
            code_run = []
        if text or code:
            (text_run if text else code_run).append(text or code)
        elif line.kind == HEADING:
            out.append(markup.strip(line.text))
    return "\n".join(part for part in out if part)


@given(st.text(alphabet="a *_`~[]()<>&|#-\n\\\u00a0", max_size=80))
def test_flatten_gives_what_weighing_every_line_gives(body: str) -> None:
    lines = markup.scan(body)
    assert markup.flatten(lines) == flatten_line_by_line(lines)


def strip_every_step(text: str) -> str:
    """`markup.strip` without its shortcut for plain text: every step taken."""
    codes: list[str] = []
    text = text.replace("\ue000", "").replace("\ue001", "")
    text = markup._hide_code(text, codes) if "`" in text else text
    text = markup._ESCAPE.sub(lambda m: markup._hole(codes, m[1]), text) if "\\" in text else text
    text = markup._ALERT.sub("", markup.IMAGE.sub(r"\1", text)) if "[" in text else text
    text = markup._HARD_BREAK.sub("", text) if "\\" in text else text
    if "[" in text:
        text = markup._SHORTCUT.sub(r"\1", markup.LINK_TEXT.sub(r"\1", text))
    text = markup._TAG.sub(" ", markup._AUTOLINK.sub(r"\1", text)) if "<" in text else text
    text = markup._STARS.sub("", text) if "*" in text or "~" in text else text
    text = markup._UNDERSCORES.sub("", text) if "_" in text else text
    text = html.unescape(text.replace("|", " "))
    if codes:
        text = markup._HOLE.sub(lambda m: codes[int(m[1])] if int(m[1]) < len(codes) else "", text)
    return " ".join(text.split())


@given(st.text(alphabet="a b*_`~[]()<>&;|!\\\ue000\ue001\n\t\u2003", max_size=40))
def test_strip_gives_what_taking_every_step_gives(raw: str) -> None:
    assert markup.strip(raw) == strip_every_step(raw)
