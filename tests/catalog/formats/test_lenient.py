"""Quoting what strict YAML misreads in front matter (router.catalog.formats.lenient).

How a quoted block then parses, and the lines `parse` reports, are tested with
router.catalog.formats.frontmatter; here, the rewritten text itself.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import yaml

from router.catalog.formats import lenient


def events(text: str) -> Iterator[yaml.Event]:
    return yaml.parse(text, Loader=yaml.SafeLoader)


@pytest.mark.parametrize(
    ("block", "quoted", "lines"),
    [
        ("description: x\nglobs: **/*.py", "description: x\nglobs: '**/*.py'", (3,)),
        ("globs:\n  - **/*.ts\n  - *.d.ts", "globs:\n  - '**/*.ts'\n  - '*.d.ts'", (3, 4)),
        ("globs: *it's.md", "globs: '*it''s.md'", (2,)),
        ("globs: '**/*.py'", "globs: '**/*.py'", ()),
        ("base: &b src/**\nglobs: *b", "base: &b src/**\nglobs: *b", ()),  # a real alias
    ],
)
def test_bare_stars(block: str, quoted: str, lines: tuple[int, ...]) -> None:
    assert lenient.bare_stars(block) == (quoted, lines)


@pytest.mark.parametrize(
    ("text", "quoted", "lines"),
    [
        ("id: x\ntitle: ADR003: Avoid", "id: x\ntitle: 'ADR003: Avoid'", (3,)),
        ("title: ADR001: Use ADRs # keep", "title: 'ADR001: Use ADRs' # keep", (2,)),
        ("title: don't: x", "title: 'don''t: x'", (2,)),
        (
            "description: Steps: tag,\n  build, publish\nstatus: current",
            "description: 'Steps: tag,\n  build, publish'\nstatus: current",
            (2,),
        ),
        ("title: ok\nurl: https://x.org/a:b", "title: ok\nurl: https://x.org/a:b", ()),
        ("notes: |\n  key: a: b\nx: 1", "notes: |\n  key: a: b\nx: 1", ()),  # block scalar text
        # still not YAML: returned quoted, for the caller to report the error's line
        ("title: ADR1: x\nsummary: [unclosed", "title: 'ADR1: x'\nsummary: [unclosed", (2,)),
    ],
)
def test_colon_values(text: str, quoted: str, lines: tuple[int, ...]) -> None:
    assert lenient.colon_values(text, events) == (quoted, lines)


def test_colon_values_keeps_only_the_quotes_its_parser_confirms() -> None:
    def no_scalars(text: str) -> Iterator[yaml.Event]:
        return iter(())

    assert lenient.colon_values("title: ADR003: Avoid", no_scalars) == ("title: ADR003: Avoid", ())
