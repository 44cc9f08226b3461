"""YAML front matter: split, parse, and Cursor's lenient globs (router.catalog.formats.frontmatter)."""

from __future__ import annotations

import datetime

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from router.catalog.formats.frontmatter import (
    MAX_ALIAS_EXPANSION,
    MAX_ALIASES,
    MAX_BLOCK_CHARS,
    FrontMatter,
    FrontMatterError,
    parse,
    split,
)
from testing.paths import CORPORA, FIXTURES

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
        # a quoted scalar followed by `: ` (the `: `-in-a-value fallback quotes plain ones only)
        ('title: ok\nsummary: "a": b', 3),
        ("title: ok\ndescription: fine\nkind: doc\nstatus: current\n  bad: indent", 6),
    ],
)
def test_parse_bad_yaml_reports_the_file_line(block: str, file_line: int) -> None:
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert caught.value.line == file_line
    assert caught.value.problem.startswith("front matter is not valid YAML")


def test_parse_bad_yaml_line_of_a_real_file() -> None:
    text = '---\nid: doc-1\ntitle: Fine\nsummary: "this": breaks\n---\nbody\n'
    block = split(text)
    assert block is not None
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert caught.value.line == 4
    assert text.splitlines()[caught.value.line - 1] == 'summary: "this": breaks'


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
        parse('globs: **/*.py\ndescription: x\ntitle: "a": b')


def test_a_broken_block_with_a_bare_glob_reports_the_broken_line() -> None:
    with pytest.raises(FrontMatterError) as caught:
        parse('globs: **/*.py\ndescription: x\ntitle: "a": b')
    assert caught.value.line == 4


# --- plain values holding `: ` (Docusaurus and Jekyll decision records) ----------------

BACKSTAGE_ADR003 = (
    "id: adrs-adr003\n"
    "title: ADR003: Avoid Default Exports and Prefer Named Exports\n"
    "description: Architecture Decision Record (ADR) log on Avoid Default Exports and Prefer"
    " Named Exports"
)


def test_a_title_holding_a_colon_is_one_value() -> None:
    parsed = parse(BACKSTAGE_ADR003)
    assert parsed.meta["title"] == "ADR003: Avoid Default Exports and Prefer Named Exports"
    assert parsed.meta["id"] == "adrs-adr003"
    assert parsed.colon_lines == (3,)
    assert parsed.lenient_lines == ()


def test_strict_yaml_needs_no_colon_fallback() -> None:
    assert parse("title: ADR003 Avoid\nurl: https://x.org/a:b").colon_lines == ()


def test_a_nested_value_holding_a_colon() -> None:
    parsed = parse("id: x\nmeta:\n  title: Step 1: plan\n  owner: infra")
    assert parsed.meta["meta"] == {"title": "Step 1: plan", "owner": "infra"}
    assert parsed.colon_lines == (4,)


def test_a_comment_after_a_value_holding_a_colon() -> None:
    parsed = parse("title: ADR001: Use ADRs # keep the number\nstatus: accepted")
    assert parsed.meta == {"title": "ADR001: Use ADRs", "status": "accepted"}
    assert parsed.colon_lines == (2,)


def test_a_hash_without_a_space_before_it_stays_in_the_value() -> None:
    assert parse("title: Issue: 12 and C#: done").meta == {"title": "Issue: 12 and C#: done"}


def test_quoted_values_are_left_as_they_are() -> None:
    parsed = parse("title: 'ADR003: Quoted'\nsummary: \"Steps: a, b\"\nnote: a: b")
    assert parsed.meta == {"title": "ADR003: Quoted", "summary": "Steps: a, b", "note": "a: b"}
    assert parsed.colon_lines == (4,)


def test_an_apostrophe_in_a_value_holding_a_colon() -> None:
    assert parse("title: ADR: don't 'quote' me").meta == {"title": "ADR: don't 'quote' me"}


def test_a_value_ending_in_a_colon() -> None:
    parsed = parse("title: Consequences:\nstatus: x")
    assert parsed.meta == {"title": "Consequences:", "status": "x"}
    assert parsed.colon_lines == (2,)


