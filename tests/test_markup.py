"""Markdown's lines and inline markup (router.core.markup).

How whole bodies read as plain text is tested through `plain` with router.core.markdown;
here, the parts it is made of.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from router.core import markup
from router.core.markup import BLANK, CODE, FENCE, HEADING, TEXT


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
