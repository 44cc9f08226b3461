"""router.ranking.posting: impacts in one-byte steps, postings that copy themselves out of a
mapped snapshot on their first change, and batches posted as single entries would be."""

from __future__ import annotations

from array import array

import pytest

from router.ranking import bm25f
from router.ranking.posting import IMPACT_STEP, Batch, Posting, steps


def test_steps_round_the_saturated_frequency_and_are_never_zero() -> None:
    got = steps([0.0, 1.0, 1000.0])
    assert got[0] == 1  # an entry holding a stem is in its posting, however little
    assert got[1] == round(bm25f.saturated(1.0) / IMPACT_STEP)
    assert got[2] == round(bm25f.saturated(1000.0) / IMPACT_STEP) <= 255


def test_a_mapped_posting_copies_itself_out_on_its_first_change() -> None:
    raw = bytearray(array("i", [1, 4, 9]).tobytes() + bytes([10, 20, 30]))
    view = memoryview(raw)
    posting = Posting(view[:12].cast("i"), view[12:15])
    posting.remove(4)
    assert list(posting.slots) == [1, 9] and list(posting.impacts) == [10, 30]
    assert type(posting.slots) is array and list(view[:12].cast("i")) == [1, 4, 9]


@pytest.mark.parametrize("limit", [1 << 21, 2])
def test_a_batch_posts_what_entries_posted_one_by_one_would(
    limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("router.ranking.posting.BATCH_POSTINGS", limit)
    entries = [(0, {"a": 1.0, "b": 2.0}), (1, {"b": 1.0}), (2, {"c": 3.0, "a": 0.5})]
    postings: dict[str, Posting] = {}
    df: dict[str, int] = {}
    batch = Batch(postings, df)
    for slot, pseudo in entries:
        batch.hold(slot, pseudo, set(pseudo))
    batch.post()
    want = {
        "a": ([0, 2], list(steps([1.0, 0.5]))),
        "b": ([0, 1], list(steps([2.0, 1.0]))),
        "c": ([2], list(steps([3.0]))),
    }
    assert {s: (list(p.slots), list(p.impacts)) for s, p in postings.items()} == want
    assert df == {"a": 2, "b": 2, "c": 1}
