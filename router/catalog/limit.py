"""Limits on one catalog entry: what a single file may make the index hold.

A hostile or runaway file (forty thousand governs targets, a megabyte summary) must cost
the daemon milliseconds, not seconds: an entry past a limit is cut, and the cut is named in a
warning on its file (`capped`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from router.catalog.entry import NOTE_ROUTING_KEYS, ROUTING_KEYS, Entry, Note, Section

# What one entry may hold (`capped`). Real catalogs sit far below: the largest seen in the
# corpora are 18 governs targets, a 1,068-character summary, 7 keywords and a body of
# 54,000 characters in 47 sections. A file past them is generated or hostile, and indexing
# it whole would hold the daemon for seconds (40,000 governs targets took 4.5 s).
MAX_GOVERNS = 256  # governs targets: every routed path is matched against each of them
MAX_ITEMS = 256  # items of any other list field: tags, notes, routing lists, facets, ...
MAX_TEXT_CHARS = 4096  # one text value: a title, a summary, a note's text, one list item
MAX_BODY_CHARS = 128 * 1024  # the body, headings and text of every section together
MAX_SECTIONS = 512  # body sections; each is a field the index scores


_TEXT_FIELDS = ("id", "kind", "title", "summary", "status", "warrant", "source_kind")
_LIST_FIELDS = "tags open_first governs supersedes superseded_by keywords intent_patterns".split()


def capped(item: Entry) -> tuple[Entry, tuple[str, ...]]:
    """Return the entry cut to the limits above, and what was cut, one phrase per field
    (`governs: 40000 items, the first 256 kept`); `item` itself and () when it is within
    them. Text past MAX_TEXT_CHARS is cut off; a list item past it, list items past the
    count limit and body text past the body's limit are dropped (the first are kept)."""
    cuts: list[str] = []
    changes: dict[str, Any] = {}  # field -> cut value, for `replace`
    for name in _TEXT_FIELDS:
        text = _capped_text(getattr(item, name), name, cuts)
        if text is not None:
            changes[name] = text
    for name in _LIST_FIELDS:
        limit = MAX_GOVERNS if name == "governs" else MAX_ITEMS
        items = _capped_items(getattr(item, name), limit, name, cuts)
        if items is not None:
            changes[name] = items
    routing = {
        key: kept
        for key in ROUTING_KEYS
        if (kept := _capped_items(getattr(item.routing, key), MAX_ITEMS, f"routing.{key}", cuts))
        is not None
    }
    if routing:
        changes["routing"] = replace(item.routing, **routing)
    notes = _capped_notes(item.notes, cuts)
    if notes is not None:
        changes["notes"] = notes
    if len(item.facets) > MAX_ITEMS or any(
        len(k) > MAX_TEXT_CHARS or len(v) > MAX_TEXT_CHARS for k, v in item.facets
    ):
        changes["facets"] = tuple(
            (k[:MAX_TEXT_CHARS], v[:MAX_TEXT_CHARS]) for k, v in item.facets[:MAX_ITEMS]
        )
        cuts.append(
            f"facets: {len(item.facets)} fields, cut to {MAX_ITEMS} of at most "
            f"{MAX_TEXT_CHARS} characters"
        )
    body = _capped_body(item.body, cuts)
    if body is not None:
        changes["body"] = body
    if not changes:
        return item, ()
    return replace(item, **changes), tuple(cuts)


def _capped_text(text: str, name: str, cuts: list[str]) -> str | None:
    """Return `text` cut to MAX_TEXT_CHARS, noting the cut, or None when it fits."""
    if len(text) <= MAX_TEXT_CHARS:
        return None
    cuts.append(f"{name}: {len(text)} characters, the first {MAX_TEXT_CHARS} kept")
    return text[:MAX_TEXT_CHARS]


def _capped_items(
    items: tuple[str, ...], limit: int, name: str, cuts: list[str]
) -> tuple[str, ...] | None:
    """Return the first `limit` items no longer than MAX_TEXT_CHARS, noting what was
    dropped, or None when nothing was."""
    short = tuple(i for i in items if len(i) <= MAX_TEXT_CHARS)
    if len(short) == len(items) and len(items) <= limit:
        return None
    parts = []
    if len(short) < len(items):
        parts.append(f"{len(items) - len(short)} over {MAX_TEXT_CHARS} characters dropped")
    if len(short) > limit:
        parts.append(f"{len(short)} items, the first {limit} kept")
    cuts.append(f"{name}: {', '.join(parts)}")
    return short[:limit]


def _capped_notes(notes: tuple[Note, ...], cuts: list[str]) -> tuple[Note, ...] | None:
    """Return the MAX_ITEMS most relevant notes, each with its id and text cut to
    MAX_TEXT_CHARS and its lists as `_capped_items` cuts them; note the cuts (one phrase
    for all the notes), or return None when every note fits."""
    out: list[Note] = []
    changed = 0
    for note in notes[:MAX_ITEMS]:
        changes: dict[str, Any] = {}  # field -> cut value, for `replace`
        for name in ("id", "text"):
            text = _capped_text(getattr(note, name), name, [])
            if text is not None:
                changes[name] = text
        for name in NOTE_ROUTING_KEYS:
            items = _capped_items(getattr(note, name), MAX_ITEMS, name, [])
            if items is not None:
                changes[name] = items
        changed += bool(changes)
        out.append(replace(note, **changes) if changes else note)
    if len(notes) <= MAX_ITEMS and not changed:
        return None
    parts = []
    if len(notes) > MAX_ITEMS:
        parts.append(f"{len(notes)} notes, the {MAX_ITEMS} most relevant kept")
    if changed:
        parts.append(f"{changed} notes cut to {MAX_TEXT_CHARS} characters and {MAX_ITEMS} items")
    cuts.append(f"notes: {', '.join(parts)}")
    return tuple(out)


def _capped_body(body: Sequence[Section], cuts: list[str]) -> tuple[Section, ...] | None:
    """Return the body's first MAX_SECTIONS sections and MAX_BODY_CHARS characters, noting
    the cut, or None when it fits."""
    total = sum(len(s.heading) + len(s.text) for s in body)
    if total <= MAX_BODY_CHARS and len(body) <= MAX_SECTIONS:
        return None
    kept: list[Section] = []
    room = MAX_BODY_CHARS
    for section in body[:MAX_SECTIONS]:
        size = len(section.heading) + len(section.text)
        if size > room:
            if room > len(section.heading):
                kept.append(replace(section, text=section.text[: room - len(section.heading)]))
            break
        kept.append(section)
        room -= size
    held = sum(len(s.heading) + len(s.text) for s in kept)
    cuts.append(
        f"body: {total} characters in {len(body)} sections, "
        f"the first {held} characters in {len(kept)} kept"
    )
    return tuple(kept)
