"""Limits on one entry (router.catalog.limit): one file may not hold the daemon."""

from __future__ import annotations

from collections.abc import Mapping

from router.catalog.entry import Entry, Section
from router.catalog.limit import (
    MAX_BODY_CHARS,
    MAX_GOVERNS,
    MAX_ITEMS,
    MAX_SECTIONS,
    MAX_TEXT_CHARS,
    capped,
)
from router.catalog.schema import from_front_matter


def md(meta: Mapping[str, object], path: str = "docs/x.md", shelf: str | None = None) -> Entry:
    return from_front_matter(meta, path, "markdown", shelf)


def test_an_entry_within_the_limits_is_returned_as_it_is() -> None:
    item = md({"id": "x", "title": "T", "tags": ["a", "b"], "relations": {"governs": ["src/**"]}})
    assert capped(item) == (item, ())
    assert capped(item)[0] is item


def test_governs_targets_past_the_limit_are_dropped() -> None:  # 5
    targets = [f"src/m{i}/**" for i in range(MAX_GOVERNS + 10)]
    item, cuts = capped(md({"id": "x", "relations": {"governs": targets}}))
    assert item.governs == tuple(targets[:MAX_GOVERNS])
    assert cuts == (f"governs: {MAX_GOVERNS + 10} items, the first {MAX_GOVERNS} kept",)


def test_text_past_the_limit_is_cut_and_long_list_items_dropped() -> None:  # 5
    long = "x" * (MAX_TEXT_CHARS + 1)
    item, cuts = capped(
        md({"id": "x", "title": long, "summary": "short", "tags": ["ok", long, "fine"]})
    )
    assert item.title == long[:MAX_TEXT_CHARS] and item.summary == "short"
    assert item.tags == ("ok", "fine")
    assert cuts == (
        f"title: {MAX_TEXT_CHARS + 1} characters, the first {MAX_TEXT_CHARS} kept",
        f"tags: 1 over {MAX_TEXT_CHARS} characters dropped",
    )


def test_notes_routing_and_facets_past_the_limits_are_cut() -> None:  # 5
    many = [f"t{i}" for i in range(MAX_ITEMS + 1)]
    notes = [{"id": f"n{i}", "note": "x" * (MAX_TEXT_CHARS + 5)} for i in range(MAX_ITEMS + 2)]
    facets = {f"f{i}": "v" for i in range(MAX_ITEMS + 3)}
    item, cuts = capped(md({"id": "x", "routing": {"domains": many}, "notes": notes, **facets}))
    assert item.routing.domains == tuple(many[:MAX_ITEMS])
    assert len(item.notes) == MAX_ITEMS
    assert all(len(n.text) == MAX_TEXT_CHARS for n in item.notes)
    assert len(item.facets) == MAX_ITEMS
    assert cuts == (
        f"routing.domains: {MAX_ITEMS + 1} items, the first {MAX_ITEMS} kept",
        f"notes: {MAX_ITEMS + 2} notes, the {MAX_ITEMS} most relevant kept, "
        f"{MAX_ITEMS} notes cut to {MAX_TEXT_CHARS} characters and {MAX_ITEMS} items",
        f"facets: {MAX_ITEMS + 3} fields, cut to {MAX_ITEMS} of at most {MAX_TEXT_CHARS} "
        "characters",
    )


def test_a_body_past_the_limit_is_cut_at_a_section() -> None:  # 5
    half = Section("Half", "y" * (MAX_BODY_CHARS // 2))
    item, cuts = capped(Entry("x", "doc", "x.md", "x.md", body=(half, half, half)))
    assert [s.heading for s in item.body] == ["Half", "Half"]  # the second one cut short
    assert sum(len(s.heading) + len(s.text) for s in item.body) == MAX_BODY_CHARS
    assert cuts and cuts[0].startswith(f"body: {3 * (4 + MAX_BODY_CHARS // 2)} characters")
    many = tuple(Section(f"H{i}", "z") for i in range(MAX_SECTIONS + 1))
    item, _ = capped(Entry("x", "doc", "x.md", "x.md", body=many))
    assert item.body == many[:MAX_SECTIONS]
