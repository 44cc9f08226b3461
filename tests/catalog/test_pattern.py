"""Path globs for shelves, `exclude` and `governs` (router.catalog.pattern)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from router.catalog import pattern
from router.catalog.pattern import clean, covers, is_language_wide, is_universal


def cases(pat: str, yes: list[str], no: list[str]) -> list[tuple[str, str, bool]]:
    return [(pat, p, True) for p in yes] + [(pat, p, False) for p in no]


COVERS = [
    # a literal path covers itself and (as a directory) what is below it, nothing else
    *cases("src/a.py", ["src/a.py"], ["src/a.pyc", "src/a.py.bak", "lib/src/a.py", "src"]),
    *cases("src", ["src", "src/a.py", "src/a/b/c.py"], ["srcx/a.py", "lib/src/a.py", "sr"]),
    *cases("migrations/", ["migrations/0001.sql", "migrations"], ["migrations2/x.sql"]),
    *cases("src/ingest", ["src/ingest/pipeline.py"], ["src/ingestion/x.py", "src/a.py"]),
    # `**` spans any number of directories
    *cases("src/**", ["src", "src/a.py", "src/a/b/c.py"], ["srcx/a.py", "lib/src/a.py"]),
    *cases(
        "src/**/*.py",
        ["src/a.py", "src/a/b/c.py"],
        ["src/a/b/c.ts", "lib/a.py", "src/a.pyc"],
    ),
    *cases("**/test/**", ["test/b.py", "a/test/b.py", "a/b/test/c/d.py"], ["a/tests/b.py"]),
    *cases("**/*.py", ["a.py", "a/b.py", "a/b/c/d.py"], ["a.pyx", "a/b.ts"]),
    # `*` and `?` stay inside one segment
    *cases("src/*.py", ["src/a.py", "src/.py"], ["src/a/b.py", "src/a.ts"]),
    *cases("src/*/x.py", ["src/a/x.py"], ["src/a/b/x.py", "src/x.py"]),
    *cases("src/a?.py", ["src/ab.py"], ["src/a.py", "src/abc.py", "src/a/.py"]),
    # `{a,b}` alternatives
    *cases("src/{a,b}.py", ["src/a.py", "src/b.py"], ["src/c.py", "src/ab.py"]),
    *cases("{src,lib}/**", ["src/x.py", "lib/y/z.py"], ["app/x.py"]),
    *cases("*.{ts,tsx}", ["web/x.tsx", "x.ts"], ["x.js", "x.tsxx"]),
    # `[..]` character classes, `[!..]` negated
    *cases("src/[ab].py", ["src/a.py", "src/b.py"], ["src/c.py", "src/ab.py"]),
    *cases("src/[!ab].py", ["src/c.py"], ["src/a.py", "src/b.py"]),
    *cases("v[0-9].md", ["docs/v1.md"], ["docs/vx.md"]),
    # a leading `/` or `./` anchors at the root, like every pattern
    *cases("/src/**", ["src/a.py", "src/a/b.py"], ["lib/src/a.py"]),
    *cases("./src/**", ["src/a.py"], ["lib/src/a.py"]),
    *cases("/README.md", ["README.md"], ["docs/README.md"]),
    *cases("./docs", ["docs/a.md"], ["x/docs/a.md"]),
    # a slash-less pattern with a wildcard matches the base name at any depth
    *cases("*.py", ["c.py", "a/b/c.py", "a/b/c/d/e.py"], ["a/b/c.pyc", "a/b/py"]),
    *cases("test_*", ["test_a.py", "tests/test_a.py"], ["tests/a_test.py"]),
    *cases("*.mdc", [".cursor/rules/python.mdc"], [".cursor/rules/python.md"]),
    # headwater's governs targets
    *cases(
        "site/**",
        ["site/index.html", "site/assets/app.css", "site"],
        ["website/index.html", "docs/site/x.html", "sites/x"],
    ),
    *cases(
        ".claude/hooks/**",
        [".claude/hooks/pre_tool_use.sh", ".claude/hooks/lib/common.py"],
        [".claude/hookss/x", ".claude/settings.json", "claude/hooks/x.sh"],
    ),
    *cases(
        "tools/engine/language-spike/**",
        [
            "tools/engine/language-spike/src/main.rs",
            "tools/engine/language-spike/Cargo.toml",
            "tools/engine/language-spike",
        ],
        ["tools/engine/language/x.rs", "tools/engine/language-spike2/x.rs", "tools/engine"],
    ),
]


@pytest.mark.parametrize(("pat", "path", "expected"), COVERS)
def test_covers(pat: str, path: str, expected: bool) -> None:
    assert covers(pat, path) is expected


def test_dots_in_a_glob_are_literal() -> None:
    assert covers("docs/*.md", "docs/a.md")
    assert not covers("docs/*.md", "docs/a_md")
    assert not covers("a.b", "axb")


def test_regex_metacharacters_are_literal() -> None:
    assert covers("docs/c++/*.md", "docs/c++/a.md")
    assert not covers("docs/c++/*.md", "docs/ccc/a.md")
    assert covers("src/(group)/page.tsx", "src/(group)/page.tsx")


def test_unclosed_brace_and_bracket_are_literal_characters() -> None:
    assert covers("src/{a*.py", "src/{ab.py")
    assert not covers("src/{a*.py", "src/ab.py")
    assert covers("src/[a*.py", "src/[ab.py")


def test_wildcard_matching_is_case_sensitive() -> None:
    assert not covers("*.PY", "a.py")
    assert not covers("Src/**", "src/a.py")


@pytest.mark.parametrize(
    "pat", ["*", "**", "**/*", "**/**", "*/**", "**/*.*", "/**", "./**/*", "**/*/"]
)
def test_universal_patterns(pat: str) -> None:
    assert is_universal(pat)
    assert covers(pat, "a/b/c.py")


@pytest.mark.parametrize("pat", ["*.py", "**/*.py", "src/**", "docs", "**/test/**", ""])
def test_not_universal(pat: str) -> None:
    assert not is_universal(pat)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("./src/a.py", "src/a.py"),
        ("././src", "src"),
        ("/src/", "src"),
        ("src//a///b", "src/a/b"),
        ("src\\a\\b.py", "src/a/b.py"),
        ("  docs/  ", "docs"),
        ("src/**/", "src/**"),
    ],
)
def test_clean(raw: str, expected: str) -> None:
    assert clean(raw) == expected


def test_compile_reports_literal_and_basename() -> None:
    literal = pattern.compile("./src/a.py")
    assert literal.literal and literal.pattern == "src/a.py"
    assert pattern.compile("*.py").basename
    assert not pattern.compile("src/*.py").basename
    assert not pattern.compile("src/*.py").literal


def test_backslash_and_doubled_slashes_in_patterns() -> None:
    assert covers("src\\ingest\\**", "src/ingest/x.py")
    assert covers("src//ingest", "src/ingest/x.py")


@pytest.mark.parametrize("pat", ["**/*.py", "*.tsx", "**/*.{ts,tsx}", "./**/*.rs"])
def test_language_wide_patterns_keep_every_file_of_an_extension(pat: str) -> None:
    assert is_language_wide(pat)


@pytest.mark.parametrize(
    "pat", ["src/**/*.py", "*.test.jsx", "**/*.test.ts", "**/*", "lib/features/**/*.*", "a.py"]
)
def test_rooted_or_narrower_patterns_are_not_language_wide(pat: str) -> None:
    assert not is_language_wide(pat)


GLOB_PART = st.sampled_from(["a", "b", "ab", "*", "**", "?", "{a,b}", "[ab]", "a*", "*.md"])
PATH_PART = st.sampled_from(["a", "b", "ab", "a.md", "b.md", "x"])


@given(st.lists(GLOB_PART, min_size=1, max_size=4), st.lists(PATH_PART, min_size=1, max_size=4))
def test_the_head_turns_away_only_paths_the_pattern_does_not_cover(
    glob: list[str], path: list[str]
) -> None:
    matcher = pattern.compile("/".join(glob))
    unheaded = dataclasses.replace(matcher, head="")
    assert matcher.covers("/".join(path)) == unheaded.covers("/".join(path))
