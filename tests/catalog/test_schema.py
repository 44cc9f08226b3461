"""The field mapping from each catalog format to entries (router.catalog.schema, DESIGN 4.1)."""

from __future__ import annotations

import datetime
from collections.abc import Mapping

import pytest

from router.catalog import pattern
from router.catalog.entry import Entry, Note, Routing
from router.catalog.formats.frontmatter import parse
from router.catalog.schema import FieldError, from_annex, from_front_matter


def md(meta: Mapping[str, object], path: str = "docs/x.md", shelf: str | None = None) -> Entry:
    return from_front_matter(meta, path, "markdown", shelf)


def yaml_md(block: str, path: str = "docs/x.md", fmt: str = "markdown") -> Entry:
    """Build an entry from front matter text, parsed for real."""
    return from_front_matter(parse(block).meta, path, fmt, None)


# --- markdown: identity ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("meta", "expected"),
    [
        ({"id": "HW-DR-0001", "slug": "s", "name": "n"}, "HW-DR-0001"),
        ({"slug": "storage", "name": "n"}, "storage"),
        ({"name": "storage-name"}, "storage-name"),
        ({}, "0001-storage"),
        ({"id": "", "slug": "fallback"}, "fallback"),
        ({"id": None, "name": "named"}, "named"),
        ({"id": 42}, "42"),
        ({"id": "  padded  "}, "padded"),
    ],
)
def test_markdown_id(meta: Mapping[str, object], expected: str) -> None:
    assert md(meta, "docs/decisions/0001-storage.md").id == expected


def test_markdown_id_from_stem_drops_every_suffix() -> None:
    assert md({}, "docs/notes/plan.v2.md").id == "plan"


@pytest.mark.parametrize(
    ("meta", "expected"),
    [
        ({"title": "T", "name": "N", "display_name": "D"}, "T"),
        ({"name": "N", "display_name": "D"}, "N"),
        ({"display_name": "D"}, "D"),
        ({}, ""),
    ],
)
def test_markdown_title(meta: Mapping[str, object], expected: str) -> None:
    assert md(meta).title == expected


def test_markdown_summary_prefers_summary_over_description() -> None:
    assert md({"summary": "S", "description": "D"}).summary == "S"
    assert md({"description": "D"}).summary == "D"
    assert md({"summary": "", "description": "D"}).summary == "D"


def test_markdown_tags_list_or_comma_string() -> None:
    assert md({"tags": ["db", "storage"]}).tags == ("db", "storage")
    assert md({"tags": "db, storage ,, cache"}).tags == ("db", "storage", "cache")
    assert md({"tags": ["db", 3, None, ""]}).tags == ("db", "3")
    assert md({"tags": "single"}).tags == ("single",)
    assert md({}).tags == ()


# --- markdown: kind --------------------------------------------------------------------


def test_kind_from_front_matter_wins_over_shelf() -> None:
    assert md({"kind": "decision", "doc_type": "review"}, shelf="how_to").kind == "decision"


def test_kind_from_doc_type() -> None:
    assert md({"doc_type": "review_record"}, shelf="design_spec").kind == "review_record"
    assert md({"kind": "", "doc_type": "review_record"}).kind == "review_record"


def test_kind_from_shelf_then_doc() -> None:
    assert md({}, shelf="how_to").kind == "how_to"
    assert md({}).kind == "doc"


# --- markdown: status and warrant ------------------------------------------------------


def test_status_and_routing_status() -> None:
    assert md({"status": "current"}).status == "current"
    assert md({"routing": {"status": "draft"}}).status == "draft"
    assert md({"status": "current", "routing": {"status": "draft"}}).status == "current"


def test_warrant_and_provenance_warrant() -> None:
    assert md({"warrant": "asserted"}).warrant == "asserted"
    assert md({"provenance": {"warrant": "proposed", "by": "x"}}).warrant == "proposed"
    assert md({"warrant": "accepted", "provenance": {"warrant": "asserted"}}).warrant == "accepted"
    assert md({}).warrant == ""


