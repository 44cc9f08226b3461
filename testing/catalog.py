"""The demo catalog as the router reads it (the real config and reader), read once per test
process: its config, its entries and their index."""

from __future__ import annotations

from functools import cache

from router.catalog import config, reader
from router.catalog.config import Config
from router.catalog.entry import Entry
from router.ranking.index import Index
from testing.paths import DEMO


@cache
def demo_config() -> Config:
    """Return the demo catalog's config (kroute.toml: its roots, shelves and taxonomy)."""
    return config.load(DEMO / "kroute.toml")


@cache
def demo_entries() -> tuple[Entry, ...]:
    """Return the demo catalog's entries, read from disk by the reader."""
    return reader.load(demo_config()).entries


def demo_index() -> Index:
    """Return a fresh index of the demo catalog's entries (an Index is mutable: one a test
    may change is its own)."""
    return Index(demo_entries())


def demo_entry(ident: str) -> Entry:
    """Return the demo catalog's entry of id `ident`. Raises KeyError when there is none."""
    for item in demo_entries():
        if item.id == ident:
            return item
    raise KeyError(ident)
