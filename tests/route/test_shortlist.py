"""router.route.shortlist: the candidates the task's words, its triggers and the paths it names
reach among the admitted entries, best first; in the score order only those close enough to the
best; silence named when the words are too weak; meaning's neighbours fused in."""

from __future__ import annotations

import pytest

from router.catalog.entry import Entry
from router.core import deadline
from router.ranking import bm25f, rank
from router.ranking.index import Index
from router.route import admission, fusion, shortlist
from router.route.contract import Request
from router.route.pointer import Candidate
from router.route.shortlist import Ranking
from testing.catalog import demo_config, demo_entry, demo_index
from testing.entries import doc

WEBHOOK_TASK = "retry a failed webhook delivery"


def draw(
    index: Index,
    request: Request,
    fired: dict[int, list[tuple[str, str]]] | None = None,
    anchored: int = 0,
    governing: frozenset[int] = frozenset(),
    stop: deadline.Stop | None = None,
) -> Ranking:
    """Return `shortlist.draw` of the request as assembly calls it (its terms, its filters)."""
    weighted = rank.of_task(index, request.task)
    scoring = rank.scoring(weighted, index.size)
    admitted = admission.of(demo_config().taxonomy, request)
    return shortlist.draw(
        index, request, weighted, scoring, admitted, fired or {}, anchored, governing, stop
    )


def ids(ranking: Ranking) -> list[str]:
    return [c.entry.id for c in ranking.candidates]


def totals(ranking: Ranking) -> dict[str, float]:
    return {c.entry.id: c.total for c in ranking.candidates}


# -- close: the score order's floor ------------------------------------------------------


def candidates(*scores: float) -> list[Candidate]:
    return [Candidate(total, doc(f"e{slot}", "docs/"), slot) for slot, total in enumerate(scores)]


def test_close_keeps_what_scores_at_least_the_floor_of_the_best() -> None:
    ranked = candidates(10.0, 6.0, 5.0, 4.99, 1.0)
    assert shortlist.RELATIVE_FLOOR == 0.5
    assert [c.slot for c in shortlist.close(ranked)] == [0, 1, 2]


def test_close_keeps_the_kept_and_the_spared_whatever_they_score() -> None:
    ranked = candidates(10.0, 6.0, 1.0, 0.5)
    assert [c.slot for c in shortlist.close(ranked, kept=[3])] == [0, 1, 3]
    assert [c.slot for c in shortlist.close(ranked, spared=[2])] == [0, 1, 2]


def test_close_measures_the_floor_on_what_the_words_alone_placed() -> None:
    # a kept entry's score (a trigger's bonus on top) is no measure of the others
    ranked = candidates(100.0, 6.0, 4.0, 2.0)
    assert [c.slot for c in shortlist.close(ranked, kept=[0])] == [0, 1, 2]
    # ... while a spared one's is
    assert [c.slot for c in shortlist.close(ranked, spared=[0])] == [0]


def test_close_of_nothing_but_kept_or_nothing_at_all_is_all_of_it() -> None:
    ranked = candidates(10.0, 1.0)
    assert shortlist.close(ranked, kept=[0, 1]) == ranked
    assert shortlist.close([]) == []


# -- draw over the demo catalog ------------------------------------------------------------


def test_the_words_reach_candidates_best_first() -> None:
    ranking = draw(demo_index(), Request(WEBHOOK_TASK, order="diverse"))
    scores = [c.total for c in ranking.candidates]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0
    assert ids(ranking)[:5] == [
        "TW-HOW-redeliver-webhook",
        "TW-SPEC-webhook-delivery",
        "TW-DR-0003",
        "debug-webhook-delivery",
        "TW-DR-0008",
    ]
    # an order by purpose sees every candidate the words reached
    assert ranking.reached == len(ranking.candidates) and ranking.lacking is None
    assert ranking.fired == {} and ranking.unworded == frozenset()


def test_the_score_order_withholds_what_scores_under_half_the_best() -> None:
    index = demo_index()
    every = draw(index, Request(WEBHOOK_TASK, order="diverse"))
    best = draw(index, Request(WEBHOOK_TASK, order="score"))
    floor = every.candidates[0].total * shortlist.RELATIVE_FLOOR
    assert ids(best) == [c.entry.id for c in every.candidates if c.total >= floor]
    assert len(ids(best)) < len(ids(every))
    assert best.reached >= len(best.candidates)


def test_only_admitted_entries_are_candidates() -> None:
    ranking = draw(demo_index(), Request(WEBHOOK_TASK, kind="decision"))
    assert ids(ranking) and all(c.entry.kind == "decision" for c in ranking.candidates)
    assert set(ids(ranking)) <= set(ids(draw(demo_index(), Request(WEBHOOK_TASK))))


