"""The plain BM25 baseline (router.evaluation.baseline) that judged sets report beside the router."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from router.catalog.entry import Entry, Section
from router.core import text
from router.evaluation.baseline import Bm25
from router.ranking.field import body_fields, fields_of


def doc(ident: str, **fields: Any) -> Entry:
    return Entry(id=ident, kind="doc", path=f"docs/{ident}.md", file=f"docs/{ident}.md", **fields)


def test_bm25_reads_titles_summaries_and_bodies_as_one_bag() -> None:
    entries = [
        doc("body", body=(Section("Decision", "rotate the database password monthly"),)),
        doc("title", title="Database password"),
        doc("other", summary="unrelated"),
    ]
    ranked = [e.id for e in Bm25(entries).rank("database password rotate")]
    assert ranked == ["body", "title"]  # a bag of words: more terms in common wins


def test_bm25_has_no_stemming_no_function_words_and_no_silence_beyond_no_overlap() -> None:
    entries = [doc("a", summary="why we retry"), doc("b", summary="retries")]
    assert [e.id for e in Bm25(entries).rank("why")] == ["a"]
    assert [e.id for e in Bm25(entries).rank("retries")] == ["b"]
    assert Bm25(entries).rank("kubernetes") == []


# -- parity with rank_bm25 ------------------------------------------------------------------------
#
# rank_bm25's BM25Okapi and the baseline share the term-frequency part: tf * (k1 + 1) /
# (tf + k1 * (1 - b + b * length / average length)), length being a document's token count and
# the average taken over the corpus, with the baseline's k1 = 1.2 and b = 0.75 passed to it
# (its own defaults are 1.5 and 0.75). They differ in one convention, the idf:
#   BM25Okapi: log((N - df + 0.5) / (df + 0.5)), negative for a term in more than half of the
#              documents, which is then floored at epsilon (0.25) times the mean idf;
#   baseline:  log(1 + (N - df + 0.5) / (df + 0.5)) (Lucene's), never negative: no floor.
# Bm25.rank returns entries, not scores, so what is compared is the order (ties by path): with
# BM25Okapi's idf swapped for the baseline's (everything else is rank_bm25's own arithmetic),
# on seeded corpora where k1, b and the idf convention each change it (asserted below) and on
# random small ones; and with the plain BM25Okapi on a small corpus where no term is that
# common. Scores to 1e-9 would need Bm25 to expose them (it does not).

# the baseline's conventions, written out: a change to them changes every judged BM25 figure
K1 = 1.2
B = 0.75
VOCABULARY = (
    "webhook retry delivery tenant invoice rounding ledger quota throttle signing rotate key "
    "migration column postgres redis jitter backoff outage refund currency tax metric alert"
).split()


class LuceneIdf(BM25Okapi):
    """rank_bm25's BM25Okapi with the baseline's idf convention (no epsilon floor needed)."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


def bag(entry: Entry) -> list[str]:
    """The tokens the baseline reads of an entry: every field and the body, as one bag."""
    return [
        w
        for fld in (*fields_of(entry), *body_fields(entry))
        for w in fld.normal.split()
        if len(w) >= text.MIN_TOKEN_CHARS and w not in text.STOPWORDS
    ]


def reference_order(model: BM25Okapi, entries: list[Entry], task: str) -> list[str] | None:
    """Return the ids rank_bm25's `model` ranks first to last (ties by path, no zero scores),
    or None when two different scores are closer than 1e-9: the two sum in another order,
    so such a near tie is no evidence either way."""
    scores = model.get_scores(list(text.tokens(task)))
    scored = sorted(
        ((float(s), e) for s, e in zip(scores, entries, strict=True) if s > 0),
        key=lambda p: (-p[0], p[1].path),
    )
    for (a, _), (b, _) in itertools.pairwise(scored):
        if a != b and abs(a - b) < 1e-9:
            return None
    return [e.id for _, e in scored]


def ranked_alike(ours: list[str], model: BM25Okapi, entries: list[Entry], task: str) -> bool:
    """Return whether `ours` holds exactly the entries rank_bm25's `model` scores above 0,
    each scored no lower than the next, within 1e-9: a tie in one implementation (exact in
    arithmetic, as tf 10 of 16 tokens and 9 of 14 are when the mean length is 12) may be a
    hair apart in the other, which sums in another order."""
    scores = model.get_scores(list(text.tokens(task)))
    by_id = {e.id: float(s) for s, e in zip(scores, entries, strict=True)}
    positive = {name for name, score in by_id.items() if score > 0}
    return (
        len(ours) == len(positive)
        and set(ours) == positive
        and all(by_id[a] >= by_id[b] - 1e-9 for a, b in itertools.pairwise(ours))
    )


