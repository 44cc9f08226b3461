"""The in-memory index: each entry's scored fields, postings and document frequencies.

Entries are added and removed in place (the daemon applies one changed file at a time); the
caller makes sure no route runs while a change is applied. Postings map a token to the
fields that hold it, so a route touches only the entries its terms reach.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from router import pattern, text
from router.entry import ROUTING_KEYS, Entry

STRUCTURED, FAMILY_TEXT, OPEN_FIRST, NOTES = range(4)
TIER_NAMES = ("structured", "family_text", "open_first", "notes")


@dataclass(frozen=True, slots=True)
class Field:
    """One scored field of an entry."""

    tier: int
    name: str
    normal: str
    tokens: tuple[str, ...]  # a tuple, not a set: a field holds a few words, and sets are big
    note: str | None = None  # the note id, for fields of a note


@dataclass(frozen=True, slots=True)
class Indexed:
    """An entry with its scored fields."""

    entry: Entry
    fields: tuple[Field, ...]

    def tokens(self) -> set[str]:
        """Return the union of the fields' tokens."""
        return {t for f in self.fields for t in f.tokens}


def fields_of(item: Entry) -> tuple[Field, ...]:
    """Return the scored fields of an entry, tier by tier, in DESIGN 5's order."""
    raw: list[tuple[int, str, str, str | None]] = []
    routing = item.routing
    for key in ROUTING_KEYS:
        raw.extend((STRUCTURED, key, value, None) for value in getattr(routing, key))
    raw.append((FAMILY_TEXT, "id", item.id, None))
    raw.append((FAMILY_TEXT, "title", item.title, None))
    raw.append((FAMILY_TEXT, "summary", item.summary, None))
    raw.append((FAMILY_TEXT, "tags", " ".join(item.tags), None))
    if not item.is_row:
        raw.append((FAMILY_TEXT, "path", item.path, None))
    raw.append((FAMILY_TEXT, "governs", " ".join(item.governs), None))
    raw.extend((OPEN_FIRST, "open_first", summary, None) for summary in item.open_first)
    for note in item.notes:
        raw.append((NOTES, "notes", note.text, note.id))
        raw.append((NOTES, "notes", " ".join(note.problem_spaces), note.id))
        raw.append((NOTES, "notes", " ".join(note.capabilities), note.id))
    out = []
    for tier, name, value, note_id in raw:
        normal = text.normalize(value)
        if normal:
            out.append(Field(tier, name, normal, text.tokens_of_normal(normal), note_id))
    return tuple(out)


