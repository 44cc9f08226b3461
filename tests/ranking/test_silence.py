"""Silence for the route as a whole (router.ranking.silence)."""

from __future__ import annotations

from typing import Any

from router.catalog.entry import Entry, Section
from router.ranking import rank, silence, term
from router.ranking.index import Index
from router.route import imperative


def doc(ident: str, **fields: Any) -> Entry:
    return Entry(id=ident, kind="doc", path=f"docs/{ident}.md", file=f"docs/{ident}.md", **fields)


FILLER = [doc(f"f{i}", summary=f"unrelated topic {i}") for i in range(8)]


def lacking(entries: list[Entry], task: str, anchored: bool = False) -> tuple[str, ...] | None:
    index = Index(entries)
    weighted = rank.weigh(index, term.of_task(task))
    scoring = rank.scoring(weighted, index.size)
    scores, _ = rank.scores(index, scoring)
    top = sorted(scores, key=lambda s: -scores[s])[: silence.LOOK]
    asked = imperative.asked(task)
    return silence.lacking(
        index,
        weighted,
        top,
        lambda s: rank.reach(index, s, scoring, False),
        anchored,
        [rank.weigh(index, term.of_task(word)) for word in asked.split()] if asked else (),
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
    assert lacking(entries, "add site/llms.txt") is None
    assert lacking(entries, "add site/llms.txt", anchored=True) == ()


def test_a_dotted_name_without_a_slash_is_the_tasks_own_word() -> None:
    # "llms.txt" may anchor, but what it names is what the task is about
    entries = [doc("llms", title="Write an llms.txt for the site"), *FILLER]
    assert lacking(entries, "add an llms.txt", anchored=True) is None


EVENTS = [
    doc("cqrs", title="CQRS: separate reads from writes", summary="models built from events"),
    *[doc(f"ci{i}", summary=f"build pipeline {i} emits events") for i in range(6)],
    *FILLER,
]


def test_a_request_for_something_no_entry_names_is_silent_on_passing_words() -> None:
    # "reads", "events" and "build" reach the CQRS entries, but the skill asked for is unknown
    task = "build an Alexa skill that reads out today's calendar events from our API"
    assert lacking(EVENTS, task) == ("alexa", "skill", "calendar", "api")


def test_a_request_for_something_the_catalog_names_speaks_on_the_same_words() -> None:
    assert lacking(EVENTS, "build a read model that replays the events") is None


def test_a_question_naming_the_unknown_thing_is_judged_by_its_evidence() -> None:
    assert lacking(EVENTS, "which events should a read model of the CQRS entries keep?") is None


def test_a_request_for_an_unknown_thing_speaks_when_its_words_reach_an_entry() -> None:
    entries = [doc("lang", title="Translations with next-intl", summary="locale files"), *FILLER]
    assert lacking(entries, "add German translations") == ("german",)
    assert lacking(entries, "add German translations to the next-intl locale files") is None


KINDS = [
    doc("ext", title="Chrome extension manifest rules", summary="permissions and service workers"),
    doc("devtools", title="Chrome devtools", summary="debugging pages and extension panels"),
    doc("store", summary="publishing an extension to the store"),
    doc("kpi", title="KPI dashboards", summary="a live view of business metrics"),
    doc("live", summary="live reload while you edit"),
    *FILLER,
]


def test_an_unknown_thing_of_a_kind_an_entry_is_about_speaks() -> None:
    # "popup" is unknown, but "Chrome extension" is what an entry's title is about
    assert lacking(KINDS, "Add a Chrome extension popup that saves the current tab") is None


def test_the_parts_of_an_unknown_identifier_name_no_kind() -> None:
    # `LiveView` is unknown whole; "live" and "view" in a title do not make it known
    task = "add a LiveView page that streams order status updates"
    assert lacking(KINDS, task) == ("liveview", "streams", "order", "status")


def test_a_task_a_document_answers_in_its_body_speaks_where_every_title_shares_a_word() -> None:
    # A vendor's catalog: every entry is about "azure"; what the task is about ("telemetry
    # sampling") one entry holds in its body only. Holding the subject is enough.
    entries = [
        doc(
            "monitor",
            title="Azure monitor",
            body=(Section("Sampling", "telemetry sampling keeps costs down"),),
        ),
        *[
            doc(f"a{i}", title=f"Azure service {i}", summary=f"unrelated topic {i}")
            for i in range(8)
        ],
    ]
    assert lacking(entries, "how does azure telemetry sampling work") is None
    # one of its words, in a body: still what the task is about
    assert lacking(entries, "how long is azure telemetry kept") is None
    assert lacking(entries, "how does kinesis firehose work") == ("kinesis", "firehose")
