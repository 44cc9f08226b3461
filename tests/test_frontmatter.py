"""YAML front matter: split, parse, and Cursor's lenient globs (router.frontmatter)."""

from __future__ import annotations

import datetime

import pytest

from router.frontmatter import FrontMatter, FrontMatterError, parse, split

# --- split -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# Title\n\nNo front matter here.\n",
        "\n---\ntitle: x\n---\n",  # the fence must be the first line
        "----\ntitle: x\n----\n",
        "title: x\n---\n",
    ],
)
def test_split_without_front_matter(text: str) -> None:
    assert split(text) is None


def test_split_returns_the_block_between_fences() -> None:
    text = "---\ntitle: Storage\nkind: decision\n---\n# Storage\n\n---\nnot: front matter\n"
    assert split(text) == "title: Storage\nkind: decision"


def test_split_accepts_dots_as_closing_fence_and_trailing_blanks() -> None:
    assert split("---  \ntitle: x\n...\nbody\n") == "title: x"
    assert split("---\ntitle: x\n---\t\nbody\n") == "title: x"


def test_split_empty_block() -> None:
    assert split("---\n---\nbody\n") == ""


def test_split_strips_a_byte_order_mark() -> None:
    assert split("\ufeff---\ntitle: x\n---\n") == "title: x"


def test_split_handles_crlf() -> None:
    assert split("---\r\ntitle: x\r\nkind: doc\r\n---\r\nbody\r\n") == "title: x\nkind: doc"


def test_split_unclosed_fence_is_an_error_on_line_one() -> None:
    with pytest.raises(FrontMatterError) as caught:
        split("---\ntitle: x\nkind: doc\n\n# Body without a closing fence\n")
    assert caught.value.line == 1
    assert "never closed" in caught.value.problem


# --- parse -----------------------------------------------------------------------------


def test_parse_valid_block() -> None:
    parsed = parse("title: Storage\ntags: [db, storage]\nrelevance: 90\ndate: 2024-03-01")
    assert parsed == FrontMatter(
        {
            "title": "Storage",
            "tags": ["db", "storage"],
            "relevance": 90,
            "date": datetime.date(2024, 3, 1),
        },
        (),
    )


@pytest.mark.parametrize("block", ["", "   \n\n", "# only a comment", "~", "null"])
def test_parse_empty_block_is_an_empty_mapping(block: str) -> None:
    assert parse(block) == FrontMatter({}, ())


def test_parse_stringifies_keys() -> None:
    assert parse("1: one\n2.5: half").meta == {"1": "one", "2.5": "half"}


@pytest.mark.parametrize(
    ("block", "kind"), [("- a\n- b", "list"), ("just some text", "str"), ("42", "int")]
)
def test_parse_not_a_mapping(block: str, kind: str) -> None:
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert "mapping" in caught.value.problem
    assert kind in caught.value.problem
    assert caught.value.line == 2


@pytest.mark.parametrize(
    ("block", "file_line"),
    [
        # block line N is file line N + 1 (the opening fence is line 1)
        ("title: ok\nsummary: a: b", 3),
        ("title: ok\ndescription: fine\nkind: doc\nstatus: current\n  bad: indent", 6),
    ],
)
def test_parse_bad_yaml_reports_the_file_line(block: str, file_line: int) -> None:
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert caught.value.line == file_line
    assert caught.value.problem.startswith("front matter is not valid YAML")


def test_parse_bad_yaml_line_of_a_real_file() -> None:
    text = "---\nid: doc-1\ntitle: Fine\nsummary: this: breaks\n---\nbody\n"
    block = split(text)
    assert block is not None
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert caught.value.line == 4
    assert text.splitlines()[caught.value.line - 1] == "summary: this: breaks"


def test_unclosed_bracket_points_at_or_just_after_its_line() -> None:
    with pytest.raises(FrontMatterError) as caught:
        parse("a: 1\nb: 2\nc: 3\nd: [x, y\ne: 5")
    assert caught.value.line in (5, 6)


def test_unclosed_bracket_on_the_last_line() -> None:
    block = split("---\nid: x\ntags: [a, b\n---\n")
    assert block is not None
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert caught.value.line == 3


def test_unterminated_quote_points_at_the_line_where_it_opened() -> None:
    text = '---\nid: x\nsummary: "unterminated\nkind: doc\nstatus: current\n---\nbody\n'
    block = split(text)
    assert block is not None
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert caught.value.line == 3


def test_parse_keeps_real_yaml_aliases() -> None:
    parsed = parse("base: &b src/**\nglobs: *b")
    assert parsed.meta == {"base": "src/**", "globs": "src/**"}
    assert parsed.lenient_lines == ()


# --- the Cursor fallback ---------------------------------------------------------------


def test_unquoted_double_star_glob() -> None:
    parsed = parse("description: Python style\nglobs: **/*.py\nalwaysApply: false")
    assert parsed.meta == {"description": "Python style", "globs": "**/*.py", "alwaysApply": False}
    assert parsed.lenient_lines == (3,)


def test_unquoted_comma_separated_globs() -> None:
    parsed = parse("globs: *.vue, *.jsx")
    assert parsed.meta == {"globs": "*.vue, *.jsx"}
    assert parsed.lenient_lines == (2,)


def test_unquoted_list_item_glob() -> None:
    parsed = parse('description: ts\nglobs:\n  - **/*.ts\n  - "src/**/*.tsx"\n  - *.d.ts')
    assert parsed.meta["globs"] == ["**/*.ts", "src/**/*.tsx", "*.d.ts"]
    assert parsed.lenient_lines == (4, 6)


def test_unquoted_glob_with_an_apostrophe() -> None:
    parsed = parse("globs: *it's.md")
    assert parsed.meta == {"globs": "*it's.md"}


def test_quoted_globs_need_no_fallback() -> None:
    parsed = parse("globs: '**/*.py'\nother: \"*.vue, *.jsx\"")
    assert parsed.meta == {"globs": "**/*.py", "other": "*.vue, *.jsx"}
    assert parsed.lenient_lines == ()


def test_a_genuinely_broken_block_still_errors() -> None:
    with pytest.raises(FrontMatterError) as caught:
        parse("description: x\nglobs: [**/*.py\nalwaysApply: false")
    assert caught.value.line is not None


def test_a_broken_block_with_a_bare_glob_still_errors() -> None:
    with pytest.raises(FrontMatterError):
        parse("globs: **/*.py\ndescription: x\ntitle: a: b")


def test_a_broken_block_with_a_bare_glob_reports_the_broken_line() -> None:
    with pytest.raises(FrontMatterError) as caught:
        parse("globs: **/*.py\ndescription: x\ntitle: a: b")
    assert caught.value.line == 4
