"""Which files are the catalog: names and formats, roots and excludes, and stamps taken on
the walk (the walk itself is tested through `catalog.load` in test_catalog)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from router.catalog import walk
from router.catalog.config import Config


def test_is_catalog_path(tmp_path: Path) -> None:
    cfg = Config(root=tmp_path, roots=("docs",), exclude=("docs/old/**",))
    assert walk.is_catalog_path(cfg, "docs/a.md")
    assert walk.is_catalog_path(cfg, "docs/t.catalog.json")
    assert not walk.is_catalog_path(cfg, "docs/a.txt")
    assert not walk.is_catalog_path(cfg, "docs/old/a.md")
    assert not walk.is_catalog_path(cfg, "src/a.md")
    assert not walk.is_catalog_path(cfg, "docsx/a.md")


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("x/y.mdc", "rule"),
        ("x/SKILL.md", "skill"),
        ("x/rust.instructions.md", "instruction"),
        ("x/a.md", "markdown"),
        ("x/a.catalog.json", "json"),
        ("x/a.txt", None),
        ("x/skill.md", "markdown"),
    ],
)
def test_format_of(name: str, fmt: str | None) -> None:
    assert walk.format_of(name) == fmt


def test_the_walk_stamps_each_file_as_a_stat_of_it_would(tmp_path: Path) -> None:
    for name in ("docs/a.md", "docs/sub/b.md", "docs/c.txt"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\nid: x\n---\n")
    stamps: dict[str, tuple[int, int]] = {}
    present, problems = walk.walked(Config(root=tmp_path, roots=("docs",)), stamps)
    assert present == ["docs/a.md", "docs/sub/b.md"] and problems == ()
    assert stamps == {p: walk.stamp_of(os.stat(tmp_path / p)) for p in present}
