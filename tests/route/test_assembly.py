"""Route assembly (DESIGN 6): anchors, filters, purposes, gate, order, turns, budget,
succession and silence."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from router.base.errors import RequestError
from router.catalog import config
from router.catalog.entry import Entry, Routing, Section
from router.catalog.taxonomy import Purpose, Taxonomy
from router.filters.relevance import Focus
from router.harnesses import events, registry
from router.ranking import rank
from router.ranking.index import Index
from router.route import assembly, contract
from router.runtime.engine import Engine
from router.serve import service
from testing.paths import DEMO
from testing.wait import Countdown


def doc(ident: str, kind: str = "doc", path: str | None = None, **fields: Any) -> Entry:
    path = path or f"docs/{ident}.md"
    return Entry(id=ident, kind=kind, path=path, file=path, **fields)


def run(
    entries: list[Entry], task: str, taxonomy: Taxonomy | None = None, **request: Any
) -> contract.Route:
    return assembly.assemble(
        Index(entries), taxonomy or Taxonomy(), contract.Request(task=task, **request)
    )


def ids(answer: contract.Route) -> list[str]:
    return [p.entry.id for p in answer.pointers]


FILLER = [doc(f"filler{i}", summary=f"unrelated topic number {i}") for i in range(6)]


# -- silence ----------------------------------------------------------------------------------


def test_task_without_terms_is_silent_no_terms() -> None:
    answer = run([doc("a", summary="cache")], "the of and to")
    assert answer.silence == "no_terms"
    assert answer.status == "no_match"
    assert answer.pointers == ()


def test_task_reaching_nothing_is_silent_no_document_reached() -> None:
    answer = run([doc("a", summary="cache eviction"), *FILLER], "kubernetes helm chart")
    assert answer.silence == "no_document_reached"


def test_filters_leaving_nothing_are_silent_filtered() -> None:
    answer = run([doc("a", summary="cache eviction"), *FILLER], "cache eviction", kind="decision")
    assert answer.silence == "filtered"


def test_purpose_filter_matching_no_entry_is_no_purpose_matched() -> None:
    taxonomy = Taxonomy(
        purposes=(Purpose("rationale", "why", ()), Purpose("procedure", "how", ())),
        kinds=(("decision", "rationale"),),
    )
    answer = run([doc("a", "decision", summary="cache")], "cache", taxonomy, purpose="procedure")
    assert answer.silence == "no_purpose_matched"


# -- gate, filters, order, budget ---------------------------------------------------------------


def test_a_route_speaks_when_its_best_entry_holds_the_task_subject() -> None:
    entries = [
        doc("both", summary="cache eviction policy"),
        doc("one", summary="cache warmup"),
        *FILLER,
    ]
    answer = run(entries, "cache eviction", order="turns")
    # both are offered: the best holds the whole subject, the other is ranked below it (in
    # the score order, "one" is under the relative floor and withheld)
    assert ids(answer) == ["both", "one"]
    assert ids(run(entries, "cache eviction", order="score")) == ["both"]
    assert answer.distinctive == ("cache", "eviction")


def test_a_route_over_scattered_words_is_silent_and_names_what_is_missing() -> None:
    entries = [
        doc("a", summary="update the release notes"),
        doc("b", summary="onboarding checklist"),
        *FILLER,
    ]
    # the catalog holds only the action ("update"), none of what the task is about
    task = "update the kubernetes helm chart for argo canary rollouts"
    answer = run(entries, task)
    assert answer.pointers == () and answer.silence == "no_document_reached"
    assert answer.lacking == ("kubernetes", "helm", "chart", "argo", "canary", "rollouts")


def test_a_request_for_a_thing_no_entry_names_is_silent_apart_from_anchors() -> None:
    entries = [
        doc("cqrs", title="CQRS: separate reads from writes", summary="models built from events"),
        doc("billing", summary="payment code", governs=("src/api/payments.py",)),
        *[doc(f"ci{i}", summary=f"build pipeline {i} emits events") for i in range(6)],
        *FILLER,
    ]
    answer = run(entries, "build an Alexa skill that reads out calendar events from our API")
    assert answer.pointers == () and answer.silence == "no_document_reached"
    assert answer.lacking[:1] == ("alexa",)
    anchored = run(entries, "add an Alexa skill that reads events to src/api/payments.py")
    assert ids(anchored) == ["billing"]
    # the same words, asking for a thing the catalog knows, reach the CQRS entry
    assert ids(run(entries, "build a read model that replays the events"))[:1] == ["cqrs"]


def test_conversational_words_are_not_terms() -> None:
    entries = [
        doc("money", summary="money is stored as integer cents"),
        doc("why", title="Why we do things", summary="we should do what we want"),
        *FILLER,
    ]
    answer = run(entries, "why do we store money as integer cents")
    assert answer.terms == ("store", "money", "integer", "cents")
    assert ids(answer) == ["money"]


def test_plurals_meet_their_singular() -> None:
    entries = [doc("rot", summary="Secret rotation"), doc("r", summary="retry budget"), *FILLER]
    assert ids(run(entries, "secret rotations")) == ["rot"]
    assert ids(run(entries, "retries budgets")) == ["r"]


def test_gate_with_one_distinctive_term_needs_one() -> None:
    answer = run([doc("a", summary="cache"), *FILLER], "cache")
    assert ids(answer) == ["a"]


def test_domain_filter_vetoes_a_text_match() -> None:
    entries = [
        doc("fin", summary="forecast error scoring", routing=Routing(domains=("finance",))),
        doc("ops", summary="forecast error scoring", routing=Routing(domains=("Agent-Runtime",))),
        *FILLER,
    ]
    assert ids(run(entries, "forecast error scoring", domain="agent runtime")) == ["ops"]
    assert ids(run(entries, "forecast error scoring")) == ["fin", "ops"]


def test_total_order_is_score_then_path() -> None:
    entries = [
        doc("b", path="docs/b.md", summary="queue consumer lag"),
        doc("a", path="docs/a.md", summary="queue consumer lag"),
        doc(
            "c", path="docs/c.md", summary="queue consumer lag", open_first=("queue consumer lag",)
        ),
        *FILLER,
    ]
    answer = run(entries, "queue consumer lag", order="score")
    assert ids(answer) == ["c", "a", "b"]
    ranks = [(p.evidence["rank"], p.evidence["of"]) for p in answer.pointers]
    assert ranks == [(1, 3), (2, 3), (3, 3)]


def test_budget_cuts_and_counts_withheld() -> None:
    entries = [doc(f"d{i}", summary=f"queue consumer lag {i}") for i in range(7)] + FILLER
    answer = run(entries, "queue consumer lag", budget=3)
    assert len(answer.pointers) == 3
    assert answer.withheld == 4


def test_request_is_checked() -> None:
    with pytest.raises(RequestError, match="budget"):
        run([doc("a")], "x", budget=0)
    with pytest.raises(RequestError, match="order"):
        run([doc("a")], "x", order="random")


def test_terms_evidence_lists_distinctive_terms_in_task_order() -> None:
    entries = [doc("a", summary="eviction of cache lines"), *FILLER]
    answer = run(entries, "cache eviction")
    evidence = answer.pointers[0].evidence
    assert evidence == {
        "by": "terms",
        "terms": ["cache", "eviction"],
        "field": "summary",
        "fields": [{"field": "summary", "terms": ["cache", "eviction"]}],
        "notes": [],
        "rank": 1,
        "of": 1,
    }


# -- anchors ------------------------------------------------------------------------------------


ANCHORED = [
    doc("lit", governs=("src/ingest/rate_limit.rs",)),
    doc("dir", governs=("src/ingest",)),
    doc("glob", governs=("src/**/*.rs",)),
    doc("list", governs=("src/ingest/mod.rs", "src/other.rs")),
    doc("all", governs=("**/*",)),
    doc("term", summary="rate limiting in ingest"),
    *FILLER,
]


def test_a_named_path_anchors_every_governing_entry_outside_the_budget() -> None:
    answer = run(ANCHORED, "add rate limiting to src/ingest/rate_limit.rs", budget=1)
    assert answer.anchors == ("src/ingest/rate_limit.rs",)
    anchored = [p for p in answer.pointers if p.evidence["by"] == "anchor"]
    assert [p.entry.id for p in anchored] == ["dir", "glob", "lit"]  # by path
    assert all(p.evidence["anchors"] == ["src/ingest/rate_limit.rs"] for p in anchored)
    assert "all" not in ids(answer)  # a pattern covering everything names no anchor


def test_anchor_readings_strip_line_numbers_possessives_and_absolute_roots() -> None:
    for word in ["src/ingest/mod.rs:12.", "src/ingest/mod.rs's", "/repo/src/ingest/mod.rs"]:
        answer = run(ANCHORED, f"look at {word}", root="/repo")
        assert answer.anchors == ("src/ingest/mod.rs",), word
        assert "list" in ids(answer)


def test_request_paths_are_anchors_too() -> None:
    answer = run(ANCHORED, "tidy this", paths=("src/other.rs",))
    assert ids(answer)[:2] == ["glob", "list"]


LANGUAGES = [
    doc("jsx", summary="conventions for every JSX component", governs=("**/*.jsx",)),
    doc("cart", summary="how the cart module is laid out", governs=("src/cart/**",)),
    doc("enzyme", summary="port enzyme shallow tests to testing library"),
    *FILLER,
]


def test_a_task_naming_a_file_is_not_anchored_to_every_rule_for_its_language() -> None:
    answer = run(LANGUAGES, "port the enzyme shallow tests in src/cart/Cart.test.jsx")
    assert ids(answer) == ["enzyme", "cart"]  # what the words are about first; no `jsx`
    # a rule rooted in the named file's directory still governs it
    assert answer.pointers[1].evidence["anchors"] == ["src/cart/Cart.test.jsx"]
    # a language rule still competes on the task's words
    worded = run(LANGUAGES, "which JSX component conventions apply to src/cart/Cart.jsx")
    assert "jsx" in ids(worded)


def test_governing_the_named_file_counts_for_an_entry_the_words_reach_too() -> None:
    entries = [
        doc("handlers", summary="error responses of handlers", governs=("internal/**",)),
        doc("general", title="Error responses", summary="error responses and their codes"),
        *FILLER,
    ]
    answer = run(entries, "fix the error responses in internal/api/users.go")
    assert ids(answer) == ["handlers", "general"]
    assert answer.pointers[0].evidence["anchors"] == ["internal/api/users.go"]
    # without the path, the words alone put the general record first
    assert ids(run(entries, "fix the error responses of the handlers"))[0] == "handlers"
    assert ids(run(entries, "fix the error responses"))[0] == "general"


def test_a_route_of_files_alone_is_anchored_to_the_rules_for_their_language() -> None:
    # before an edit, or at a commit, the files are all the route has
    answer = run(LANGUAGES, "", paths=("src/cart/Cart.jsx",))
    assert sorted(ids(answer)) == ["cart", "jsx"]


def test_bare_words_are_never_anchors() -> None:
    answer = run([doc("d", governs=("docs",)), *FILLER], "update the docs")
    assert answer.anchors == ()


# -- purposes and turns -------------------------------------------------------------------------

TAXONOMY = Taxonomy(
    purposes=(
        Purpose("obligation", "state what is still owed", ("what is missing", "what waits")),
        Purpose("behavior", "state what the system does", ("what does this component do",)),
    ),
    kinds=(
        ("obligation_record", "obligation"),
        ("obligation_register", "obligation"),
        ("design_spec", "behavior"),
        ("interface_contract", "behavior"),
    ),
)


def _turn_catalog() -> list[Entry]:
    # score order o1 > o2 > o3 > r1 > s1 > i1: each holds one fewer copy of the weighted words
    words = "ledger shelf identifier placement naming scheme"
    spec = [
        ("o1", "obligation_record", 6),
        ("o2", "obligation_record", 5),
        ("o3", "obligation_record", 4),
        ("r1", "obligation_register", 3),
        ("s1", "design_spec", 2),
        ("i1", "interface_contract", 1),
    ]
    return [doc(i, kind, summary=" ".join(words.split()[:n])) for i, kind, n in spec] + FILLER


def test_seed_two_turn_order_example() -> None:
    answer = run(
        _turn_catalog(),
        "ledger shelf identifier placement naming scheme",
        TAXONOMY,
        order="turns",
        budget=6,
    )
    by_score = run(
        _turn_catalog(),
        "ledger shelf identifier placement naming scheme",
        TAXONOMY,
        order="score",
        budget=6,
    )
    # the score order withholds r1, s1 and i1, under RELATIVE_FLOOR of o1; turns offer them
    assert ids(by_score) == ["o1", "o2", "o3"]
    assert ids(answer) == ["o1", "s1", "r1", "i1", "o2", "o3"]


def test_turns_puts_the_best_matched_purpose_first_and_diverse_the_best_candidate() -> None:
    entries = [
        doc("spec", "design_spec", summary="missing ledger shelf identifier"),
        doc("obl", "obligation_record", summary="ledger shelf"),
        *FILLER,
    ]
    task = "what is missing ledger shelf"
    turns = run(entries, task, TAXONOMY, order="turns")
    diverse = run(entries, task, TAXONOMY, order="diverse")
    assert turns.matched[0][0] == "obligation"
    assert ids(turns) == ["obl", "spec"]
    assert ids(diverse) == ["spec", "obl"]


def test_purpose_scores_count_answers_three_and_intent_one() -> None:
    answer = run(_turn_catalog(), "what is missing in the system", TAXONOMY)
    # "missing" is in obligation's answers (+3); "system" only in behavior's intent (+1);
    # "what" is in every declaration, so it separates nothing
    assert answer.matched == (("obligation", 3), ("behavior", 1))


# -- succession ---------------------------------------------------------------------------------

SUCCESSION = [
    doc(
        "old",
        summary="edge throttling per service design",
        status="superseded",
        superseded_by=("new",),
    ),
    doc("new", summary="edge throttling design at the gateway", supersedes=("old",)),
    *FILLER,
]


def test_successor_moves_in_front_and_the_superseded_pointer_names_it() -> None:
    answer = run(SUCCESSION, "edge throttling per service design", order="score")
    assert ids(answer) == ["new", "old"]
    assert answer.pointers[1].superseded_by == "new"
    assert answer.pointers[0].superseded_by is None


def test_multi_hop_offers_the_entry_in_force() -> None:
    only_old = [
        doc("old", summary="per service quota design", superseded_by=("mid",)),
        doc("mid", summary="unrelated words", superseded_by=("new",)),
        doc("new", summary="other unrelated words"),
        *FILLER,
    ]
    answer = run(only_old, "per service quota design", strategy="multi-hop")
    assert ids(answer) == ["new"]
    assert answer.pointers[0].evidence == {"by": "succession", "from": "old"}


def test_same_request_same_route() -> None:
    first = run(_turn_catalog(), "ledger shelf naming", TAXONOMY)
    second = run(list(reversed(_turn_catalog())), "ledger shelf naming", TAXONOMY)
    assert ids(first) == ids(second)


def test_an_empty_catalog_is_not_reached_and_not_filtered() -> None:
    assert run([], "add caching").silence == "no_document_reached"
    assert run([], "add caching", kind="decision").silence == "filtered"


def test_a_filter_that_excludes_nothing_changes_nothing() -> None:
    # the score order scores only its top (MaxScore); a filter scores every candidate
    entries = [
        doc("gov", summary="queue consumer lag", governs=("src/queue/consumer.py",)),
        *[doc(f"d{i}", summary=f"queue consumer lag note {i}") for i in range(12)],
        *FILLER,
    ]
    task = "queue consumer lag in src/queue/consumer.py"
    plain = run(entries, task, budget=3)
    filtered = run(entries, task, budget=3, kind="doc")
    assert [(p.entry.id, p.evidence) for p in plain.pointers] == [
        (p.entry.id, p.evidence) for p in filtered.pointers
    ]
    assert plain.withheld == filtered.withheld


def test_a_silent_route_with_anchors_withholds_nothing() -> None:
    entries = [doc("gov", summary="release notes", governs=("src/app.py",)), *FILLER]
    answer = run(entries, "update the kubernetes helm chart for argo canary in src/app.py")
    assert [p.evidence["by"] for p in answer.pointers] == ["anchor"]
    assert answer.withheld == 0


def test_a_focus_counts_only_what_it_keeps_as_reached() -> None:
    # the notes are about the client the focus file imports: adjacency pollution
    entries = [
        doc("mine", summary="queue consumer lag KafkaClient", governs=("src/queue/consumer.py",)),
        *[doc(f"d{i}", summary=f"queue consumer lag KafkaClient note {i}") for i in range(4)],
        *FILLER,
    ]
    task = "queue consumer lag"
    assert len(run(entries, task).pointers) == 5
    imports = ("KafkaClient",)
    focused = run(entries, task, focus=Focus("src/queue/consumer.py", imported=imports))
    assert ids(focused) == ["mine"]
    assert (focused.pointers[0].evidence["rank"], focused.pointers[0].evidence["of"]) == (1, 1)
    assert focused.withheld == 0 and focused.filtered_by_focus == 4
    elsewhere = run(entries, task, focus=Focus("lib/elsewhere.py", imported=imports))
    assert elsewhere.silence == "filtered" and elsewhere.filtered_by_focus == 5


def test_a_focus_keeps_what_the_task_reached_unless_it_is_about_an_import() -> None:
    # documents about the task that no relevance signal reads (no path, no symbol) stay
    entries = [
        doc("decision", summary="queue consumer lag budget"),
        doc("client", summary="KafkaClient retries and queue lag"),
        *FILLER,
    ]
    focus = Focus("src/queue/consumer.py", imported=("KafkaClient",))
    focused = run(entries, "queue consumer lag", focus=focus)
    assert ids(focused) == ["decision"] and focused.filtered_by_focus == 1


def test_a_focus_never_drops_what_governs_the_focus_file() -> None:
    entries = [
        doc("glob", summary="python style", governs=("src/**/*.py",)),
        doc("dir", summary="billing rules", governs=("src/billing/",)),
        doc("lit", summary="money module", governs=("src/billing/money.py",)),
        *FILLER,
    ]
    focus = Focus("src/billing/money.py")
    named = run(entries, "", paths=("src/billing/money.py",), focus=focus)
    assert ids(named) == ["dir", "glob", "lit"] and named.filtered_by_focus == 0
    worded = run(entries, "python style billing rules", focus=focus)
    assert {"glob", "dir"} <= set(ids(worded)) and worded.filtered_by_focus == 0


# -- the PreToolUse hook over the demo catalog -------------------------------------------------


def pre_tool_use(repo: Path, path: str, tool: str = "Edit") -> str:
    """Return the additional context PreToolUse injects for an edit of `path` in `repo`."""
    engine = Engine.load(config.load(repo / "kroute.toml"))
    raw = json.dumps(
        {
            "session_id": "s",
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": {"file_path": str(repo / path)},
        }
    ).encode()
    printed = service.App(engine).answer("POST", "/v1/hook/claude/PreToolUse", raw).document
    return str(json.loads(printed)["hookSpecificOutput"]["additionalContext"]) if printed else ""


def test_pre_tool_use_offers_the_rule_a_glob_makes_govern_the_file(
    copy_tree: Callable[[Path], Path],
) -> None:
    repo = copy_tree(DEMO)
    rule = repo / ".cursor/rules/python-style.mdc"
    rule.write_text(rule.read_text().replace("globs:\n", "globs: src/**/*.py\n", 1))
    context = pre_tool_use(repo, "src/billing/money.py")
    assert ".cursor/rules/python-style.mdc" in context
    assert "docs/requirements/0001-tenant-isolation.md" in context  # governs src/billing/**


def test_pre_tool_use_offers_what_governs_a_new_file_by_directory() -> None:
    context = pre_tool_use(DEMO, "migrations/0002_refunded_at.sql", tool="Write")
    assert ".claude/skills/write-migration/SKILL.md" in context
    assert "docs/decisions/0009-expand-contract-migrations.md" in context  # governs migrations/


def test_a_long_prompt_routes_on_its_start_and_every_path_it_names() -> None:
    pasted = "frobnicated widget line of a pasted log\n" * 600
    long = f"rotate the webhook signing key. {pasted} then check migrations/0002_refunded_at.sql"
    assert len(long) > 20_000
    plan = registry.plan("claude", "UserPromptSubmit", {"session_id": "s", "prompt": long})
    assert len(plan.body["task"]) <= events.PROMPT_TASK_CHARS
    assert plan.body["paths"] == ["migrations/0002_refunded_at.sql"]
    engine = Engine.load(config.load(DEMO / "kroute.toml"))
    raw = json.dumps({"session_id": "s", "cwd": str(DEMO), "prompt": long}).encode()
    printed = service.App(engine).answer("POST", "/v1/hook/claude/UserPromptSubmit", raw)
    assert "docs/how-to/rotate-webhook-signing-key.md" in printed.document
    assert ".claude/skills/write-migration/SKILL.md" in printed.document
    short = registry.plan("claude", "UserPromptSubmit", {"prompt": "rotate the signing key"})
    assert short.body == {"task": "rotate the signing key", "strategy": "auto"}


# -- deadlines --------------------------------------------------------------------------------


ROTATION = [doc("a", summary="secret rotation schedule"), *FILLER]


def test_a_route_past_its_deadline_before_it_starts_is_silent_deadline() -> None:
    answer = assembly.assemble(
        Index(ROTATION), Taxonomy(), contract.Request(task="secret rotation"), Countdown(0)
    )
    assert (answer.silence, answer.status, answer.pointers, answer.terms) == (
        "deadline",
        "no_match",
        (),
        (),
    )


def test_a_route_stopped_part_way_is_silent_deadline_with_the_terms_it_read() -> None:
    whole = run(ROTATION, "secret rotation")
    assert ids(whole) == ["a"]
    for left in range(1, 4):
        stop = Countdown(left)
        answer = assembly.assemble(
            Index(ROTATION), Taxonomy(), contract.Request(task="secret rotation"), stop
        )
        assert answer.silence == "deadline" and answer.pointers == ()
        assert answer.terms == whole.terms
    # a stop that never says stop changes nothing, and it was asked along the way
    stop = Countdown(10**6)
    never = assembly.assemble(
        Index(ROTATION), Taxonomy(), contract.Request(task="secret rotation"), stop
    )
    assert never == whole and stop.asked > 3


def test_a_long_task_names_only_its_most_specific_terms() -> None:
    entries = [doc(f"d{i}", summary=f"term{i} filler{i % 7}") for i in range(120)]
    task = " ".join(f"term{i}" for i in range(120))
    answer = run(entries, task)
    assert len(answer.terms) == rank.MAX_QUERY_TERMS


# -- relative cutoff --------------------------------------------------------------------------


def test_a_candidate_far_below_the_first_is_withheld() -> None:
    entries = [
        doc("cache", title="Cache eviction policy", summary="how the cache evicts stale entries"),
        doc("evict", title="Evicted pods", summary="what happens when a node evicts pods"),
        doc(
            "passing",
            summary="release notes",
            body=(Section("Notes", "the cache was mentioned once in passing"),),
        ),
        *FILLER,
    ]
    answer = run(entries, "cache eviction policy for stale entries", budget=5, order="score")
    assert ids(answer)[0] == "cache"
    # a body mention of one word is a marginal match: withheld, not shown
    assert "passing" not in ids(answer)
    assert answer.withheld >= 1
    # a purpose order offers what it reaches, however far below the first
    assert "passing" in ids(run(entries, "cache eviction policy for stale entries", order="turns"))


def test_an_anchored_entry_the_words_reach_weakly_keeps_its_ranked_place() -> None:
    entries = [
        doc("cache", title="Cache eviction policy", summary="how the cache evicts stale entries"),
        doc(
            "style",
            summary="python style",
            governs=("src/cache.py",),
            body=(Section("Notes", "eviction is mentioned once"),),
        ),
        *FILLER,
    ]
    answer = run(entries, "cache eviction policy for stale entries in src/cache.py", order="score")
    # it competes in the ranked order (second), not in an anchor block before the first
    assert ids(answer) == ["cache", "style"]
