"""Four-tier scoring (DESIGN 5): tiers, exact/phrase/token, term weights, notes."""

from __future__ import annotations

from typing import Any

import pytest

from router.catalog.entry import Entry, Note, Routing
from router.ranking import breakdown
from router.ranking.field import Field, fields_of
from router.ranking.index import Index


def row(ident: str, **fields: Any) -> Entry:
    return Entry(
        id=ident, kind="annex", path=f"c.json#{ident}", file="c.json", is_row=True, **fields
    )


def doc(ident: str, **fields: Any) -> Entry:
    return Entry(id=ident, kind="doc", path=f"docs/{ident}.md", file=f"docs/{ident}.md", **fields)


def scored(index: Index, task: str, ident: str) -> breakdown.Scored:
    q = breakdown.query(index, task)
    found = [s for s in breakdown.reached(index, q) if s.indexed.entry.id == ident]
    assert found, f"{ident} not reached by {task!r}"
    return found[0]


def test_exact_beats_phrase_beats_tokens_in_the_structured_tier() -> None:
    index = Index(
        [
            row("exact", routing=Routing(problem_spaces=("rate limit backoff",))),
            row("phrase", routing=Routing(problem_spaces=("provider rate limit backoff policy",))),
            row(
                "tokens",
                routing=Routing(problem_spaces=("backoff when the rate is over the limit",)),
            ),
        ]
    )
    # Three entries; every token is held by all three, so per-token scores weigh zero here
    # and only exact and phrase matches count.
    assert scored(index, "Rate-limit backoff", "exact").tiers[0] == 120
    assert scored(index, "rate limit backoff", "phrase").tiers[0] == 80
    tokens = breakdown.query(index, "rate limit backoff")
    assert [s for s in breakdown.reached(index, tokens) if s.indexed.entry.id == "tokens"] == []


def test_phrase_needs_word_boundaries() -> None:
    index = Index([row("a", summary="the rate limit applies"), row("b", summary="unrelated")])
    assert scored(index, "rate limit", "a").tiers[1] == 24
    # "ate limit" is inside "rate limit" as characters but not as words
    s = scored(index, "ate limit", "a")
    assert s.tiers[1] == 6  # one token (limit), weight 1
    assert breakdown.field_score(breakdown.query(index, "api"), _field("rapid growth"), 1) == 0


def _field(value: str) -> Field:
    return next(f for f in fields_of(doc("x", summary=value)) if f.name == "summary")


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        (1, 1.0),  # N < 2: every term weighs 1
        (2, 0.0),  # both entries hold it: it rules nothing out
    ],
)
def test_term_weight_small_catalogs(entries: int, expected: float) -> None:
    index = Index([doc(f"d{i}", summary="cache eviction") for i in range(entries)])
    assert index.weight("cache") == expected


def test_term_weight_many_entries_is_share_ruled_out() -> None:
    items = [doc(f"d{i}", summary="cache") for i in range(3)]
    items += [doc(f"e{i}", summary="other words") for i in range(7)]
    index = Index(items)
    # N = 10, df(cache) = 3: w = (10 - 3) / 9
    assert index.weight("cache") == pytest.approx(7 / 9)
    s = scored(index, "cache misses", "d0")
    assert s.tiers[1] == pytest.approx(6 * 7 / 9)


def test_weighted_tokens_sum_per_field() -> None:
    index = Index(
        [
            doc("a", summary="token bucket limiter for tenants"),
            doc("b", summary="tenants table"),
            doc("c", summary="something else"),
        ]
    )
    s = scored(index, "tenants token bucket", "a")
    # N = 3: tenants df 2 -> 1/2; token, bucket df 1 -> 1 each
    assert s.tiers[1] == pytest.approx(6 * (0.5 + 1 + 1))
    assert s.field == "summary"


def test_each_tier_takes_its_best_field_and_the_total_sums_tiers() -> None:
    item = row(
        "p",
        title="Provider Limits",
        summary="retry scheduling for providers",
        routing=Routing(capabilities=("retry scheduling",), domains=("agent runtime",)),
        open_first=("open when retry scheduling fails",),
        notes=(Note("n1", "retry scheduling receipt", 90),),
    )
    index = Index([item])
    s = scored(index, "retry scheduling", "p")
    assert s.tiers == (120, 24, 16, 12, 0)
    assert s.total == 172
    assert s.field == "capabilities"
    assert s.notes == ("n1",)


def test_matched_note_ids_follow_relevance_then_id_and_cap_at_eight() -> None:
    notes = tuple(Note(f"n{i:02d}", "cache warmup", relevance=float(i % 3)) for i in range(12))
    notes = tuple(sorted(notes, key=lambda n: (-n.relevance, n.id)))
    index = Index([row("x", notes=notes)])
    s = scored(index, "cache warmup", "x")
    assert len(s.notes) == 8
    assert list(s.notes) == [n.id for n in notes][:8]


def test_entry_scoring_matches_postings_scoring() -> None:
    items = [
        doc("a", summary="queue consumer retries", tags=("queue", "ingest")),
        doc("b", title="Consumer lag", governs=("src/ingest/consumer.py",)),
        row("c", routing=Routing(problem_spaces=("consumer retries",))),
    ]
    index = Index(items)
    q = breakdown.query(index, "consumer retries in ingest")
    by_postings = {s.indexed.entry.id: s.total for s in breakdown.reached(index, q)}
    by_reading_all = {i.entry.id: breakdown.of_entry(q, i).total for i in index}
    assert by_postings == {k: v for k, v in by_reading_all.items() if v > 0}