def test_unwarranted_from_provenance() -> None:
    item = yaml_md("id: x\nstatus: current\nprovenance:\n  warrant: asserted\n")
    assert item.unwarranted and item.unreviewed_reason == "asserted"


# --- markdown: routing summary ---------------------------------------------------------

ROUTED = """\
id: provider-backoff
routing:
  problem_spaces: [rate limit backoff, provider quota]
  capabilities: [retry scheduling]
  domains: [agent-runtime]
  clusters: [provider-control]
notes:
  - id: n-low
    note: Keep a retry receipt.
    relevance: 10
    routing:
      problem_spaces: [retry receipt, provider quota]
      capabilities: [receipts]
  - id: n-high
    text: Back off across providers.
    relevance: 90
    problem_spaces: [multi provider backoff]
    capabilities: [retry scheduling, fallback]
"""


def test_routing_summary_derived_from_block_and_notes_in_written_order() -> None:
    item = yaml_md(ROUTED)
    assert item.routing == Routing(
        problem_spaces=(
            "rate limit backoff",
            "provider quota",
            "retry receipt",
            "multi provider backoff",
        ),
        capabilities=("retry scheduling", "receipts", "fallback"),
        domains=("agent-runtime",),
        clusters=("provider-control",),
    )


def test_routing_summary_as_written_ignores_block_and_notes() -> None:
    item = yaml_md(
        ROUTED + "routing_summary:\n  problem_spaces: [only this]\n  domains: [d1, d1]\n"
    )
    assert item.routing == Routing(problem_spaces=("only this",), domains=("d1", "d1"))


def test_notes_sorted_by_relevance_desc_then_id() -> None:
    item = md(
        {
            "notes": [
                {"id": "b", "note": "B", "relevance": 50},
                {"id": "z", "note": "Z", "relevance": 90},
                {"id": "a", "note": "A"},
                "a plain note",
                {"note": "no id", "relevance": 70},
            ]
        }
    )
    assert [n.id for n in item.notes] == ["z", "note-5", "a", "b", "note-4"]
    assert item.notes[0] == Note("z", "Z", 90.0)
    assert item.notes[-1].text == "a plain note"
    assert item.notes[2].relevance == 50


def test_note_text_fields() -> None:
    item = md({"notes": [{"id": "n", "summary": "from summary"}, {"id": "m", "text": "t"}]})
    assert {n.id: n.text for n in item.notes} == {"n": "from summary", "m": "t"}


def test_open_first_summaries() -> None:
    item = md(
        {
            "open_first": [
                {"summary": "Read the decision first", "path": "docs/d.md"},
                "plain text",
                {"path": "no-summary.md"},
                {"summary": ""},
            ]
        }
    )
    assert item.open_first == ("Read the decision first", "plain text")
    assert md({"open_first": "just one"}).open_first == ("just one",)


# --- markdown: relations ---------------------------------------------------------------


def test_governs_flattened_from_strings_lists_and_mappings() -> None:
    item = yaml_md(
        """\
id: storage
relations:
  governs:
    - src/storage/**
    - [src/cache, src/db.py]
    - to: migrations/
    - to: [lib/a.py, lib/b.py]
    - src/storage/**
"""
    )
    assert item.governs == (
        "src/storage/**",
        "src/cache",
        "src/db.py",
        "migrations/",
        "lib/a.py",
        "lib/b.py",
    )


def test_governs_single_string() -> None:
    assert md({"relations": {"governs": "src/ingest/**"}}).governs == ("src/ingest/**",)


def test_supersedes_and_superseded_by() -> None:
    item = md(
        {
            "relations": {
                "supersedes": "HW-DR-0001",
                "superseded_by": ["HW-DR-0070", {"to": "HW-DR-0071"}],
            }
        }
    )
    assert item.supersedes == ("HW-DR-0001",)
    assert item.superseded_by == ("HW-DR-0070", "HW-DR-0071")


