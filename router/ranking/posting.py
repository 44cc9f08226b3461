"""Postings: the entries holding one stem, with each one's BM25F impact (DESIGN 5.1).

Kept as two parallel arrays per stem, slots ascending and impacts in one byte each, because
with bodies the postings are most of what the daemon holds; `Batch` builds them for a
catalog loaded whole in a few sorts instead of an append per stem and entry.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable

import numpy

from router.ranking import bm25f

# Impacts are kept in one byte each: with bodies, postings are most of the daemon's memory,
# and 256 levels of a value below K1 + 1 order entries as well as a float does.
IMPACT_STEP = (bm25f.K1 + 1) / 255
_PER_STEP = 1 / IMPACT_STEP


def steps(frequencies: Iterable[float]) -> array[int]:
    """Return the impacts of pseudo-frequencies in steps of IMPACT_STEP, one byte each
    (never 0: an entry holding a stem is in its posting). Rounds half to even, as `round`."""
    values = numpy.fromiter(frequencies, dtype=numpy.float64)
    rounded = numpy.rint(bm25f.saturated(values) * _PER_STEP)
    return array("B", numpy.maximum(rounded, 1).astype(numpy.uint8).tobytes())


class Posting:
    """The entries holding one stem: slots in ascending order, and each one's impact in
    steps of IMPACT_STEP.

    Restored from a snapshot, the two are read-only views of the snapshot file mapped in
    memory (`snapshot`): the daemon need not copy a third of a gigabyte in before it
    answers. The first change makes them arrays of its own (`own`)."""

    __slots__ = ("impacts", "slots")

    def __init__(
        self,
        slots: array[int] | memoryview | None = None,
        impacts: array[int] | memoryview | None = None,
    ) -> None:
        self.slots: array[int] | memoryview = array("i") if slots is None else slots
        self.impacts: array[int] | memoryview = array("B") if impacts is None else impacts

    def own(self) -> tuple[array[int], array[int]]:
        """Return the slots and impacts as arrays this posting owns, copying them out of a
        mapped snapshot first (at C speed: the view's bytes)."""
        slots, impacts = self.slots, self.impacts
        if isinstance(slots, memoryview):
            view = slots
            slots = array("i")
            slots.frombytes(view.cast("B"))
            self.slots = slots
        if isinstance(impacts, memoryview):
            impacts = array("B", impacts)
            self.impacts = impacts
        return slots, impacts

    def remove(self, slot: int) -> None:
        at = bisect_left(self.slots, slot)
        if at < len(self.slots) and self.slots[at] == slot:
            slots, impacts = self.own()
            del slots[at]
            del impacts[at]


def without(posting: Posting, gone: Iterable[int]) -> Posting | None:
    """Return a new posting holding what `posting` holds but the slots `gone`, or None when
    nothing is left; `posting` is left as it is (an index being read may hold it)."""
    slots = numpy.frombuffer(posting.slots, numpy.int32)
    keep = ~numpy.isin(slots, numpy.fromiter(gone, dtype=numpy.int32))
    if not keep.any():
        return None
    impacts = numpy.frombuffer(posting.impacts, numpy.uint8)[keep]
    return Posting(array("i", slots[keep].tobytes()), array("B", impacts.tobytes()))


class Batch:
    """The stems and tokens of entries indexed but not yet posted, in slot order: posted
    together into `postings` and `df` once BATCH_POSTINGS of them are held (and when asked),
    which bounds the memory they take. A catalog loaded whole is indexed so (appending to a
    posting per stem and entry was a third of a cold load); an entry added alone is a
    batch of one."""

    __slots__ = ("counts", "df", "frequencies", "fresh", "postings", "slots", "stems", "tokens")

    def __init__(
        self, postings: dict[str, Posting], df: dict[str, int], fresh: set[str] | None = None
    ) -> None:
        self.postings = postings
        self.df = df
        # With `fresh` (copy on write), only the postings of these stems are this index's own
        # to extend; any other is shared with the index it was copied from, and is replaced.
        self.fresh = fresh
        self.stems: list[str] = []
        self.frequencies = array("d")
        self.slots = array("i")
        self.counts = array("q")
        # token -> entries holding it, counted as each entry comes (in C): an entry's own
        # token strings are let go at once instead of held until the batch is posted
        self.tokens: Counter[str] = Counter()

    def hold(self, slot: int, pseudo: dict[str, float], exact: set[str]) -> None:
        """Keep one entry's stems (with their pseudo-frequencies) and exact tokens."""
        self.stems.extend(pseudo)
        self.frequencies.extend(pseudo.values())
        self.slots.append(slot)
        self.counts.append(len(pseudo))
        self.tokens.update(exact)
        if len(self.stems) >= BATCH_POSTINGS:
            self.post()

    def post(self) -> None:
        """Add what is held to the index's postings and df, and empty the batch.

        The same postings as adding each entry in turn: each stem's entries in slot order
        (a stable sort by stem keeps the order the entries came in), the same impacts."""
        if not self.slots:
            return
        df = self.df
        for token, n in self.tokens.items():
            df[token] = df.get(token, 0) + n
        # number the stems in C (a dict keeps them in first-seen order), sort by number:
        # the k-th run of equal numbers is then the k-th stem's
        named = list(dict.fromkeys(self.stems))
        number = {stem: i for i, stem in enumerate(named)}
        codes = numpy.fromiter(map(number.__getitem__, self.stems), dtype=numpy.int64)
        slots = numpy.repeat(numpy.frombuffer(self.slots, dtype=numpy.int32), self.counts)
        impacts = numpy.frombuffer(steps(self.frequencies), dtype=numpy.uint8)
        order = numpy.argsort(codes, kind="stable")
        bounds = numpy.flatnonzero(numpy.diff(codes[order])) + 1
        starts = [0, *bounds.tolist()]
        ends = [*starts[1:], len(order)]
        # each stem's run is read out of the sorted bytes (a slice of a memoryview copies
        # nothing) rather than made an array object of its own first
        held_slots = memoryview(slots[order].tobytes())
        held_impacts = memoryview(impacts[order].tobytes())
        postings = self.postings
        for stem, start, end in zip(named, starts, ends, strict=True):
            posting = postings.get(stem)
            if posting is not None and self.fresh is not None and stem not in self.fresh:
                own_slots, own_impacts = array("i", posting.slots), array("B", posting.impacts)
                posting = postings[stem] = Posting(own_slots, own_impacts)
                self.fresh.add(stem)
            if posting is None:
                posting = postings[stem] = Posting()
                if self.fresh is not None:
                    self.fresh.add(stem)
            own_slots, own_impacts = posting.own()
            own_slots.frombytes(held_slots[4 * start : 4 * end])
            own_impacts.frombytes(held_impacts[start:end])
        self.stems, self.tokens = [], Counter()
        self.frequencies, self.slots, self.counts = array("d"), array("i"), array("q")


# How many postings a cold load holds before it posts them: some 40 bytes each while held.
# Posting a batch sorts and copies it through arrays that are freed inside the heap, where
# the postings made meanwhile pin them: at 1 << 21 a 10k catalog's index left 107 MiB of
# such holes behind, at 1 << 20 20 MiB, for the same CPU seconds.
BATCH_POSTINGS = 1 << 20