def test_words_no_entry_holds_reach_nothing_and_are_named() -> None:
    ranking = draw(demo_index(), Request("bake sourdough bread"))
    assert ranking.candidates == () and ranking.reached == 0
    assert ranking.lacking == ("bake", "sourdough", "bread")


def test_a_trigger_that_fired_reaches_its_entry_with_two_of_the_rarest_words() -> None:
    index = demo_index()
    slot = index.slot_of("cut-a-release")
    fired = {slot: [("keyword phrase", "cut a release")]}
    ranking = draw(index, Request("bake sourdough bread"), fired)
    unit = bm25f.idf(index.size, 1)
    assert ids(ranking) == ["cut-a-release"] and ranking.lacking is None
    assert ranking.candidates[0].total == pytest.approx(shortlist.TRIGGER_WORDS * unit)
    assert ranking.fired == fired


def test_a_trigger_of_an_entry_the_filters_refuse_is_dropped() -> None:
    index = demo_index()
    fired = {index.slot_of("cut-a-release"): [("keyword phrase", "cut a release")]}
    ranking = draw(index, Request("bake sourdough bread", kind="decision"), fired)
    assert ranking.fired == {} and ranking.candidates == ()


def test_governing_a_named_path_adds_one_of_the_rarest_words() -> None:
    index = demo_index()
    request = Request(WEBHOOK_TASK, order="diverse")
    slot = index.slot_of("TW-DR-0008")
    plain = totals(draw(index, request))
    governed = totals(draw(index, request, governing=frozenset({slot})))
    unit = bm25f.idf(index.size, 1)
    assert governed["TW-DR-0008"] == pytest.approx(
        plain["TW-DR-0008"] + shortlist.GOVERNS_WORDS * unit
    )
    assert {k: v for k, v in governed.items() if k != "TW-DR-0008"} == {
        k: v for k, v in plain.items() if k != "TW-DR-0008"
    }


def test_a_stop_that_says_stop_abandons_the_draw() -> None:
    with pytest.raises(deadline.AbandonedError):
        draw(demo_index(), Request(WEBHOOK_TASK), stop=lambda: True)


def test_a_neighbour_by_meaning_the_words_missed_is_fused_in_unworded() -> None:
    index = demo_index()
    near = fusion.Neighbour("TW-HOW-run-locally", "title and summary", 0.9)

    def similarity(entry_id: str) -> float:
        return 0.9 if entry_id == near.id else 0.1

    request = Request(WEBHOOK_TASK, meaning=fusion.Nearness((near,), similarity))
    words = draw(index, Request(WEBHOOK_TASK))
    assert near.id not in ids(words)
    fused = draw(index, request)
    slot = index.slot_of(near.id)
    assert near.id in ids(fused) and fused.unworded == frozenset({slot})
    assert fused.by_meaning == {slot: (near, 1)}
    assert fused.reached == draw(index, Request(WEBHOOK_TASK, order="diverse")).reached + 1


def test_a_neighbour_the_filters_refuse_is_not_fused_in() -> None:
    index = demo_index()
    near = fusion.Neighbour("TW-HOW-run-locally", "title and summary", 0.9)
    meaning = fusion.Nearness((near,), lambda i: 0.5)
    fused = draw(index, Request(WEBHOOK_TASK, kind="decision", meaning=meaning))
    assert near.id not in ids(fused) and fused.by_meaning == {}


# -- the anchored entries ------------------------------------------------------------------


def anchored_of(*idents: str) -> list[Entry]:
    return [demo_entry(i) for i in idents]


def test_anchored_entries_the_words_or_a_trigger_reach() -> None:
    index = demo_index()
    weighted = rank.of_task(index, "rotate the webhook signing key")
    scoring = rank.scoring(weighted, index.size)
    anchored = anchored_of("TW-HOW-rotate-keys", "TW-DR-0011")
    assert shortlist.anchored_worded(index, anchored, scoring, {}) == {"TW-HOW-rotate-keys"}
    fired = {index.slot_of("TW-DR-0011"): [("keyword phrase", "quota")]}
    assert shortlist.anchored_worded(index, anchored, scoring, fired) == {
        "TW-HOW-rotate-keys",
        "TW-DR-0011",
    }


def test_anchored_entries_only_an_action_word_reaches_do_not_govern() -> None:
    index = demo_index()
    anchored = anchored_of("TW-HOW-rotate-keys")
    slot = index.slot_of("TW-HOW-rotate-keys")
    subject = rank.scoring(rank.of_task(index, "webhook signing key"), index.size)
    assert shortlist.anchored_governing(index, anchored, subject) == frozenset({slot})
    # the how-to says "create" (an action word): that reaches it, but is no subject of it
    action = list(rank.of_task(index, "create"))
    assert action and shortlist.anchored_worded(index, anchored, action, {}) == {
        "TW-HOW-rotate-keys"
    }
    assert shortlist.anchored_governing(index, anchored, action) == frozenset()