def test_a_block_sequence_item_holding_a_colon() -> None:
    block = "decisions:\n  - title: ADR1: Use Postgres\n    status: accepted\n  - plain: item"
    parsed = parse(block)
    assert parsed.meta["decisions"] == [
        {"title": "ADR1: Use Postgres", "status": "accepted"},
        {"plain": "item"},
    ]
    assert parsed.colon_lines == (3,)


def test_continuation_lines_of_a_value_holding_a_colon() -> None:
    parsed = parse("description: Steps: tag,\n  build, publish\nstatus: current")
    assert parsed.meta == {"description": "Steps: tag, build, publish", "status": "current"}
    assert parsed.colon_lines == (2,)


def test_both_fallbacks_in_one_block() -> None:
    parsed = parse("title: Python: style\nglobs: **/*.py\nalwaysApply: false\nnote: a: b")
    assert parsed.meta == {
        "title": "Python: style",
        "globs": "**/*.py",
        "alwaysApply": False,
        "note": "a: b",
    }
    assert parsed.lenient_lines == (3,)
    assert parsed.colon_lines == (2, 5)


def test_a_block_scalar_line_holding_a_colon_is_kept_as_text() -> None:
    # strict YAML fails on the glob; the `key: a: b` inside the block scalar is its text
    parsed = parse("notes: |\n  key: a: b\n  more\nglobs: **/*.py")
    assert parsed.meta == {"notes": "key: a: b\nmore\n", "globs": "**/*.py"}
    assert parsed.colon_lines == ()
    assert parsed.lenient_lines == (5,)


def test_a_multi_line_quoted_value_holding_a_colon_is_kept_as_text() -> None:
    parsed = parse('summary: "one\n  key: a: b"\nglobs: **/*.py')
    assert parsed.meta == {"summary": "one key: a: b", "globs": "**/*.py"}
    assert parsed.colon_lines == ()


def test_an_alias_stays_an_alias_when_a_fallback_runs() -> None:
    parsed = parse("base: &b src/**\nglobs: *b\ntitle: a: b")
    assert parsed.meta == {"base": "src/**", "globs": "src/**", "title": "a: b"}
    assert parsed.lenient_lines == ()
    assert parsed.colon_lines == (4,)


@pytest.mark.parametrize(
    ("block", "file_line"),
    [
        ("title: ADR1: x\nsummary: [unclosed", 3),  # the fallback fixes line 2, not line 3
        ("title: ADR1: x\ntags: {a: b: c}", 3),  # flow values are not re-quoted
        ("title: ADR1: x\nstatus: ok\n  bad: indent", 4),
        ("a: 1\ntitle: ADR1: x\nb: [*y]", 4),  # an undefined alias after the fix
    ],
)
def test_a_block_still_broken_after_quoting_reports_the_broken_line(
    block: str, file_line: int
) -> None:
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert caught.value.line == file_line
    assert caught.value.problem.startswith("front matter is not valid YAML")


def test_a_real_backstage_record() -> None:
    text = (FIXTURES / "frontmatter" / "adr003-avoid-default-exports.md").read_text("utf-8")
    block = split(text)
    assert block is not None
    parsed = parse(block)
    assert parsed.meta == {
        "id": "adrs-adr003",
        "title": "ADR003: Avoid Default Exports and Prefer Named Exports",
        "description": "Architecture Decision Record (ADR) log on Avoid Default Exports and"
        " Prefer Named Exports",
    }
    assert parsed.colon_lines == (3,)
    assert text.splitlines()[2].startswith("title: ADR003: ")