def test_scalar_facets_including_dates() -> None:
    item = yaml_md(
        "id: x\ntitle: T\nstatus_since: 2026-08-11\nreview_count: 3\nratio: 0.5\n"
        "sealed: true\nowner: team-a\nempty:\nlisted: [a]\nmapped: {a: 1}\n"
    )
    assert item.facets == (
        ("owner", "team-a"),
        ("ratio", "0.5"),
        ("review_count", "3"),
        ("sealed", "true"),
        ("status_since", "2026-08-11"),
    )


def test_datetime_facet() -> None:
    item = md({"updated": datetime.datetime(2026, 1, 2, 3, 4, 5)})
    assert item.facets == (("updated", "2026-01-02T03:04:05"),)


def test_markdown_path_and_file() -> None:
    item = md({"id": "x"}, "docs/a/b.md")
    assert (item.path, item.file, item.is_row) == ("docs/a/b.md", "docs/a/b.md", False)
    assert item.governs == () and item.always_apply is False


# --- wrong types -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("meta", "field"),
    [
        ({"title": ["a", "b"]}, "title"),
        ({"id": {"a": 1}}, "id"),
        ({"summary": ["x"]}, "summary"),
        ({"status": ["current"]}, "status"),
        ({"kind": ["decision"]}, "kind"),
        ({"tags": {"a": 1}}, "tags"),
        ({"tags": [["nested"]]}, "tags"),
        ({"warrant": ["x"]}, "warrant"),
        ({"provenance": "asserted"}, "provenance"),
        ({"routing": "rate limit"}, "routing"),
        ({"routing": {"domains": {"a": 1}}}, "routing.domains"),
        ({"routing": {"problem_spaces": [{"a": 1}]}}, "routing.problem_spaces"),
        ({"routing_summary": ["x"]}, "routing_summary"),
        ({"relations": ["x"]}, "relations"),
        ({"relations": {"governs": [{"path": "x"}]}}, "relations.governs"),
        ({"relations": {"supersedes": [{"id": "x"}]}}, "relations.supersedes"),
        ({"notes": "a note"}, "notes"),
        ({"notes": [["x"]]}, "notes[1]"),
        ({"notes": [{"id": "n", "relevance": "high"}]}, "notes[1].relevance"),
        ({"notes": [{"id": "n"}, {"id": "m", "relevance": True}]}, "notes[2].relevance"),
        ({"notes": [{"id": "n", "routing": "x"}]}, "notes[1].routing"),
        ({"notes": [{"id": ["n"]}]}, "notes[1].id"),
        ({"open_first": {"summary": "x"}}, "open_first"),
        ({"open_first": [{"summary": ["x"]}]}, "open_first[1].summary"),
        ({"source_kind": ["x"]}, "source_kind"),
    ],
)
def test_wrong_types_raise_field_error_naming_the_field(
    meta: Mapping[str, object], field: str
) -> None:
    with pytest.raises(FieldError) as caught:
        md(meta)
    assert f"`{field}" in str(caught.value)


def test_wrong_type_inside_routing_summary_names_it() -> None:
    with pytest.raises(FieldError) as caught:
        md({"routing_summary": {"problem_spaces": {"a": 1}}})
    assert "`routing_summary.problem_spaces`" in str(caught.value)


# --- skill -----------------------------------------------------------------------------


def test_skill_mapping() -> None:
    item = yaml_md(
        "name: pdf-tools\ndescription: Fill and merge PDF forms.\n"
        "when_to_use: When a task edits a PDF form.\npaths: src/pdf/**, docs/forms/*.md\n",
        ".claude/skills/pdf/SKILL.md",
        "skill",
    )
    assert item.id == "pdf-tools"
    assert item.kind == "skill"
    assert item.title == "pdf-tools"
    assert item.summary == "Fill and merge PDF forms."
    assert item.open_first == ("When a task edits a PDF form.",)
    assert item.governs == ("src/pdf/**", "docs/forms/*.md")


