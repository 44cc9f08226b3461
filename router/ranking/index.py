"""The in-memory index: each entry's scored fields, the ranker's postings, document frequencies.

Entries are added and removed in place (a snapshot's restore, tests), or a change is made to
a copy (`Index.revised`) that shares what it does not touch, so that the daemon's requests
read the index they hold whole while the next is made. Two views of an entry's words:
- seed 1's fields (tiers structured, family_text, open_first, notes, and the body sections
  read on demand) with their exact tokens, for the explain record (DESIGN 5);
- the ranker's postings: stem -> the entries holding it and each one's BM25F impact
  (DESIGN 5.1; `posting`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from router.catalog import pattern
from router.catalog.entry import EXCLUDED, Entry
from router.ranking import bm25f
from router.ranking.field import Indexed, fields_of, words_of
from router.ranking.posting import Batch, Posting, without


class Index:
    """Entries by slot, the ranker's postings per stem, and seed 1's df per exact token."""

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self._slots: dict[int, Indexed] = {}
        self._by_id: dict[str, int] = {}
        self._by_path: dict[str, str] = {}  # file path -> id, for relations written as links
        # a stem -> the ids qualified by their paths that were taken from it (stems collide)
        self._by_stem: dict[str, set[str]] = {}
        self._postings: dict[str, Posting] = {}
        self._df: dict[str, int] = {}
        self._next = 0
        # governs targets: literal paths by path, globs by pattern (few distinct ones)
        self._literal: dict[str, set[int]] = {}
        self._globs: dict[str, set[int]] = {}
        self._except: dict[int, tuple[str, ...]] = {}  # slot -> excluded patterns
        # entries with intent patterns (skill-rules.json), tried against every task
        self.triggered: set[int] = set()
        # succession claims: old id -> ids of entries that say they supersede it
        self._claims: dict[str, set[str]] = {}
        # a catalog loaded whole posts its entries' stems in batches (`posting.Batch`)
        batch = Batch(self._postings, self._df)
        for item in entries:
            self._add(item, batch)
        batch.post()

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
        """Return how many entries hold the exact token `token` in some field or the body."""
        return self._df.get(token, 0)

    def weight(self, token: str) -> float:
        """Return w(t) = (N - df) / (N - 1), how much of the catalog the term rules out
        (1 when N < 2): a term every entry holds weighs nothing."""
        n = len(self._slots)
        if n < 2:
            return 1.0
        return (n - self._df.get(token, 0)) / (n - 1)

    def stem_df(self, stem: str) -> int:
        """Return how many entries hold `stem` (the ranker's df)."""
        posting = self._postings.get(stem)
        return len(posting.slots) if posting is not None else 0

    def postings(self, stem: str) -> tuple[Sequence[int], Sequence[int]]:
        """Return (slots ascending, impacts in steps of IMPACT_STEP) of the entries holding
        `stem` (read-only)."""
        posting = self._postings.get(stem)
        if posting is None:
            return (), ()
        return posting.slots, posting.impacts

    def each_posting(self) -> Iterator[Posting]:
        """Return every stem's posting, in no particular order (what a snapshot writes)."""
        return iter(self._postings.values())

    @property
    def slots_end(self) -> int:
        """Return one past the highest slot ever given (slots are never reused)."""
        return self._next

    def slot(self, slot: int) -> Indexed:
        """Return the indexed entry in `slot`."""
        return self._slots[slot]

    def with_triggers(self) -> list[tuple[int, Entry]]:
        """Return (slot, entry) of the entries carrying skill triggers, in slot order."""
        return [(slot, self._slots[slot].entry) for slot in sorted(self.triggered)]

    def slot_of(self, entry_id: str) -> int:
        """Return the slot of the entry with this id. Raises KeyError."""
        return self._by_id[entry_id]

    def get(self, entry_id: str) -> Entry | None:
        """Return the entry with this id, or the one entry whose id was qualified from this
        stem; None when there is none, or several (see `named`)."""
        slot = self._by_id.get(entry_id)
        if slot is None:
            qualified = self._by_stem.get(entry_id, ())
            slot = self._by_id[next(iter(qualified))] if len(qualified) == 1 else None
        return None if slot is None else self._slots[slot].entry

    def named(self, entry_id: str) -> tuple[Entry, ...]:
        """Return the entry with this id; else those whose ids were qualified from this stem,
        by id; else none."""
        slot = self._by_id.get(entry_id)
        if slot is not None:
            return (self._slots[slot].entry,)
        ids = sorted(self._by_stem.get(entry_id, ()))
        return tuple(self._slots[self._by_id[i]].entry for i in ids)

    def governing(self, path: str, languages: bool = True) -> list[Entry]:
        """Return the entries whose governs targets cover the repository-relative `path`, in
        path order. Patterns that cover every path are not anchors (see `pattern`), and
        without `languages` neither are those that cover every file of an extension."""
        path = pattern.clean(path)
        slots: set[int] = set()
        parts = path.split("/")
        for i in range(1, len(parts) + 1):
            slots.update(self._literal.get("/".join(parts[:i]), ()))
        for glob, holders in self._globs.items():
            if (languages or not pattern.is_language_wide(glob)) and pattern.covers(glob, path):
                slots.update(holders)
        # a rule's path exclusion subtracts what its patterns cover
        slots = {
            s for s in slots if not any(pattern.covers(x, path) for x in self._except.get(s, ()))
        }
        return sorted((self._slots[s].entry for s in slots), key=lambda e: e.path)

    def resolve(self, reference: str) -> str | None:
        """Return the id of the entry a relation names: an id, or the file path of an entry
        (relations written as Markdown links), else None."""
        if reference in self._by_id:
            return reference
        return self._by_path.get(pattern.clean(reference))

    def successor(self, entry_id: str) -> str | None:
        """Return the id of the entry in the catalog that supersedes `entry_id`, or None:
        its own `superseded_by` first, else the first (by id) entry claiming `supersedes`."""
        item = self.get(entry_id)
        if item is not None:
            for candidate in item.superseded_by:
                found = self.resolve(candidate)
                if found is not None and found != entry_id:
                    return found
            claims = self._claims.get(entry_id, set()) | self._claims.get(item.path, set())
        else:
            claims = self._claims.get(entry_id, set())
        for candidate in sorted(claims):
            if candidate in self._by_id and candidate != entry_id:
                return candidate
        return None

    def entries(self) -> list[Entry]:
        """Return every entry, in path order."""
        return sorted((i.entry for i in self._slots.values()), key=lambda e: e.path)

    # -- changing ------------------------------------------------------------------------

    def add(self, item: Entry) -> None:
        """Index an entry; an entry with the same id is replaced."""
        batch = Batch(self._postings, self._df)
        self._add(item, batch)
        batch.post()

    def _add(self, item: Entry, batch: Batch) -> None:
        """Index an entry, its stems left in `batch` to post (`Batch.post`)."""
        if item.id in self._by_id:
            batch.post()  # the entry it replaces must be in its postings to leave
            self.remove(item.id)
        fields = fields_of(item)
        slot = self._next
        self._next += 1
        # The fields are not kept: a route derives those of its few candidates (`Indexed`),
        # as an index restored from a snapshot does, so a catalog loaded cold holds what a
        # restored one holds.
        self._slots[slot] = Indexed(item)
        self._by_id[item.id] = slot
        self._by_path.setdefault(pattern.clean(item.path), item.id)
        if item.stem and item.id != item.stem:
            self._by_stem.setdefault(item.stem, set()).add(item.id)
        tiers, exact = words_of(item, fields)
        batch.hold(slot, bm25f.frequencies(tiers), exact)
        for target in item.governs:
            if target.startswith(EXCLUDED):
                self._except[slot] = (*self._except.get(slot, ()), target[1:])
            else:
                self._targets(target).setdefault(_target_key(target), set()).add(slot)
        if item.intent_patterns or item.keywords:
            self.triggered.add(slot)
        for old in item.supersedes:
            self._claims.setdefault(pattern.clean(old), set()).add(item.id)

    def remove(self, entry_id: str) -> None:
        """Remove the entry with this id (nothing happens when there is none)."""
        slot, stems = self._unlink(entry_id)
        for stem in stems:
            posting = self._postings[stem]
            posting.remove(slot)
            if not posting.slots:
                del self._postings[stem]

    def revised(self, gone: Iterable[str], added: Iterable[Entry]) -> Index:
        """Return a copy of this index without the entries whose ids are `gone` and with the
        entries `added` (each replacing the one of its id). This index is left as it is, so
        that a request holding it reads it whole while the copy is made. The two share every
        entry and every posting the change does not touch: the copy costs the changed entries
        and the postings of their stems, beside a shallow copy of the tables."""
        new = Index()
        new._slots = dict(self._slots)
        new._by_id = dict(self._by_id)
        new._by_path = dict(self._by_path)
        new._by_stem = {stem: set(ids) for stem, ids in self._by_stem.items()}
        new._postings = dict(self._postings)
        new._df = dict(self._df)
        new._next = self._next
        new._literal = {key: set(slots) for key, slots in self._literal.items()}
        new._globs = {key: set(slots) for key, slots in self._globs.items()}
        new._except = dict(self._except)
        new.triggered = set(self.triggered)
        new._claims = {old: set(ids) for old, ids in self._claims.items()}
        incoming = {item.id: item for item in added}
        dropped: dict[str, list[int]] = {}
        for entry_id in {*gone, *incoming}:
            slot, stems = new._unlink(entry_id)
            for stem in stems:
                dropped.setdefault(stem, []).append(slot)
        for stem, slots in dropped.items():
            posting = without(new._postings[stem], slots)
            if posting is None:
                del new._postings[stem]
            else:
                new._postings[stem] = posting
        batch = Batch(new._postings, new._df, fresh=set(dropped))
        for item in incoming.values():
            new._add(item, batch)
        batch.post()
        return new

    def _unlink(self, entry_id: str) -> tuple[int, set[str]]:
        """Remove the entry with this id from every table but the postings; return its slot
        and the stems whose postings hold it (-1 and none when there is no such entry)."""
        slot = self._by_id.pop(entry_id, None)
        if slot is None:
            return -1, set()
        indexed = self._slots.pop(slot)
        item = indexed.entry
        if self._by_path.get(pattern.clean(item.path)) == entry_id:
            del self._by_path[pattern.clean(item.path)]
        qualified = self._by_stem.get(item.stem)
        if qualified is not None:
            qualified.discard(entry_id)
            if not qualified:
                del self._by_stem[item.stem]
        self._except.pop(slot, None)
        self.triggered.discard(slot)
        for target in item.governs:
            if target.startswith(EXCLUDED):
                continue
            table = self._targets(target)
            holders = table.get(_target_key(target))
            if holders is not None:
                holders.discard(slot)
                if not holders:
                    del table[_target_key(target)]
        for old in item.supersedes:
            claims = self._claims.get(pattern.clean(old))
            if claims is not None:
                claims.discard(entry_id)
                if not claims:
                    del self._claims[pattern.clean(old)]
        tiers, exact = words_of(item, indexed.fields)
        for token in exact:
            count = self._df[token] - 1
            if count:
                self._df[token] = count
            else:
                del self._df[token]
        return slot, {s for counts in tiers for s in counts}

    def _targets(self, target: str) -> dict[str, set[int]]:
        return self._literal if pattern.compile(target).literal else self._globs


def _target_key(target: str) -> str:
    """Return the key a governs target is filed under ("" for patterns covering all)."""
    return "" if pattern.is_universal(target) else pattern.clean(target)