# --- the fast path ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "block",
    [
        "title: Storage\ntags: [db, storage]",
        "globs: '**/*.py'\nother: \"src/**/*.ts\"",  # a `*` inside quotes is no alias
        "title: 'ADR003: Quoted'\nstatus: accepted",
    ],
)
def test_a_strict_block_is_read_once_by_the_c_loader(
    block: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[object] = []
    real_load = yaml.load

    def load(stream: str, Loader: type[yaml.SafeLoader] | type[yaml.CSafeLoader]) -> object:
        loads.append(Loader)
        return real_load(stream, Loader=Loader)

    def parse_events(*args: object, **kwargs: object) -> None:
        raise AssertionError("a strict block needs no event pass")

    monkeypatch.setattr(yaml, "load", load)
    monkeypatch.setattr(yaml, "parse", parse_events)
    parse(block)
    expected = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader
    assert loads == [expected]


# --- byte-order marks and site keys ----------------------------------------------------


def test_split_and_parse_a_bom_decoded_as_plain_utf8() -> None:
    raw = "---\r\ntitle: ADR7: Caching\r\nstatus: accepted\r\n---\r\nbody\r\n".encode("utf-8-sig")
    text = raw.decode("utf-8")  # not utf-8-sig: the BOM stays in the text
    assert text.startswith("\ufeff---")
    block = split(text)
    assert block == "title: ADR7: Caching\nstatus: accepted"
    parsed = parse(block)
    assert parsed.meta == {"title": "ADR7: Caching", "status": "accepted"}
    assert parsed.colon_lines == (2,)


def test_a_bom_before_a_fence_that_is_not_one() -> None:
    assert split("\ufeff----\ntitle: x\n---\n") is None


def test_docusaurus_and_jekyll_site_keys() -> None:
    block = (
        "id: adrs-adr013\n"
        "slug: /adr/13\n"
        "sidebar_label: 'ADR013'\n"
        "title: 'ADR013: [superseded] Proper use of HTTP fetching libraries'\n"
        "# prettier-ignore\n"
        "description: Architecture Decision Record (ADR) for the proper use of fetchApiRef.\n"
        "parent: Decision Records\n"
        "nav_order: 13\n"
        "layout: default"
    )
    parsed = parse(block)
    assert parsed == FrontMatter(
        {
            "id": "adrs-adr013",
            "slug": "/adr/13",
            "sidebar_label": "ADR013",
            "title": "ADR013: [superseded] Proper use of HTTP fetching libraries",
            "description": "Architecture Decision Record (ADR) for the proper use of fetchApiRef.",
            "parent": "Decision Records",
            "nav_order": 13,
            "layout": "default",
        },
        (),
        (),
    )


# --- hostile YAML ----------------------------------------------------------------------


def _alias_bomb(levels: int = 8, width: int = 9) -> str:
    names = "abcdefghijklmnopqrstuvwxyz"
    strings = ",".join(['"x"'] * width)
    lines = [f"a: &a [{strings}]"]
    for level in range(1, levels + 1):
        name, inner = names[level], names[level - 1]
        lines.append(f"{name}: &{name} [{','.join([f'*{inner}'] * width)}]")
    return "\n".join(lines)


def test_an_alias_bomb_is_refused() -> None:
    bomb = _alias_bomb()
    assert len(bomb) < 500  # 9**8 (43 million) strings once expanded
    with pytest.raises(FrontMatterError) as caught:
        parse(bomb)
    assert "aliases beyond what a catalog needs" in caught.value.problem
    assert caught.value.problem.endswith("write the values out")
    assert caught.value.line is not None and 3 <= caught.value.line <= 10


def test_a_doubling_alias_chain_under_the_alias_count_is_refused() -> None:
    # 62 aliases (within MAX_ALIASES) that would stand for 2**32 values
    block = "a0: &a0 [x, x]\n" + "".join(
        f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]\n" for i in range(1, 32)
    )
    assert block.count("*") < MAX_ALIASES
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert "aliases beyond what a catalog needs" in caught.value.problem


def test_too_many_aliases_are_refused() -> None:
    block = "base: &b x\nall: [" + ", ".join(["*b"] * (MAX_ALIASES + 1)) + "]"
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert f"more than {MAX_ALIASES} aliases" in caught.value.problem
    assert caught.value.line == 3


@pytest.mark.parametrize(
    "block",
    ["governs: &r [*r]", "self: &m {me: *m}", "a:\n  b: &n\n    - c: [x, *n]"],
)
def test_a_recursive_alias_is_refused(block: str) -> None:
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert "refers to a value that contains it" in caught.value.problem
    assert caught.value.line == block.count("\n") + 2


def test_aliases_repeating_a_long_text_are_refused() -> None:  # defect 5
    # each alias stands for the whole text: 40 of them for 1.2 million characters
    long = "word " * 6000
    block = f"s: &s '{long}'\ntags: [{', '.join(['*s'] * 40)}]"
    assert block.count("*") < MAX_ALIASES and len(block) < MAX_BLOCK_CHARS
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert f"more than {MAX_ALIAS_EXPANSION // 1024} KiB of values" in caught.value.problem