def test_skill_id_from_directory_and_list_fields() -> None:
    item = from_front_matter(
        {
            "description": "d",
            "when_to_use": ["first case", "second case"],
            "paths": ["a/**", "b/*.py"],
            "open_first": [{"summary": "explicit"}],
        },
        ".claude/skills/release-notes/SKILL.md",
        "skill",
        None,
    )
    assert item.id == "release-notes"
    assert item.open_first == ("explicit", "first case", "second case")
    assert item.governs == ("a/**", "b/*.py")


def test_skill_kind_can_be_overridden() -> None:
    item = from_front_matter({"kind": "how_to"}, "s/x/SKILL.md", "skill", "shelfkind")
    assert item.kind == "how_to"
    assert from_front_matter({}, "s/x/SKILL.md", "skill", "shelfkind").kind == "shelfkind"


# --- rule ------------------------------------------------------------------------------


def test_rule_with_unquoted_comma_globs() -> None:
    item = yaml_md(
        "description: Vue and JSX components\nglobs: *.vue, *.jsx\nalwaysApply: false",
        ".cursor/rules/frontend.mdc",
        "rule",
    )
    assert (item.id, item.kind) == ("frontend", "rule")
    assert item.summary == "Vue and JSX components"
    assert item.governs == ("*.vue", "*.jsx")
    assert item.always_apply is False
    assert pattern.covers(item.governs[0], "web/components/Button.vue")


def test_rule_with_list_globs_and_leading_slash() -> None:
    item = yaml_md(
        'description: src\nglobs:\n  - /src/**\n  - "**/*.ts"\n', ".cursor/rules/src.mdc", "rule"
    )
    assert item.governs == ("/src/**", "**/*.ts")
    assert pattern.covers(item.governs[0], "src/app/main.ts")
    assert not pattern.covers(item.governs[0], "lib/src/main.ts")


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, True), (False, False), ("true", True), ("False", False), (None, False)],
)
def test_rule_always_apply(value: object, expected: bool) -> None:
    item = from_front_matter({"alwaysApply": value}, ".cursor/rules/a.mdc", "rule", None)
    assert item.always_apply is expected


def test_rule_always_apply_wrong_type() -> None:
    with pytest.raises(FieldError, match="alwaysApply"):
        from_front_matter({"alwaysApply": "sometimes"}, ".cursor/rules/a.mdc", "rule", None)


def test_rule_empty_description_is_allowed() -> None:
    item = yaml_md("description:\nglobs: src/**\nalwaysApply: true", ".cursor/rules/r.mdc", "rule")
    assert item.summary == ""
    assert item.always_apply is True
    assert item.governs == ("src/**",)


def test_globs_and_relations_governs_merge_without_duplicates() -> None:
    item = from_front_matter(
        {"globs": "src/**, lib/**", "relations": {"governs": ["src/**", "docs/"]}},
        ".cursor/rules/r.mdc",
        "rule",
        None,
    )
    assert item.governs == ("src/**", "docs/", "lib/**")


def test_markdown_ignores_globs_and_apply_to() -> None:
    item = md({"globs": "src/**", "applyTo": "**/*.py", "paths": "x/**", "alwaysApply": True})
    assert item.governs == ()
    assert item.always_apply is False


# --- instruction -----------------------------------------------------------------------


def test_instruction_mapping() -> None:
    item = yaml_md(
        "description: Rust conventions\napplyTo: '**/*.rs, crates/**'\n",
        ".github/instructions/rust.instructions.md",
        "instruction",
    )
    assert item.id == "rust.instructions"
    assert item.kind == "instruction"
    assert item.summary == "Rust conventions"
    assert item.governs == ("**/*.rs", "crates/**")


def test_instruction_name_is_id_and_title() -> None:
    item = from_front_matter(
        {"name": "Rust guide", "applyTo": ["**/*.rs"]},
        ".github/instructions/rust.instructions.md",
        "instruction",
        None,
    )
    assert (item.id, item.title, item.governs) == ("Rust guide", "Rust guide", ("**/*.rs",))