def corpus(seed: int, size: int = 24) -> list[Entry]:
    """Return `size` entries of 2 to 30 words each, drawn from the first 6 to 23 VOCABULARY
    words (so terms range from rare to in most entries), seeded: the same corpus every run."""
    chosen = random.Random(seed)
    return [
        doc(
            f"d{n:02d}",
            summary=" ".join(chosen.choices(VOCABULARY[: 6 + n % 18], k=chosen.randint(2, 30))),
        )
        for n in range(size)
    ]


QUERIES = [
    "webhook retry",
    "rotate the signing key",
    "tenant quota throttle outage",
    "invoice rounding currency tax",
    "postgres migration column",
    "redis jitter backoff metric alert",
    "refund ledger",
]


def test_bm25_ranks_as_rank_bm25_with_the_baseline_idf() -> None:
    for seed in range(4):
        entries = corpus(seed)
        ours = Bm25(entries)
        reference = LuceneIdf([bag(e) for e in entries], k1=K1, b=B)
        for task in QUERIES:
            expected = reference_order(reference, entries, task)
            assert expected is not None, (seed, task)
            assert [e.id for e in ours.rank(task)] == expected, (seed, task)


def test_the_parity_corpora_tell_k1_b_and_the_idf_convention_apart() -> None:
    # an order that did not depend on them would let a wrong k1, b or idf pass the test above
    def orders(**conventions: float) -> list[list[str] | None]:
        out: list[list[str] | None] = []
        for seed in range(4):
            entries = corpus(seed)
            reference = LuceneIdf([bag(e) for e in entries], **conventions)
            out.extend(reference_order(reference, entries, task) for task in QUERIES)
        return out

    def okapi_orders() -> list[list[str] | None]:
        out: list[list[str] | None] = []
        for seed in range(4):
            entries = corpus(seed)
            reference = BM25Okapi([bag(e) for e in entries], k1=K1, b=B)
            out.extend(reference_order(reference, entries, task) for task in QUERIES)
        return out

    ours = orders(k1=K1, b=B)
    assert orders(k1=1.5, b=B) != ours  # rank_bm25's default k1
    assert orders(k1=K1, b=0.5) != ours
    assert okapi_orders() != ours  # Okapi's idf, with its epsilon floor


SMALL = [
    doc("backoff", summary="retry webhook deliveries with exponential backoff and jitter"),
    doc("fixed", summary="retry failed webhook deliveries every sixty seconds"),
    doc("redeliver", summary="redeliver a failed webhook by hand from the delivery log"),
    doc("signing", summary="rotate the signing key without dropping deliveries"),
    doc("quota", summary="raise a tenant quota held in redis counters"),
    doc("rounding", summary="round invoice tax half even per line"),
    doc("events", summary="postgres event store with an append only table"),
    doc("migrate", summary="add a column with an expand and contract migration"),
]


@pytest.mark.parametrize(
    "task",
    [
        "retry a failed webhook delivery",
        "rotate the signing key",
        "tenant quota in redis",
        "invoice tax rounding",
        "add a column to the events table",
        "webhook backoff jitter",
    ],
)
def test_bm25_ranks_a_small_corpus_as_plain_bm25okapi(task: str) -> None:
    # every term here is in fewer than half of the documents: Okapi's idf stays positive and
    # unfloored, and decreases with df as the baseline's does
    bags = [bag(e) for e in SMALL]
    assert all(sum(t in b for b in bags) < len(SMALL) / 2 for t in text.tokens(task))
    okapi = BM25Okapi(bags, k1=K1, b=B, epsilon=0.25)
    expected = reference_order(okapi, SMALL, task)
    assert expected, task
    assert [e.id for e in Bm25(SMALL).rank(task)] == expected


@settings(max_examples=200, deadline=None)
@given(
    summaries=st.lists(
        st.lists(st.sampled_from(VOCABULARY[:10]), min_size=1, max_size=12),
        min_size=1,
        max_size=12,
    ),
    query=st.lists(st.sampled_from(VOCABULARY[:12]), min_size=1, max_size=4),
)
def test_bm25_ranks_any_small_corpus_as_rank_bm25_with_the_baseline_idf(
    summaries: list[list[str]], query: list[str]
) -> None:
    entries = [doc(f"d{n:02d}", summary=" ".join(words)) for n, words in enumerate(summaries)]
    task = " ".join(query)
    reference = LuceneIdf([bag(e) for e in entries], k1=K1, b=B)
    assert ranked_alike([e.id for e in Bm25(entries).rank(task)], reference, entries, task)