def test_a_text_repeated_within_the_bound_still_parses() -> None:
    text = "x" * (MAX_ALIAS_EXPANSION // 4)
    parsed = parse(f"s: &s {text}\nt: [*s, *s]")
    assert parsed.meta["t"] == [text, text]


def test_a_block_past_its_limit_is_refused_unparsed() -> None:  # defect 5
    block = "tags: [" + ", ".join(f"t{i}" for i in range(MAX_BLOCK_CHARS // 6)) + "]"
    assert len(block) > MAX_BLOCK_CHARS
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert caught.value.line == 1
    assert caught.value.problem.startswith(f"front matter is {len(block)} characters, over")
    assert parse("t: " + "y" * (MAX_BLOCK_CHARS - 3)).meta["t"] == "y" * (MAX_BLOCK_CHARS - 3)


def test_a_few_ordinary_aliases_still_parse() -> None:
    parsed = parse(
        "defaults: &d {status: accepted, deciders: [ana, bo]}\n"
        "first:\n  <<: *d\n  title: One\n"
        "second: *d"
    )
    assert parsed.meta["first"] == {"status": "accepted", "deciders": ["ana", "bo"], "title": "One"}
    assert parsed.meta["second"] == {"status": "accepted", "deciders": ["ana", "bo"]}


def test_an_undefined_alias_is_a_yaml_error() -> None:
    with pytest.raises(FrontMatterError) as caught:
        parse("a: 1\nb: [*nowhere]")
    assert caught.value.line == 3
    assert "undefined alias" in caught.value.problem


@pytest.mark.parametrize(
    ("block", "file_line"),
    [
        ("id: x\ndate: 2024-13-45", 3),
        ("id: x\nmask: 0x_", 3),
        ("id: x\ncount: !!int many", 3),
        ("id: x\nwhen: !!timestamp soon", 3),
        ("id: x\nflag: !!bool maybe", 3),
        ("id: x\nbell: ring\x07", 3),
    ],
)
def test_values_yaml_cannot_build_are_front_matter_errors(block: str, file_line: int) -> None:
    with pytest.raises(FrontMatterError) as caught:
        parse(block)
    assert caught.value.line == file_line
    assert caught.value.problem.startswith("front matter is not valid YAML")


_YAMLISH = st.lists(
    st.tuples(
        st.sampled_from(["", "  ", "    ", "- ", "  - "]),
        st.sampled_from(["title", "globs", "a", "- b", "'q'", '"k"', "? x", "# c", ""]),
        st.sampled_from([": ", ":", " ", ""]),
        st.text(alphabet="ab :*&#'\"[]{},|>!-?%@`\\\t", max_size=12),
    ).map("".join),
    max_size=8,
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), _YAMLISH))
def test_parse_returns_front_matter_or_raises_front_matter_error(block: str) -> None:
    try:
        parsed = parse(block)
    except FrontMatterError as error:
        assert error.line is None or error.line >= 1
        return
    assert isinstance(parsed, FrontMatter)
    assert all(isinstance(key, str) for key in parsed.meta)


# --- the shared decision-record corpus -------------------------------------------------

ADR = CORPORA / "adr"


def test_every_front_matter_block_of_the_adr_corpus_parses() -> None:
    if not ADR.is_dir():
        pytest.skip(f"the shared adr corpus is not at {ADR}; set KROUTE_SHARED")
    blocks, colon = 0, []
    for path in sorted(ADR.rglob("*.md")):
        if "template" in path.name.lower() or path.parent == ADR:
            continue
        block = split(path.read_text("utf-8"))  # utf-8, so a BOM stays for split to skip
        if block is None:
            continue
        blocks += 1
        parsed = parse(block)
        assert parsed.lenient_lines == (), path
        if parsed.colon_lines:
            colon.append(path.relative_to(ADR))
            assert parsed.colon_lines == (3,), path  # backstage's unquoted titles
            assert str(parsed.meta["title"]).startswith("ADR0"), path
    assert blocks >= 150
    assert colon and all(str(p).startswith("backstage-backstage/") for p in colon)
