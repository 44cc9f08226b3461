"""Catalog entries a test builds by hand."""

from __future__ import annotations

from typing import Any

from router.catalog.entry import Entry


def doc(ident: str, folder: str = "", **fields: Any) -> Entry:
    """Return an entry of kind `doc` with the id `ident`, at <folder><ident>.md, with
    `fields`."""
    path = f"{folder}{ident}.md"
    return Entry(id=ident, kind="doc", path=path, file=path, **fields)
