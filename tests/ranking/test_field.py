"""router.ranking.field: an entry's scored fields tier by tier (DESIGN 5) with their exact
tokens, its body's fields read on demand, and the ranker's per-tier stem counts of them."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from router.catalog import config, reader
from router.catalog.entry import Entry, Section
from router.ranking import bm25f, field, term
from router.ranking.field import BODY, FAMILY_TEXT, NOTES, OPEN_FIRST, STRUCTURED, Field
from testing.catalog import demo_entry
from testing.entries import doc

RECORD = """\
# 64-bit event ids

Events are numbered with 64-bit ids from the parseConfig step.

## Context

The old ids ran out.

## Decision

Use snowflake ids.

## Rollout plan

Switch the writer first, then the readers.
"""
NUMBERED = """\
---
id: ADR-8
title: "8. Use Postgres"
summary: Keep events in Postgres.
tags: [storage, events]
---

Body text.
"""


@pytest.fixture
def read(tmp_path: Path) -> dict[str, Entry]:
    """The entries of a small catalog written to disk and read by the real reader, by id."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "0008-64-bit-ids.md").write_text(RECORD)
    (docs / "use-postgres.md").write_text(NUMBERED)
    entries = reader.load(config.bare(tmp_path)).entries
    return {e.id: e for e in entries}


def named(fields: tuple[Field, ...], name: str) -> list[Field]:
    return [f for f in fields if f.name == name]


def test_the_fields_come_tier_by_tier_in_the_design_order() -> None:
    fields = field.fields_of(demo_entry("retry-backoff-jitter"))
    tiers = [f.tier for f in fields]
    assert tiers == sorted(tiers)
    assert {f.tier for f in fields} == {STRUCTURED, FAMILY_TEXT, OPEN_FIRST, NOTES}
    assert [f.name for f in fields if f.tier == STRUCTURED][:1] == ["problem_spaces"]
    assert [f.name for f in fields if f.tier == FAMILY_TEXT] == ["id", "title", "summary", "tags"]
    assert all(f.normal and f.tokens for f in fields)


def test_a_field_holds_its_normal_text_and_its_tokens() -> None:
    item = demo_entry("TW-DR-0002")
    (title,) = named(field.fields_of(item), "title")
    assert title.tier == FAMILY_TEXT and title.label == "title"
    assert title.normal == "throttle per tenant not per api key"
    assert title.tokens == ("throttle", "per", "tenant", "not", "api", "key")
    clusters = named(field.fields_of(item), "clusters")
    assert [(f.tier, f.normal) for f in clusters] == [(STRUCTURED, "traffic control")]


def test_a_row_of_an_annex_has_no_path_field_a_document_has() -> None:
    row = demo_entry("retry-backoff-jitter")
    assert row.is_row and named(field.fields_of(row), "path") == []
    (path,) = named(field.fields_of(demo_entry("TW-DR-0002")), "path")
    assert path.normal == "docs decisions 0002 throttle per tenant md"


def test_note_fields_carry_their_note_id() -> None:
    item = demo_entry("retry-backoff-jitter")
    notes = named(field.fields_of(item), "notes")
    assert notes and all(f.tier == NOTES for f in notes)
    assert {f.note for f in notes} == {n.id for n in item.notes}
    assert all(f.note is None for f in field.fields_of(item) if f.name != "notes")


def test_a_title_record_number_is_no_term_but_a_quantity_is_kept_as_a_part(
    read: dict[str, Entry],
) -> None:
    (numbered,) = named(field.fields_of(read["ADR-8"]), "title")
    assert numbered.normal == "use postgres" and numbered.parts == ""
    (quantity,) = named(field.fields_of(read["0008-64-bit-ids"]), "title")
    assert quantity.normal == "bit event ids" and quantity.parts == "64"


def test_empty_fields_are_left_out() -> None:
    fields = field.fields_of(doc("lonely", "docs/"))
    assert [f.name for f in fields] == ["id", "path"]


def test_body_fields_are_one_per_section_named_by_heading(read: dict[str, Entry]) -> None:
    body = field.body_fields(read["0008-64-bit-ids"])
    assert [f.label for f in body] == [
        "body (text)",
        "body (Context)",
        "body (Decision)",
        "body (Rollout plan)",
    ]
    assert all(f.tier == BODY for f in body)
    assert body[2].normal == "use snowflake ids"
    assert field.body_fields(doc("x", body=(Section("Empty", " "),))) == ()


def test_a_template_heading_is_no_word_of_its_section_a_subject_heading_is() -> None:
    assert field.section_words(Section("Decision", "Use snowflake ids.")) == "Use snowflake ids."
    assert field.section_words(Section("Consequences", "More ids.")) == "More ids."
    assert field.section_words(Section("Rollout plan", "Switch.")) == "Rollout plan Switch."
    assert field.section_words(Section("", "Lead text.")) == "Lead text."


def test_words_of_counts_each_field_at_its_share_within_its_tier(read: dict[str, Entry]) -> None:
    item = read["ADR-8"]
    tiers, exact = field.words_of(item, field.fields_of(item))
    assert len(tiers) == len(field.TIER_NAMES)
    (postgres,) = term.read("postgres")[0]
    # the title, the summary and the path each hold it once, each at its own share
    expected = sum(bm25f.share(name) for name in ("title", "summary", "path"))
    assert tiers[FAMILY_TEXT][postgres] == pytest.approx(expected)
    assert tiers[STRUCTURED] == {} and tiers[NOTES] == {}
    assert tiers[BODY] == dict(term.read("body text")[0])
    assert {"postgres", "events", "storage", "body", "text"} <= exact


def test_words_of_counts_the_words_inside_code_identifiers(read: dict[str, Entry]) -> None:
    item = read["0008-64-bit-ids"]
    tiers, exact = field.words_of(item, field.fields_of(item))
    # `parseConfig` is a word of its own and also its parts, parse and config
    (config_stem,) = term.read("config")[0]
    assert tiers[BODY][config_stem] == 1
    assert "parseconfig" in exact and "config" not in exact
    # in a field too, at the field's share
    summary = doc("x", "docs/", summary="Call parseConfig first")
    family = field.words_of(summary, field.fields_of(summary))[0][FAMILY_TEXT]
    assert family[config_stem] == pytest.approx(bm25f.share("summary"))
    # a template heading is not a body word; a subject heading is
    (rollout,) = term.read("rollout")[0]
    (decision,) = term.read("decision")[0]
    assert rollout in tiers[BODY] and decision not in tiers[BODY]


def test_an_indexed_entry_derives_its_fields_once_and_pickles_without_them() -> None:
    item = demo_entry("TW-DR-0008")
    indexed = field.Indexed(item)
    assert indexed.fields == field.fields_of(item)
    assert indexed.fields is indexed.fields  # kept once derived
    assert repr(indexed) == "Indexed('TW-DR-0008')"
    given = field.Indexed(item, (Field(FAMILY_TEXT, "title", "x", ("x",)),))
    assert [f.normal for f in given.fields] == ["x"]
    # a snapshot carries the entry alone: the fields are derived again after loading
    loaded = pickle.loads(pickle.dumps(given))
    assert loaded.entry == item and loaded.fields == field.fields_of(item)
