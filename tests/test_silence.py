"""Silence for the route as a whole (router.core.silence)."""

from __future__ import annotations

from router.core import rank, silence, term
from router.core.entry import Entry
from router.core.index import Index


def doc(ident: str, **fields: object) -> Entry:
    return Entry(id=ident, kind="doc", path=f"docs/{ident}.md", file=f"docs/{ident}.md", **fields)  # type: ignore[arg-type]


FILLER = [doc(f"f{i}", summary=f"unrelated topic {i}") for i in range(8)]


def lacking(entries: list[Entry], task: str, anchored: bool = False) -> tuple[str, ...] | None:
    index = Index(entries)
    weighted = rank.weigh(index, term.of_task(task))
    scoring = rank.scoring(weighted, index.size)
    scores, _ = rank.scores(index, scoring)
    top = sorted(scores, key=lambda s: -scores[s])[: silence.LOOK]
    return silence.lacking(
        index, weighted, top, lambda s: rank.reach(index, s, scoring, False), anchored
    )


def test_the_subject_leaves_out_actions_and_path_words() -> None:
    index = Index(FILLER)
    weighted = rank.weigh(index, term.of_task("add retries to src/billing/invoice.py"))
    assert [w.term.word for w in silence.subject(weighted)] == ["retries"]


def test_a_task_whose_subject_an_entry_holds_speaks() -> None:
    entries = [doc("r", title="Retry failed webhook deliveries"), *FILLER]
    assert lacking(entries, "how should failed webhook deliveries be retried") is None


def test_words_only_in_passing_do_not_make_a_route_speak() -> None:
    entries = [doc("r", summary="release checklist", body=()), *FILLER]
    task = "update the kubernetes helm chart for argo canary rollouts"
    assert lacking(entries, task) == ("kubernetes", "helm", "chart", "argo", "canary", "rollouts")


def test_a_short_task_speaks_when_any_candidate_holds_its_word() -> None:
    entries = [doc("rust", summary="the language is rust"), *FILLER]
    assert lacking(entries, "why rust over go?") is None
    assert lacking(entries, "why zig?") == ("zig",)


def test_path_words_alone_speak_only_when_no_anchor_was_named() -> None:
    entries = [doc("llms", title="Write an llms.txt for the site"), *FILLER]
    assert lacking(entries, "add an llms.txt") is None
    assert lacking(entries, "add an llms.txt", anchored=True) == ()