class Index:
    """Entries by slot, postings token -> {slot: field positions as a bit mask}, and df per
    token. A bit mask, because a tuple per posting costs more memory than the rest of an
    entry at 100k entries, while ints below 257 cost nothing (CPython caches them)."""

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self._slots: dict[int, Indexed] = {}
        self._by_id: dict[str, int] = {}
        self._postings: dict[str, dict[int, int]] = {}
        self._df: dict[str, int] = {}
        self._next = 0
        # governs targets: literal paths by path, globs by pattern (few distinct ones)
        self._literal: dict[str, set[int]] = {}
        self._globs: dict[str, set[int]] = {}
        # succession claims: old id -> ids of entries that say they supersede it
        self._claims: dict[str, set[str]] = {}
        for item in entries:
            self.add(item)

    # -- reading -------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._slots)

    def __iter__(self) -> Iterator[Indexed]:
        return iter(self._slots.values())

    @property
    def size(self) -> int:
        """N: the number of entries."""
        return len(self._slots)

    def df(self, token: str) -> int:
        """Return how many entries hold `token` in some field."""
        return self._df.get(token, 0)

    def weight(self, token: str) -> float:
        """Return w(t) = (N - df) / (N - 1), how much of the catalog the term rules out
        (1 when N < 2): a term every entry holds weighs nothing."""
        n = len(self._slots)
        if n < 2:
            return 1.0
        return (n - self._df.get(token, 0)) / (n - 1)

    def distinctive(self, token: str) -> bool:
        """Return whether at most half of the entries hold `token` (all are, when N < 2)."""
        n = len(self._slots)
        return n < 2 or 2 * self._df.get(token, 0) <= n

    def postings(self, token: str) -> dict[int, int]:
        """Return slot -> bit mask of the positions of the fields holding `token` (do not
        modify; read the mask with `positions`)."""
        return self._postings.get(token, {})

    def slot(self, slot: int) -> Indexed:
        """Return the indexed entry in `slot`."""
        return self._slots[slot]

    def slot_of(self, entry_id: str) -> int:
        """Return the slot of the entry with this id. Raises KeyError."""
        return self._by_id[entry_id]

    def get(self, entry_id: str) -> Entry | None:
        """Return the entry with this id, or None."""
        slot = self._by_id.get(entry_id)
        return None if slot is None else self._slots[slot].entry

    def governing(self, path: str) -> list[Entry]:
        """Return the entries whose governs targets cover the repository-relative `path`, in
        path order. Patterns that cover every path are not anchors (see `pattern`)."""
        path = pattern.clean(path)
        slots: set[int] = set()
        parts = path.split("/")
        for i in range(1, len(parts) + 1):
            slots.update(self._literal.get("/".join(parts[:i]), ()))
        for glob, holders in self._globs.items():
            if pattern.covers(glob, path):
                slots.update(holders)
        return sorted((self._slots[s].entry for s in slots), key=lambda e: e.path)

    def successor(self, entry_id: str) -> str | None:
        """Return the id of the entry in the catalog that supersedes `entry_id`, or None:
        its own `superseded_by` first, else the first (by id) entry claiming `supersedes`."""
        item = self.get(entry_id)
        if item is not None:
            for candidate in item.superseded_by:
                if candidate in self._by_id and candidate != entry_id:
                    return candidate
        for candidate in sorted(self._claims.get(entry_id, ())):
            if candidate in self._by_id and candidate != entry_id:
                return candidate
        return None

    def entries(self) -> list[Entry]:
        """Return every entry, in path order."""
        return sorted((i.entry for i in self._slots.values()), key=lambda e: e.path)

    # -- changing ------------------------------------------------------------------------

    def add(self, item: Entry) -> None:
        """Index an entry; an entry with the same id is replaced."""
        if item.id in self._by_id:
            self.remove(item.id)
        fields = fields_of(item)
        masks: dict[str, int] = {}
        for position, fld in enumerate(fields):
            for token in fld.tokens:
                masks[token] = masks.get(token, 0) | (1 << position)
        slot = self._next
        self._next += 1
        self._slots[slot] = Indexed(item, fields)
        self._by_id[item.id] = slot
        for token, mask in masks.items():
            self._postings.setdefault(token, {})[slot] = mask
            self._df[token] = self._df.get(token, 0) + 1
        for target in item.governs:
            self._targets(target).setdefault(_target_key(target), set()).add(slot)
        for old in item.supersedes:
            self._claims.setdefault(old, set()).add(item.id)

    def remove(self, entry_id: str) -> None:
        """Remove the entry with this id (nothing happens when there is none)."""
        slot = self._by_id.pop(entry_id, None)
        if slot is None:
            return
        indexed = self._slots.pop(slot)
        for target in indexed.entry.governs:
            table = self._targets(target)
            holders = table.get(_target_key(target))
            if holders is not None:
                holders.discard(slot)
                if not holders:
                    del table[_target_key(target)]
        for old in indexed.entry.supersedes:
            claims = self._claims.get(old)
            if claims is not None:
                claims.discard(entry_id)
                if not claims:
                    del self._claims[old]
        for token in indexed.tokens():
            posting = self._postings[token]
            del posting[slot]
            if not posting:
                del self._postings[token]
            count = self._df[token] - 1
            if count:
                self._df[token] = count
            else:
                del self._df[token]

    def _targets(self, target: str) -> dict[str, set[int]]:
        return self._literal if pattern.compile(target).literal else self._globs


def _target_key(target: str) -> str:
    """Return the key a governs target is filed under ("" for patterns covering all)."""
    return "" if pattern.is_universal(target) else pattern.clean(target)


def positions(mask: int) -> list[int]:
    """Return the field positions set in a postings bit mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
