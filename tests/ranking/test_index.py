"""router.ranking.index: a catalog indexed whole (its stems posted in batches) is the same index
as one built an entry at a time, as the daemon applies changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.catalog import config, reader
from router.catalog.entry import Entry
from router.ranking.index import Index
from testing.paths import DEMO, FIXTURES


def entries_of(root: Path) -> tuple[Entry, ...]:
    file = root / "kroute.toml"
    return reader.load(config.load(file) if file.is_file() else config.bare(root)).entries


def one_at_a_time(entries: tuple[Entry, ...]) -> Index:
    index = Index()
    for item in entries:
        index.add(item)
    return index


def shape(index: Index) -> tuple[dict[str, tuple[list[int], list[int]]], dict[str, int]]:
    """Return every stem's posting (slots, impacts) and every token's df."""
    postings = {
        stem: (list(index.postings(stem)[0]), list(index.postings(stem)[1]))
        for stem in index._postings
    }
    return postings, dict(index._df)


@pytest.mark.parametrize("batch", [1 << 21, 7])
@pytest.mark.parametrize("root", [DEMO, FIXTURES / "adr"])
def test_a_catalog_indexed_whole_is_the_index_built_one_entry_at_a_time(
    root: Path, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("router.ranking.posting.BATCH_POSTINGS", batch)  # 7: many small batches
    entries = entries_of(root)
    assert len(entries) > 5
    whole, single = Index(entries), one_at_a_time(entries)
    assert shape(whole) == shape(single)
    assert whole.slots_end == single.slots_end == len(entries)


def test_an_entry_given_twice_is_replaced_as_add_replaces_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("router.ranking.posting.BATCH_POSTINGS", 7)
    entries = entries_of(DEMO)
    twice = (*entries, entries[0], *entries[1:3])
    whole, single = Index(twice), one_at_a_time(twice)
    assert shape(whole) == shape(single)
    assert len(whole) == len(entries)
    # and removing from an index built whole leaves what building without it gives
    whole.remove(entries[3].id)
    single.remove(entries[3].id)
    assert shape(whole) == shape(single)


def test_a_titles_leading_quantity_is_a_term_and_its_record_number_is_not() -> None:
    index = Index(
        [
            Entry(id="a", kind="doc", path="a.md", file="a.md", title="64-bit fields aligned"),
            Entry(id="b", kind="doc", path="b.md", file="b.md", title="12. Use Postgres"),
            Entry(id="c", kind="doc", path="c.md", file="c.md", title="0012-use-postgres"),
        ]
    )
    assert [index.slot(s).entry.id for s in index.postings("64")[0]] == ["a"]
    assert index.stem_df("12") == 0