def test_instruction_and_rule_of_the_same_stem_do_not_collide() -> None:
    rule = from_front_matter({}, ".cursor/rules/rust.mdc", "rule", None)
    instruction = from_front_matter(
        {}, ".github/instructions/rust.instructions.md", "instruction", None
    )
    assert rule.id != instruction.id


# --- annex rows ------------------------------------------------------------------------

ROW: dict[str, object] = {
    "slug": "provider-backoff",
    "display_name": "Provider Backoff",
    "description": "Back off across providers.",
    "tags": ["retry", "backoff"],
    "source_kind": "sanitized_fixture",
    "routing": {"problem_spaces": ["rate limit"], "domains": ["agent-runtime"]},
    "open_first": [{"summary": "Start with the retry receipt."}],
    "notes": [
        {
            "id": "n1",
            "note": "Keep the receipt.",
            "relevance": 80,
            "routing": {"problem_spaces": ["receipts"], "capabilities": ["retry"]},
        }
    ],
}


def test_annex_row_mapping() -> None:
    item = from_annex(ROW, "docs/techniques.catalog.json", 1)
    assert item.id == "provider-backoff"
    assert item.kind == "annex"
    assert item.path == "docs/techniques.catalog.json#provider-backoff"
    assert item.file == "docs/techniques.catalog.json"
    assert item.is_row is True
    assert item.title == "Provider Backoff"
    assert item.summary == "Back off across providers."
    assert item.tags == ("retry", "backoff")
    assert item.source_kind == "sanitized_fixture"
    assert item.open_first == ("Start with the retry receipt.",)
    assert item.notes == (Note("n1", "Keep the receipt.", 80.0, ("receipts",), ("retry",)),)
    assert item.routing == Routing(
        problem_spaces=("rate limit", "receipts"),
        capabilities=("retry",),
        domains=("agent-runtime",),
    )


def test_annex_routing_summary_as_written() -> None:
    row = {**ROW, "routing_summary": {"clusters": ["provider-control"]}}
    item = from_annex(row, "c.json", 1)
    assert item.routing == Routing(clusters=("provider-control",))


def test_annex_kind_when_given() -> None:
    assert from_annex({**ROW, "kind": "technique"}, "c.json", 1).kind == "technique"


def test_annex_slug_falls_back_to_id() -> None:
    assert from_annex({"id": "by-id"}, "c.json", 1).path == "c.json#by-id"


def test_annex_without_slug_names_its_place() -> None:
    with pytest.raises(FieldError, match=r"annexes\[3\]"):
        from_annex({"display_name": "x"}, "c.json", 3)


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"slug": ["x"]}, "slug"),
        ({"slug": "x", "tags": {"a": 1}}, "tags"),
        ({"slug": "x", "routing": ["a"]}, "routing"),
        ({"slug": "x", "routing_summary": "a"}, "routing_summary"),
        ({"slug": "x", "routing_summary": {"domains": {"a": 1}}}, "routing_summary.domains"),
        ({"slug": "x", "notes": {"a": 1}}, "notes"),
        ({"slug": "x", "open_first": 3}, "open_first"),
        ({"slug": "x", "description": ["a"]}, "description"),
    ],
)
def test_annex_wrong_types(row: Mapping[str, object], field: str) -> None:
    with pytest.raises(FieldError) as caught:
        from_annex(row, "c.json", 1)
    assert f"`{field}" in str(caught.value)


def test_targets_nested_a_thousand_deep_are_read_without_recursion() -> None:  # 7
    nested: object = "src/deep/**"
    for _ in range(5000):
        nested = [nested, "src/flat/**"] if isinstance(nested, str) else [nested]
    item = from_annex({"slug": "deep", "relations": {"governs": nested}}, "c.json", 1)
    assert item.governs == ("src/deep/**", "src/flat/**")
