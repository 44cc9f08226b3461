"""Why an entry was or was not offered (router.route.whynot), through the real engine, the
service endpoints and the CLI."""

from __future__ import annotations

import json
from typing import Any

import pytest

from router.catalog import config
from router.runtime.engine import Engine
from router.serve import service
from testing.paths import DEMO
from testing.process import kroute

TASK = "retry a failed webhook delivery"


@pytest.fixture(scope="module")
def app() -> service.App:
    return service.App(Engine.load(config.load(DEMO / "kroute.toml")))


def ask(app: service.App, endpoint: str, body: dict[str, Any]) -> service.Answer:
    return app.answer("POST", endpoint, service.encode(body))


def why(app: service.App, entry: str, **members: Any) -> dict[str, Any]:
    answer = ask(app, "/v1/why-not", {"entry": entry, "task": TASK, **members})
    assert answer.status == 200, answer.document
    document: dict[str, Any] = answer.document
    return document


def whole_order(app: service.App, **members: Any) -> list[str]:
    """Return the ids of the whole score order, by their evidence's rank (a successor is
    shown in front of what it supersedes)."""
    routed = ask(app, "/v1/route", {"task": TASK, "budget": 50, **members}).document
    return [p["id"] for p in sorted(routed["pointers"], key=lambda p: p["evidence"]["rank"])]


def test_an_offered_entry_says_where_it_stands(app: service.App) -> None:
    first = whole_order(app)[0]
    answer = why(app, first, budget=3)
    assert answer["offered"] is True and answer["withheld_by"] is None
    assert (answer["pointer"], answer["rank"], answer["beaten_by"]) == (1, 1, [])
    assert answer["reasons"] == [
        f"It was offered as pointer 1 of 3, rank 1 of {answer['of']} in the score order."
    ]
    assert answer["text"].startswith(f"{first} (") and ": offered\n" in answer["text"]


def test_an_entry_below_the_budget_names_its_rank_and_what_beat_it(app: service.App) -> None:
    order = whole_order(app)
    answer = why(app, order[4], budget=3)
    assert answer["offered"] is False and answer["withheld_by"] == "budget"
    assert answer["rank"] == 5 and answer["beaten_by"] == order[:3]
    assert answer["of"] >= len(order)
    assert answer["reasons"] == [
        f"It ranked 5 of {answer['of']} in the score order, below the budget of 3."
    ]
    # what it holds is what the route's own evidence says reached it
    evidence = next(
        p["evidence"]
        for p in ask(app, "/v1/route", {"task": TASK, "budget": 5}).document["pointers"]
        if p["id"] == order[4]
    )
    assert answer["holds"] == [f for f in evidence["fields"]]
    held = {t for f in answer["holds"] for t in f["terms"]}
    assert set(answer["lacks"]) == {"retry", "failed", "webhook", "delivery"} - held


def test_a_filter_names_itself_and_what_the_entry_holds(app: service.App) -> None:
    first = whole_order(app)[0]  # a skill
    answer = why(app, first, kind="decision")
    assert answer["withheld_by"] == "filter" and answer["rank"] is None
    assert answer["reasons"] == ["The kind filter (decision) leaves it out: its kind is skill."]
    assert answer["holds"]  # it still holds the words: only the filter kept it out


def test_silence_gives_the_routes_reason(app: service.App) -> None:
    answer = why(app, whole_order(app)[0], task="bake sourdough bread")
    assert answer["withheld_by"] == "silence" and answer["silence"] == "no_document_reached"
    assert answer["reasons"][0].startswith("The route stayed silent (no_document_reached): ")
    assert "`sourdough`" in answer["reasons"][0]
    assert answer["lacks"] == ["bake", "sourdough", "bread"] and answer["holds"] == []


def test_the_focus_filter_is_named() -> None:
    engine = Engine.load(config.load(DEMO / "kroute.toml"))
    focused = service.App(engine)
    task = "change how invoice tax lines are computed"
    focus = str(DEMO / "src" / "billing" / "invoice.py")
    answer = ask(focused, "/v1/why-not", {"entry": "TW-DR-0006", "task": task, "focus": focus})
    assert answer.document["withheld_by"] == "focus"
    assert "src/billing/invoice.py" in answer.document["reasons"][0]


def test_an_entry_no_term_reaches(app: service.App) -> None:
    answer = why(app, "docs/decisions/0001-postgres-event-store.md")
    assert answer["entry"] == "TW-DR-0001" and answer["withheld_by"] == "unreached"
    assert answer["reasons"] == ["No task term reaches it."] and answer["rank"] is None


def test_an_unknown_entry_is_a_404_naming_it(app: service.App) -> None:
    answer = ask(app, "/v1/why-not", {"entry": "no-such-doc", "task": TASK})
    assert answer.status == 404 and answer.document["error"]["code"] == "unknown_entry"
    assert "no-such-doc" in answer.document["error"]["message"]
    assert "kroute check" in answer.document["error"]["message"]
    bad = ask(app, "/v1/why-not", {"task": TASK})
    assert bad.status == 400 and "`entry`" in bad.document["error"]["message"]


def test_the_answer_is_deterministic(app: service.App) -> None:
    first = ask(app, "/v1/why-not", {"entry": "TW-DR-0001", "task": TASK, "order": "diverse"})
    again = ask(app, "/v1/why-not", {"entry": "TW-DR-0001", "task": TASK, "order": "diverse"})
    assert service.encode(first.document) == service.encode(again.document)


def test_the_catalog_lists_entries_in_path_order(app: service.App) -> None:
    listed = app.answer("GET", "/v1/catalog", b"").document["entries"]
    assert len(listed) == len(app.engine.index)
    assert [e["path"] for e in listed] == sorted(e["path"] for e in listed)
    assert set(listed[0]) == {"id", "path", "kind", "title", "summary"}
    how_to = app.answer("GET", "/v1/catalog?kind=how_to", b"").document["entries"]
    posted = ask(app, "/v1/catalog", {"kind": "how_to"}).document["entries"]
    assert how_to == posted and how_to and {e["kind"] for e in how_to} == {"how_to"}
    assert ask(app, "/v1/catalog", {"kind": 3}).status == 400


@pytest.mark.process
def test_the_cli_prints_the_text_or_the_json() -> None:
    args = ("why-not", "--catalog", str(DEMO), "--no-daemon", "--budget", "1")
    shown = kroute(*args, "TW-DR-0001", TASK)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("TW-DR-0001 (docs/decisions/0001-postgres-event-store.md)")
    as_json = json.loads(kroute(*args, "--json", "TW-DR-0001", TASK).stdout)
    assert as_json["withheld_by"] == "unreached"
    missing = kroute(*args, "no-such-doc", TASK)
    assert missing.returncode == 1 and "kroute check" in missing.stderr
