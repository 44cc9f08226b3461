"""The front page of a catalog root is no entry; a README anywhere else still is."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.core import catalog, config, document

PROSE = "# Our docs\n\nWhat this folder holds, who writes it and how the records are named.\n"


@pytest.mark.parametrize(
    ("roots", "relpath", "front"),
    [
        ((".",), "README.md", True),
        ((".",), "docs/README.md", False),
        (("docs/", ".claude/skills"), "docs/README.md", True),
        (("docs",), "docs/index.md", True),
        (("./docs",), "docs/Readme.md", True),
        (("docs",), "docs/adr/README.md", False),  # about that folder's subject
        (("docs",), "README.md", False),  # outside every root: not read at all
        (("docs",), "docs/overview.md", False),
    ],
)
def test_front_page(roots: tuple[str, ...], relpath: str, front: bool, tmp_path: Path) -> None:
    cfg = config.Config(root=tmp_path, roots=roots)
    assert document.front_page(cfg, relpath) is front


def test_the_front_page_is_skipped_and_says_why(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "adr").mkdir(parents=True)
    (docs / "README.md").write_text(PROSE, encoding="utf-8")
    (docs / "adr" / "README.md").write_text("# Decisions\n\nHow we record them.\n")
    (docs / "guide.md").write_text("---\nid: guide\ntitle: Guide\n---\n", encoding="utf-8")
    cat = catalog.load(config.Config(root=tmp_path, roots=("docs",)))
    assert sorted(e.path for e in cat.entries) == ["docs/adr/README.md", "docs/guide.md"]
    (skipped,) = [d for d in cat.diagnostics if d.path == "docs/README.md"]
    assert skipped.severity == "info" and "front page" in skipped.problem


def test_a_typed_front_page_stays_an_entry(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("---\nid: home\nkind: guide\n---\n" + PROSE)
    cat = catalog.load(config.Config(root=tmp_path, roots=(".",)))
    assert [e.id for e in cat.entries] == ["home"]
