"""Purposes, kinds and shelves (router.catalog.taxonomy, DESIGN 4.4)."""

from __future__ import annotations

import tomllib

import pytest

from router.base.errors import ConfigError
from router.catalog.taxonomy import (
    IMPLICIT_PURPOSE,
    Purpose,
    Taxonomy,
    declaration_tokens,
    from_table,
)

TABLE = tomllib.loads(
    """\
[purposes.rationale]
intent = "Why a choice was made, and what it rules out"
answers = ["why is it this way", "what was rejected"]

[purposes.procedure]
intent = "The steps that get a job done"
answers = ["how do I set this up"]

[kinds]
decision = "rationale"
how_to = "procedure"
skill = { purpose = "procedure" }

[shelves]
"docs/decisions/superseded/**" = "superseded_decision"
"docs/decisions/**" = "decision"
"docs/how-to/*.md" = "how_to"
"*.runbook.md" = "how_to"
"docs/**" = "note"
"""
)


def test_from_table_keeps_declaration_order() -> None:
    tax = from_table(TABLE, "kroute.toml")
    assert tax.purposes == (
        Purpose(
            "rationale",
            "Why a choice was made, and what it rules out",
            ("why is it this way", "what was rejected"),
        ),
        Purpose("procedure", "The steps that get a job done", ("how do I set this up",)),
    )
    assert tax.kinds == (("decision", "rationale"), ("how_to", "procedure"), ("skill", "procedure"))
    assert [glob for glob, _ in tax.shelves][:2] == [
        "docs/decisions/superseded/**",
        "docs/decisions/**",
    ]


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        # first match wins: the narrower shelf is declared first
        ("docs/decisions/superseded/0001-old.md", "superseded_decision"),
        ("docs/decisions/0002-storage.md", "decision"),
        ("docs/how-to/release.md", "how_to"),
        # `*` stays in one directory, so a nested how-to falls through to `docs/**`
        ("docs/how-to/deep/release.md", "note"),
        # a slash-less glob matches the base name at any depth; it precedes `docs/**`
        ("docs/ops/deploy.runbook.md", "how_to"),
        ("docs/README.md", "note"),
        ("notes/other.md", None),
        ("README.md", None),
    ],
)
def test_shelf_kind_first_match_wins(path: str, kind: str | None) -> None:
    assert from_table(TABLE, "kroute.toml").shelf_kind(path) == kind


def test_shelf_order_is_the_order_written() -> None:
    broad_first = from_table(
        {"shelves": {"docs/**": "note", "docs/decisions/**": "decision"}}, "kroute.toml"
    )
    assert broad_first.shelf_kind("docs/decisions/0001.md") == "note"


def test_purpose_of_with_taxonomy() -> None:
    tax = from_table(TABLE, "kroute.toml")
    assert tax.purpose_of("decision") == "rationale"
    assert tax.purpose_of("skill") == "procedure"
    assert tax.purpose_of("unmapped_kind") == ""


def test_purpose_of_without_taxonomy() -> None:
    tax = Taxonomy()
    assert tax.purpose_of("decision") == IMPLICIT_PURPOSE == "any"
    assert tax.shelf_kind("docs/decisions/0001.md") is None


def test_purpose_of_with_kinds_but_no_purposes_is_implicit() -> None:
    tax = from_table({"kinds": {"decision": "rationale"}}, "kroute.toml")
    assert tax.purpose_of("decision") == IMPLICIT_PURPOSE


def test_empty_table_is_an_empty_taxonomy() -> None:
    assert from_table({}, "kroute.toml") == Taxonomy()


def test_declaration_tokens_are_normalized_words() -> None:
    purpose = Purpose("rationale", "Why a choice-was made.", ("What was REJECTED?",))
    assert declaration_tokens(purpose) == frozenset(
        {"why", "a", "choice", "was", "made", "what", "rejected"}
    )


@pytest.mark.parametrize(
    ("table", "member"),
    [
        ({"purposes": "x"}, "`purposes`"),
        ({"purposes": {"rationale": "x"}}, "`purposes.rationale`"),
        ({"purposes": {"rationale": {"intent": 1}}}, "purposes.rationale.intent"),
        ({"purposes": {"rationale": {"answers": "why"}}}, "purposes.rationale.answers"),
        ({"purposes": {"rationale": {"answers": ["ok", 2]}}}, "purposes.rationale.answers"),
        ({"kinds": ["decision"]}, "`kinds`"),
        ({"kinds": {"decision": 1}}, "kinds.decision"),
        ({"kinds": {"decision": {"purpose": 1}}}, "kinds.decision"),
        (
            {"purposes": {"rationale": {}}, "kinds": {"how_to": "procedure"}},
            "kinds.how_to names purpose `procedure`",
        ),
        ({"shelves": ["docs/**"]}, "`shelves`"),
        ({"shelves": {"docs/**": 1}}, 'shelves."docs/**"'),
        ({"shelves": {"docs/**": ""}}, 'shelves."docs/**"'),
    ],
)
def test_errors_name_the_member_and_file(table: dict[str, object], member: str) -> None:
    with pytest.raises(ConfigError) as caught:
        from_table(table, "my.toml")
    assert member in str(caught.value)
    assert str(caught.value).startswith("my.toml: ")
