"""The front page of a catalog root is no entry; a README anywhere else still is."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.catalog import config, reader
from router.catalog.formats import document
from testing.paths import FIXTURES

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
    cat = reader.load(config.Config(root=tmp_path, roots=("docs",)))
    assert sorted(e.path for e in cat.entries) == ["docs/adr/README.md", "docs/guide.md"]
    (skipped,) = [d for d in cat.diagnostics if d.path == "docs/README.md"]
    assert skipped.severity == "info" and "front page" in skipped.problem


def test_a_typed_front_page_stays_an_entry(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("---\nid: home\nkind: guide\n---\n" + PROSE)
    cat = reader.load(config.Config(root=tmp_path, roots=(".",)))
    assert [e.id for e in cat.entries] == ["home"]


# --- proposal formats, headingless pages and templates, read from files on disk ---------

GO_DESIGN = FIXTURES / "proposals" / "golang-proposal" / "design"
LISTED = """# Typed widgets

* Proposal: [WP-0413](0413-typed-widgets.md)
* Authors: [Ada Example](https://example.com/ada), [Bo Example](https://example.com/bo)
* Status: **Implemented (Widgets 6.0)**
* Superseded by: [WP-0999](0999-widget-kinds.md)

## Introduction

Widgets may declare the kind of value they hold, so that callers need no casts.
"""


def entries(tmp_path: Path, files: dict[str, str]) -> reader.Catalog:
    for relpath, text in files.items():
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text(text, encoding="utf-8")
    return reader.load(config.Config(root=tmp_path, roots=("proposals",)))


def test_a_proposal_metadata_list_fills_the_entry_fields(tmp_path: Path) -> None:
    cat = entries(
        tmp_path,
        {
            "proposals/0413-typed-widgets.md": LISTED,
            "proposals/0999-widget-kinds.md": "# Widget kinds\n\nKinds replace typed widgets.\n",
        },
    )
    item = next(e for e in cat.entries if e.id == "0413-typed-widgets")
    assert item.summary.startswith("Widgets may declare the kind of value they hold")
    assert (item.status, item.superseded_by) == ("implemented", ("proposals/0999-widget-kinds.md",))
    assert dict(item.facets) == {"authors": "Ada Example, Bo Example"}


def test_a_go_design_document_reads_its_author_and_date_as_facets(tmp_path: Path) -> None:
    text = (GO_DESIGN / "cryptography-principles.md").read_text("utf-8")
    (item,) = entries(tmp_path, {"proposals/cryptography-principles.md": text}).entries
    assert dict(item.facets) == {"authors": "Filippo Valsorda", "date": "June 2019"}
    assert not item.summary.startswith("Author")


def test_a_page_without_a_heading_is_an_entry_titled_by_its_name(tmp_path: Path) -> None:
    text = (GO_DESIGN / "25530-notary.md").read_text("utf-8")
    cat = entries(tmp_path, {"proposals/design/25530-notary.md": text})
    assert [(e.id, e.title) for e in cat.entries] == [("25530-notary", "25530 notary")]
    # a line that only links is the summary when nothing else is there
    assert cat.entries[0].summary == "Moved to golang.org/design/25530-sumdb."
    assert cat.diagnostics == ()


MADR_SKELETON = """# {short title of solved problem and solution}

## Context and Problem Statement

{Describe the context and problem statement.}

## Considered Options

- {title of option 1}

## Decision Outcome

Chosen option: "{title of option 1}", because {justification}.
"""
KEP_SKELETON = """# KEP-NNNN: Your short, descriptive title

<!-- Fill in every section; remove this comment when the KEP is complete. -->

## Summary

<!-- One paragraph that says what the KEP proposes. -->

## Motivation

<!-- Why this KEP is needed. -->

## Proposal
"""
GUIDE = """# How we write release notes

Every release note names the change, who it affects and what they must do.

## Summary

One sentence a user can act on: what changed for them.

## Motivation

Why the change was made, in the words of the person who asked for it.
"""
# A real KEP about a kind named ...Template: its folder ends in `-template`, its checklist
# keeps the template's reference links, and a section holds only subsections.
KEP_ABOUT_A_TEMPLATE = """# KEP-5978: ClusterResourceClaimTemplate

- [ ] User-facing documentation has been created in [kubernetes/website]

[kubernetes/website]: https://example.com/website

## Summary

A cluster-scoped template from which resource claims are made.

## Design Details

### Test Plan

Unit tests cover the new controller.

## Alternatives
"""
OUTPUT_SKELETON = """# Cost Report Template

Write the report to `out/report.md` with this structure, filled from real data only:

## Executive Summary

- Total monthly cost: $X
"""


@pytest.mark.parametrize(
    ("relpath", "text", "skipped"),
    [
        ("proposals/decisions/template.md", MADR_SKELETON, True),
        ("proposals/adr-template.md", "---\nstatus: {proposed | accepted}\n---\n" + MADR_SKELETON, True),
        ("proposals/NNNN-kep-template/README.md", KEP_SKELETON, True),
        ("proposals/design/TEMPLATE.md", (GO_DESIGN / "TEMPLATE.md").read_text("utf-8"), True),
        # named as a template, but says something: an entry
        ("proposals/release-notes-template.md", GUIDE, False),
        ("proposals/skills/cost/report-template.md", OUTPUT_SKELETON, False),
        ("proposals/template-index.md", "# Template index\n\nWhich template deploys what.\n", False),
        ("proposals/5978-cluster-resource-claim-template/README.md", KEP_ABOUT_A_TEMPLATE, False),
        # a skeleton not named as a template is read as written
        ("proposals/decisions/0007-choose.md", MADR_SKELETON, False),
    ],
)  # fmt: skip
def test_only_the_scaffolding_of_a_record_format_is_skipped_as_a_template(
    tmp_path: Path, relpath: str, text: str, skipped: bool
) -> None:
    cat = entries(tmp_path, {relpath: text})
    assert (cat.entries == ()) is skipped
    notes = [d.problem for d in cat.diagnostics if d.path == relpath]
    assert notes == ([document.SCAFFOLD] if skipped else [])
