"""Reviewing the shadow log (DESIGN 12): stats, diff, replay, the HTML report."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from router.base.errors import ShadowError
from router.catalog import config
from router.logbook import chart, logfile, page, review, shadow
from router.runtime import intake
from router.runtime.engine import Engine
from testing.paths import DEMO, FIXTURES, REPO
from testing.records import REQUEST, document, record

# -- review ----------------------------------------------------------------------------------


def route_of(engine: Engine, body: dict[str, Any]) -> dict[str, Any]:
    """Return the route document of a JSON-style request, parsed as every entry point does."""
    return engine.route(intake.route(body, engine.config))


def stats_set() -> list[dict[str, Any]]:
    return [
        record("a", ["A", "B", "C"], kinds=["decision", "decision", "how_to"], injected=True),
        record("b", ["D"], kinds=["how_to"], elapsed_us=300),
        record("c", [], elapsed_us=200),
        record("d", skip="envelope", elapsed_us=5),
        record("a", ["A", "E"], version="0.10.0", injected=True, elapsed_us=1000),
        record("c", ["B", "F"], version="0.10.0", injected=True, elapsed_us=3000),
        record("x", skip="empty-prompt", version="0.9.0"),
    ]


def test_stats_numbers_grouped_by_version() -> None:
    s = review.stats(stats_set())
    assert s["versions"] == ["0.1.0", "0.9.0", "0.10.0"]
    old, mid, new, every = (*(s["by_version"][v] for v in s["versions"]), s["all"])
    assert (old["records"], old["routes"], old["routed"], old["silent"]) == (4, 3, 2, 1)
    assert (old["skipped"], old["injected"]) == (1, 1)
    assert (old["silence_rate"], old["injected_rate"], old["pointers_per_route"]) == (
        0.3333,
        0.3333,
        1.3333,
    )
    assert old["kinds"] == {"decision": 2, "how_to": 2}
    assert old["purposes"] == {"procedure": 2, "rationale": 2}
    assert old["skips"] == {"envelope": 1}
    assert old["latency_us"] == {"p50": 200, "p90": 300, "p99": 300, "max": 300}
    assert (mid["routes"], mid["skipped"], mid["silence_rate"], mid["skips"]) == (
        0,
        1,
        None,
        {"empty-prompt": 1},
    )
    assert mid["latency_us"] == {"p50": None, "p90": None, "p99": None, "max": None}
    assert (new["silence_rate"], new["injected_rate"], new["pointers_per_route"]) == (0, 1, 2)
    assert new["latency_us"] == {"p50": 1000, "p90": 3000, "p99": 3000, "max": 3000}
    assert (every["records"], every["routes"], every["skipped"]) == (7, 5, 2)
    assert (every["silence_rate"], every["injected_rate"], every["pointers_per_route"]) == (
        0.2,
        0.6,
        1.6,
    )
    assert every["latency_us"] == {"p50": 300, "p90": 3000, "p99": 3000, "max": 3000}

    text = review.stats_text(s)
    header, *rows = text.splitlines()[:5]
    assert header.split() == [
        *("engine", "records", "routes", "silence", "injected", "skipped", "ptr/route"),
        *("p50", "us", "p90", "us", "p99", "us"),
    ]
    assert rows[0].split() == [
        "0.1.0",
        "4",
        "3",
        "33.3%",
        "33.3%",
        "1",
        "1.33",
        "200",
        "300",
        "300",
    ]
    assert rows[1].split() == ["0.9.0", "1", "0", "-", "-", "1", "-", "-", "-", "-"]
    assert rows[3].split() == [
        "all",
        "7",
        "5",
        "20.0%",
        "60.0%",
        "2",
        "1.60",
        "300",
        "3000",
        "3000",
    ]
    assert "0.1.0: kinds offered   decision 2, how_to 2" in text
    assert "\u2014" not in text


def diff_set() -> list[dict[str, Any]]:
    return [
        record("t1", ["X"], version="1.0"),  # superseded by the later t1 line under 1.0
        record("t1", ["A", "B", "C"], version="1.0"),
        record("t1", ["Z"], version="0.9"),  # another version: never mixed in
        record("t1", ["B", "A", "D"], version="1.1"),
        record("t2", ["A"], version="1.0"),
        record("t2", ["A"], version="1.1"),
        record("t3", ["A"], version="1.0"),
        record("t4", ["A"], version="1.1"),
        record("t5", ["A", "B"], version="1.0"),
        record("t5", [], version="1.1"),
        record("t6", skip="envelope", version="1.1"),
    ]


def test_diff_lists_moved_appeared_vanished_per_task() -> None:
    d = review.diff(diff_set(), "1.0", "1.1")
    assert d["summary"] == {
        "compared": 3,
        "changed": 2,
        "unchanged": 1,
        "moved": 2,
        "appeared": 1,
        "vanished": 3,
        "only_from": 1,
        "only_to": 1,
    }
    t1, t2, t5 = d["tasks"]
    assert (t1["task"], t1["changed"], t1["status"]) == ("t1", True, None)
    assert t1["moved"] == [{"id": "B", "from": 2, "to": 1}, {"id": "A", "from": 1, "to": 2}]
    assert t1["appeared"] == [{"id": "D", "to": 3}]
    assert t1["vanished"] == [{"id": "C", "from": 3}]
    assert (t1["from"]["pointers"], t1["to"]["pointers"]) == (["A", "B", "C"], ["B", "A", "D"])
    assert (t2["task"], t2["changed"], t2["moved"], t2["appeared"], t2["vanished"]) == (
        "t2",
        False,
        [],
        [],
        [],
    )
    assert t5["vanished"] == [{"id": "A", "from": 1}, {"id": "B", "from": 2}]
    assert t5["status"] == {
        "from": "routed",
        "to": "no_match",
        "from_silence": None,
        "to_silence": "no_document_reached",
    }

    text = review.diff_text(d)
    assert text.splitlines()[0].startswith("diff 1.0 -> 1.1: 3 tasks under both, 2 changed")
    assert "  moved     B  2 -> 1" in text and "  appeared  D  at 3" in text
    assert "  vanished  C  was 3" in text and "task  t2" not in text
    assert "  status    routed -> no_match (no_document_reached)" in text


def test_diff_names_the_versions_when_one_is_missing() -> None:
    with pytest.raises(ShadowError, match=r"version 2\.0") as caught:
        review.diff(diff_set(), "1.0", "2.0")
    assert caught.value.todo == "Versions in the log: 0.9, 1.0, 1.1"


def test_replay_reports_matches_mismatches_and_errors() -> None:
    budget3 = {**REQUEST, "budget": 3}
    logged = [
        record("same", ["OLD"]),  # the later line of the same task and request wins
        record("same", ["A", "B"]),
        record("same", ["A"], request=budget3),  # another request: replayed on its own
        record("quiet", []),
        record("moves", ["A", "B", "C"]),
        record("boom", ["A"]),
        record("skipped", skip="daemon-unavailable"),
    ]
    answers = {
        ("same", 5): document(["A", "B"]),
        ("same", 3): document(["A"]),
        ("quiet", 5): document([]),
        ("moves", 5): document(["B", "A", "D"]),
    }
    asked: list[tuple[str, dict[str, Any]]] = []
    ticks: list[tuple[int, int]] = []

    def route(task: str, request: dict[str, Any]) -> dict[str, Any]:
        asked.append((task, request))
        if task == "boom":
            raise RuntimeError("index gone")
        return answers[(task, request["budget"])]

    report = review.replay(logged, route, lambda done, total: ticks.append((done, total)))
    assert report["summary"] == {"tasks": 5, "matched": 3, "mismatched": 1, "errored": 1}
    assert [(t, r["budget"]) for t, r in asked] == [
        ("same", 5),
        ("same", 3),
        ("quiet", 5),
        ("moves", 5),
        ("boom", 5),
    ]
    assert ticks == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]
    by_task = {(t["task"], t["request"]["budget"]): t for t in report["tasks"]}
    assert by_task[("same", 5)]["match"] and by_task[("quiet", 5)]["match"]
    moves = by_task[("moves", 5)]
    assert (moves["match"], moves["error"]) == (False, None)
    assert moves["control"]["pointers"] == ["A", "B", "C"]
    assert moves["candidate"]["pointers"] == ["B", "A", "D"]
    assert moves["moved"] == [{"id": "B", "from": 2, "to": 1}, {"id": "A", "from": 1, "to": 2}]
    assert (moves["appeared"], moves["vanished"]) == (
        [{"id": "D", "to": 3}],
        [{"id": "C", "from": 3}],
    )
    boom = by_task[("boom", 5)]
    assert (boom["match"], boom["candidate"], boom["error"]) == (
        False,
        None,
        "RuntimeError: index gone",
    )

    text = review.replay_text(report)
    assert text.splitlines()[0] == "replay: 5 tasks, 3 matched, 1 mismatched, 1 errored"
    assert "MISMATCH  moves" in text and "  control    routed: A, B, C" in text
    assert "  candidate  routed: B, A, D" in text
    assert "ERROR     boom" in text and "RuntimeError: index gone" in text
    assert "same" not in text


def test_replay_against_the_real_engine_finds_the_route_an_edit_changed(
    copy_tree: Callable[[Path], Path],
) -> None:
    repo = copy_tree(DEMO)
    engine = Engine.load(config.load(repo / "kroute.toml"))
    log = repo.parent / "shadow" / "2025-03-01.jsonl"
    tasks = ["retry backoff for webhooks delivery", "add a column migration to the invoices table"]
    for task in tasks:
        doc = route_of(engine, {"task": task})
        request = {
            "filters": doc["filters"],
            "budget": 5,
            "order": engine.config.order,
            "paths": [],
        }
        logfile.append(
            log,
            shadow.record(
                shadow.Emitted(
                    engine_version=engine.version,
                    catalog_fingerprint=doc["catalog"]["fingerprint"],
                    config_digest=engine.config.digest,
                    source="cli",
                    session=None,
                    prompt_id=None,
                    cwd=str(repo),
                    mode="live",
                    injected=True,
                    task=task,
                    request={**request, "strategy": None},
                    document=doc,
                    text=doc["text"],
                    elapsed_us=900,
                ),
                "2025-03-01T10:00:00Z",
            ),
        )

    def route(task: str, request: dict[str, Any]) -> dict[str, Any]:
        return route_of(engine, shadow.body(task, request))

    untouched = review.replay(shadow.read(log), route)
    assert untouched["summary"] == {"tasks": 2, "matched": 2, "mismatched": 0, "errored": 0}

    decision = repo / "docs" / "decisions" / "0008-exponential-backoff-with-jitter.md"
    before = "problem_spaces: [retry a failed delivery, thundering herd after an outage]"
    assert before in decision.read_text()
    # the record turns into one about something else: its words no longer reach the task
    decision.write_text("---\nid: TW-DR-0008\ntitle: Dashboard colours\n---\n\nPick a palette.\n")
    engine.reload()

    report = review.replay(shadow.read(log), route)
    assert report["summary"] == {"tasks": 2, "matched": 1, "mismatched": 1, "errored": 0}
    changed = [t for t in report["tasks"] if not t["match"]]
    assert [t["task"] for t in changed] == [tasks[0]]
    fresh = [p["id"] for p in route_of(engine, {"task": tasks[0]})["pointers"]]
    assert changed[0]["candidate"]["pointers"] == fresh != changed[0]["control"]["pointers"]
    assert "TW-DR-0008" in [m["id"] for m in changed[0]["moved"] + changed[0]["vanished"]]


def test_report_html_is_one_self_contained_escaped_page() -> None:
    records = [
        *stats_set(),
        record(
            "<script>alert('x')</script> see https://evil.example", ["<b>X</b>"], version="0.10.0"
        ),
        record("t", ["A"], version="<img src=x>"),
    ]
    html = page.report(records, [], "Shadow <report> for demo")
    assert html == page.report(records, [], "Shadow <report> for demo")  # deterministic
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") == 3
    assert "<title>Shadow &lt;report&gt; for demo</title>" in html
    for version in ("0.1.0", "0.9.0", "0.10.0", "&lt;img src=x&gt;"):
        assert f'<td class="l">{version}</td>' in html
    assert '<td class="n">33.3%</td>' in html and '<td class="n">1.33</td>' in html  # 0.1.0
    assert "<script" not in html.lower() and "<img" not in html and "<b>X" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert re.findall(r"<[a-z][^>]*\s(?:src|href)\s*=", html, re.I) == []  # no link at all
    assert not re.search(r"""<(?:link|img|iframe|object|embed)\b""", html, re.I)
    assert "url(" not in html and "@import" not in html
    # latency histogram: log-spaced buckets from 100 us to 2000 us
    assert ">100µs</text>" in html and ">2ms</text>" in html


def test_latency_buckets_are_log_spaced() -> None:
    assert chart.latency_buckets([]) == []
    assert chart.latency_buckets([0, 3, 3, 40, 999, 1000, 1500]) == [
        (0, 1),
        (1, 0),
        (2, 2),
        (5, 0),
        (10, 0),
        (20, 1),
        (50, 0),
        (100, 0),
        (200, 0),
        (500, 1),
        (1000, 2),
    ]


def test_the_shadow_modules_print_nothing_and_read_no_clock() -> None:
    for name in (
        "shadow.py",
        "logfile.py",
        "review.py",
        "report.py",
        "page.py",
        "chart.py",
        "follow.py",
        "opened.py",
    ):
        source = (REPO / "router" / "logbook" / name).read_text()
        for banned in ("print(", "import click", "os.environ", "time.time", "datetime.now"):
            assert banned not in source, (name, banned)
    assert os.path.isfile(FIXTURES / "shadow" / "README.md")


def test_documents_counts_offers_and_names_the_entries_never_offered() -> None:
    records = [
        record("a", ["x", "y"]),
        record("b", ["y"]),
        record("c", []),
        record("d", skip="no-prompt"),
    ]
    catalog = [{"id": i, "path": f"docs/{i}.md", "kind": "decision"} for i in ("w", "x", "y", "z")]
    view = review.documents(records, catalog)
    assert view["routes"] == 3
    assert view["offered"] == [
        {"id": "y", "path": "docs/y.md", "offered": 2, "first": 1},
        {"id": "x", "path": "docs/x.md", "offered": 1, "first": 1},
    ]
    assert [d["id"] for d in view["never"]] == ["w", "z"]
    text = review.documents_text(view)
    assert text.splitlines()[0] == "3 routes; 2 documents offered"
    assert "never offered: 2" in text


def test_diff_compares_across_catalog_fingerprints() -> None:
    before, after = record("t", ["a", "b"]), record("t", ["b", "c"])
    after["catalog_fingerprint"] = "f2"
    assert review.axis_of([before, after], "f1") == "fingerprint"
    assert review.axis_of([before, after], "0.1.0") == "version"
    result = review.diff([before, after], "f1", "f2", by="fingerprint")
    assert result["by"] == "fingerprint" and result["summary"]["changed"] == 1
    assert result["tasks"][0]["appeared"] == [{"id": "c", "to": 2}]
    with pytest.raises(ShadowError, match="catalog fingerprint f3") as caught:
        review.diff([before, after], "f1", "f3", by="fingerprint")
    assert caught.value.todo == "Fingerprints in the log: f1, f2"


def test_stats_group_by_catalog_fingerprint_in_the_order_first_logged() -> None:
    records = [
        record("a", ["A"], fingerprint="f9"),
        record("b", [], fingerprint="f2"),
        record("c", ["A", "B"], fingerprint="f9"),
    ]
    s = review.stats(records)
    assert s["fingerprints"] == ["f9", "f2"]
    assert s["by_fingerprint"]["f9"]["routes"] == 2 and s["by_fingerprint"]["f2"]["silent"] == 1
    lines = review.stats_text(s).splitlines()
    catalog = lines.index(next(line for line in lines if line.startswith("catalog")))
    assert lines[catalog + 1].split()[:3] == ["f9", "2", "2"]


def catalog_edit() -> list[dict[str, Any]]:
    """One engine version; the catalog edited between two runs of the same tasks."""
    return [
        record("t1", ["a", "b"], at="2025-03-01T10:00:00.000Z"),
        record("t2", ["c"], at="2025-03-01T10:01:00.000Z"),
        record("t1", ["b", "a"], fingerprint="f2", at="2025-03-02T10:00:00.000Z"),
        record("t2", ["c"], fingerprint="f2", at="2025-03-02T10:01:00.000Z"),
    ]


def test_the_last_two_versions_are_those_of_the_axis_that_changed_last() -> None:
    records = catalog_edit()
    assert review.latest_pair(records) == ("fingerprint", "f1", "f2")
    # an upgrade after the edit: the engine changed last
    upgraded = [*records, record("t1", ["a"], version="0.2.0", fingerprint="f2")]
    assert review.latest_pair(upgraded) == ("version", "0.1.0", "0.2.0")
    assert review.latest_pair(upgraded, "fingerprint") == ("fingerprint", "f1", "f2")
    assert [v["value"] for v in review.versions(upgraded, "version")] == ["0.1.0", "0.2.0"]
    listed = review.versions(records, "fingerprint")
    assert listed[0] == {
        "value": "f1", "routes": 2, "first": "2025-03-01T10:00:00.000Z",
        "last": "2025-03-01T10:01:00.000Z",
    }  # fmt: skip
    # back to the first catalog: the two last routed, the one routed last as `to`
    reverted = [*records, record("t1", ["a", "b"], at="2025-03-03T10:00:00.000Z")]
    assert review.latest_pair(reverted) == ("fingerprint", "f2", "f1")
    with pytest.raises(ShadowError, match="no two engine versions") as caught:
        review.latest_pair(records[:2])
    assert "versions: 0.1.0; fingerprints: f1" in caught.value.todo
    with pytest.raises(ShadowError, match="fewer than two versions"):
        review.latest_pair(records, "version")


def test_the_report_compares_catalog_versions_and_lists_silent_prompts() -> None:
    silent = record("weather on mars today", [], fingerprint="f2", at="2025-03-02T11:00:00.000Z")
    silent["silence"] = {"reason": "no_document_reached", "says": "...", "lacking": ["mars"]}
    html = page.report([*catalog_edit(), silent], [], "demo")
    assert "nothing to compare" not in html
    cells = ["catalog", "f1", "f2", "2", "1", "2"]  # of, from, to, tasks, changed, moved
    row = "".join(f'<td class="{k}">{c}</td>' for k, c in zip("lllnnn", cells, strict=True))
    assert "<tr>" + row in html
    start = html.index("<h2>Silent prompts</h2>")
    silent_section = html[start : html.index("<h2>", start + 1)]
    assert '<td class="t">weather on mars today</td>' in silent_section
    assert '<td class="l">no_document_reached</td>' in silent_section
    assert '<td class="t">mars</td>' in silent_section
    # one engine version: a sentence, not a chart of a single bar; two catalogs: charts
    assert "One engine version routed (0.1.0)" in html
    assert html.count("<svg") == 3  # silence and pointers by catalog version, latency
    assert "Silence rate by engine version" not in html


def test_the_report_shows_followed_pointers_and_documents() -> None:
    routes = [record("rotate keys", ["A", "B"], session="s")]
    offer = {"at": "x", "engine_version": "0.1.0", "catalog_fingerprint": "f1", "rank": 1}
    line = {
        "schema": "kroute.opened/1", "at": "2025-03-01T11:00:00.000Z", "engine_version": "0.1.0",
        "catalog_fingerprint": "f1", "source": "claude/PostToolUse", "session": "s",
        "tool": "Read", "id": "A", "path": "docs/A.md", "file": "docs/A.md", "kind": "decision",
        "offer": offer,
    }  # fmt: skip
    opens: list[dict[str, Any]] = [
        line,
        {**line, "id": "Z", "path": "docs/Z.md", "file": "docs/Z.md", "offer": None},
    ]
    html = page.report(routes, opens, "demo")
    assert "1 of 2 pointers offered in 1 session followed (50.0%)" in html
    assert '<tr><td class="l">A</td>' in html and '<tr><td class="l">Z</td>' in html
    assert "<h2>Read without a pointer</h2>" in html and "<h2>Pointers never followed</h2>" in html
    assert '<td class="t">rotate keys</td>' in html  # the prompt before Z's read
    none = page.report(routes, [], "demo")
    assert "no read was logged" in none and "<h2>Read without a pointer</h2>" not in none


def test_times_and_numbers_never_wrap_only_prose_does() -> None:
    html = page.report(catalog_edit(), [], "demo")
    assert '<td class="n">2025-03-02T10:01:00.000Z</td>' in html  # on one line, right-aligned
    assert ".n{text-align:right;white-space:nowrap}" in page.STYLE
