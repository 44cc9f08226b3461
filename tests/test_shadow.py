"""The shadow-mode log (DESIGN 12): appends, reads, upgrades, stats, diff, replay, report."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from router import config, report, review, shadow
from router.engine import Engine

from conftest import DEMO, FIXTURES, REPO

FILTERS = {"cluster": None, "domain": None, "kind": None, "purpose": None}
REQUEST = {"filters": FILTERS, "budget": 5, "order": "diverse", "strategy": None, "paths": []}
KIND_PURPOSE = {"decision": "rationale", "how_to": "procedure", "design_spec": "behavior"}


def document(ids: list[str], kinds: list[str] | None = None) -> dict[str, Any]:
    """A route document shaped like render.route_json, with extra pointer members that the
    log must drop. No id means a silent route."""
    kinds = kinds or ["decision"] * len(ids)
    pointers = [
        {
            "id": i,
            "path": f"docs/{i}.md",
            "kind": k,
            "purpose": KIND_PURPOSE[k],
            "title": f"title of {i}",
            "summary": "dropped from the log",
            "unwarranted": False,
            "evidence": {"by": "terms", "field": "tags", "rank": n, "of": len(ids), "terms": []},
        }
        for n, (i, k) in enumerate(zip(ids, kinds, strict=True), start=1)
    ]
    silence = None if ids else {"reason": "no_document_reached", "says": "No document ..."}
    return {
        "schema": "kroute.route/1",
        "status": "routed" if ids else "no_match",
        "pointers": pointers,
        "withheld": 0,
        "silence": silence,
        "intent": None,
        "text": "",
    }


def record(
    task: str,
    ids: list[str] | None = None,
    *,
    version: str = "0.1.0",
    kinds: list[str] | None = None,
    injected: bool = False,
    elapsed_us: int = 100,
    skip: str | None = None,
    at: str = "2025-03-01T10:00:00.000000Z",
    request: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return shadow.entry(
        at=at,
        engine_version=version,
        catalog_fingerprint="f1",
        config_digest="d1",
        source="claude/UserPromptSubmit",
        session="s",
        prompt_id="p",
        cwd="/repo",
        mode="live",
        injected=injected,
        task=task,
        request=request or REQUEST,
        document=None if skip else document(ids or [], kinds),
        text="",
        elapsed_us=elapsed_us,
        skip=skip,
    )


def read_all(source: Path, since: str | None = None) -> tuple[list[dict[str, Any]], list[Any]]:
    reading = shadow.read(source, since)
    records = list(reading)
    return records, reading.skipped


# -- writing and reading ---------------------------------------------------------------------


def test_append_and_read_round_trip(tmp_path: Path) -> None:
    path = shadow.log_path(tmp_path / "state", "abc123", "2025-03-01")
    assert path == tmp_path / "state" / "shadow" / "abc123" / "2025-03-01.jsonl"
    first, second = record("retry a webhook", ["A", "B"]), record("hello", skip="envelope")
    shadow.append(path, first)
    shadow.append(path, second)

    raw = path.read_bytes().splitlines(keepends=True)
    assert len(raw) == 2 and all(line.endswith(b"\n") for line in raw)
    for line in raw:
        keys = list(orjson.loads(line))
        assert keys == sorted(keys)
        assert line == orjson.dumps(orjson.loads(line), option=orjson.OPT_SORT_KEYS) + b"\n"
    records, skipped = read_all(path)
    assert records == [first, second] and skipped == []
    assert set(first) == {
        *("schema", "at", "engine_version", "catalog_fingerprint", "config_digest", "source"),
        *("session", "prompt_id", "cwd", "mode", "injected", "task", "request", "status"),
        *("silence", "pointers", "withheld", "intent", "text", "elapsed_us", "skip"),
    }
    assert first["pointers"][0] == {
        "id": "A",
        "path": "docs/A.md",
        "kind": "decision",
        "purpose": "rationale",
        "evidence": {"by": "terms", "field": "tags", "rank": 1, "of": 2, "terms": []},
    }
    assert (second["status"], second["skip"], second["pointers"]) == ("skipped", "envelope", [])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for directory in (path.parent, path.parent.parent, path.parent.parent.parent):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    # a directory means every *.jsonl in it, by name
    shadow.append(path.with_name("2025-02-28.jsonl"), record("earlier", ["C"]))
    records, _ = read_all(shadow.log_dir(tmp_path / "state", "abc123"))
    assert [r["task"] for r in records] == ["earlier", "retry a webhook", "hello"]


WRITER = """
import sys, time
from pathlib import Path
from router import shadow
path, worker, go = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
deadline = time.monotonic() + 60
while not go.exists() and time.monotonic() < deadline:
    time.sleep(0.001)
for seq in range(200):
    size = 2048 + (worker * 997 + seq * 131) % 6144
    text = chr(ord("a") + worker) * size
    shadow.append(path, {"worker": worker, "seq": seq, "size": size, "text": text})
"""


def test_concurrent_writers_never_interleave(tmp_path: Path) -> None:
    path, go = tmp_path / "shadow" / "r" / "2025-03-01.jsonl", tmp_path / "go"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w), str(go)], cwd=REPO)
        for w in range(8)
    ]
    time.sleep(0.3)  # let every writer reach the gate, so that they really overlap
    go.touch()
    assert [w.wait(timeout=120) for w in writers] == [0] * 8

    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    lines = raw.split(b"\n")[:-1]
    assert len(lines) == 1600
    seen: dict[int, list[int]] = {}
    for line in lines:
        item = orjson.loads(line)
        assert item["text"] == chr(ord("a") + item["worker"]) * item["size"]
        seen.setdefault(item["worker"], []).append(item["seq"])
    assert seen == {w: list(range(200)) for w in range(8)}


def test_torn_last_line_and_garbage_are_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "2025-03-01.jsonl"
    good = [record("one", ["A"]), record("two", ["B"]), record("three", ["C"])]
    lines = [orjson.dumps(r, option=orjson.OPT_SORT_KEYS) for r in good]
    garbage = [b"not json at all", b"[1, 2, 3]", b""]
    torn = orjson.dumps(record("four", ["D"]))[:57]
    path.write_bytes(b"\n".join([lines[0], *garbage, lines[1], lines[2], torn]))

    records, skipped = read_all(path)
    assert [r["task"] for r in records] == ["one", "two", "three"]
    assert [(s.line, s.reason) for s in skipped] == [
        (2, "not a JSON object"),
        (3, "not a JSON object"),
        (4, "not a JSON object"),
        (7, "torn last line (no newline)"),
    ]
    # the next append starts a fresh line: only the torn line is lost, never the new one
    shadow.append(path, record("five", ["E"]))
    records, skipped = read_all(path)
    assert [r["task"] for r in records] == ["one", "two", "three", "five"]
    assert [s.line for s in skipped] == [2, 3, 4, 7]


def test_a_v1_line_is_upgraded_on_read_and_the_file_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "2024-11-04.jsonl"
    path.write_bytes((FIXTURES / "shadow" / "2024-11-04.jsonl").read_bytes())
    shadow.append(path, record("current", ["A"], version="0.2.0"))
    before = path.read_bytes()

    records, skipped = read_all(path)
    assert skipped == []
    assert [r["schema"] for r in records] == [shadow.SCHEMA] * 3
    old = records[0]
    assert (old["engine_version"], old["catalog_fingerprint"]) == ("0.0.9", "5978ceae73ab8d36")
    assert "version" not in old and "fingerprint" not in old
    assert (old["skip"], old["intent"]) == (None, None)
    assert [p["id"] for p in old["pointers"]] == ["TW-DR-0008", "TW-HOW-redeliver-webhook"]
    assert records[1]["silence"]["reason"] == "no_document_reached"
    assert records[2]["engine_version"] == "0.2.0"
    assert path.read_bytes() == before
    assert review.stats(records)["versions"] == ["0.0.9", "0.2.0"]


def test_an_unknown_schema_is_skipped_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    future = {**record("later", ["A"]), "schema": "kroute.shadow/9"}
    path.write_bytes(orjson.dumps(future) + b"\n" + orjson.dumps(record("now", ["A"])) + b"\n")
    records, skipped = read_all(path)
    assert [r["task"] for r in records] == ["now"]
    assert [(s.line, s.reason) for s in skipped] == [(1, "unknown schema 'kroute.shadow/9'")]
    with pytest.raises(shadow.ShadowError, match="not a JSON object"):
        shadow.upgrade([1])


def test_since_filters_on_the_timestamp(tmp_path: Path) -> None:
    directory = tmp_path / "log"
    for at in ("2025-02-27T23:59:59Z", "2025-03-01T09:00:00Z", "2025-03-01T11:30:00Z"):
        shadow.append(directory / f"{shadow.day_of(at)}.jsonl", record(at, ["A"], at=at))
    assert [r["at"] for r in shadow.read(directory, since="2025-03-01")] == [
        "2025-03-01T09:00:00Z",
        "2025-03-01T11:30:00Z",
    ]
    assert [r["at"] for r in shadow.read(directory, since="2025-03-01T10")] == [
        "2025-03-01T11:30:00Z"
    ]
    assert len(list(shadow.read(directory, since="2025"))) == 3


def test_missing_logs_and_bad_days_raise(tmp_path: Path) -> None:
    with pytest.raises(shadow.ShadowError, match="no shadow log at"):
        shadow.read(tmp_path / "nothing.jsonl")
    with pytest.raises(shadow.ShadowError, match="YYYY-MM-DD"):
        shadow.log_path(tmp_path, "r", "../../etc")


def test_an_unwritable_log_raises_a_shadow_error(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where the log directory should be")
    with pytest.raises(shadow.ShadowError, match="cannot append to the shadow log"):
        shadow.append(tmp_path / "blocker" / "2025-03-01.jsonl", record("x", ["A"]))
    with pytest.raises(shadow.ShadowError, match="cannot be written as JSON"):
        shadow.append(tmp_path / "log.jsonl", {"task": object()})


def test_entry_refuses_contradictions() -> None:
    base: dict[str, Any] = {
        "at": "2025-03-01T10:00:00Z",
        "engine_version": "0.1.0",
        "catalog_fingerprint": "f",
        "config_digest": "d",
        "source": "cli",
        "session": None,
        "prompt_id": None,
        "cwd": None,
        "task": "t",
        "request": REQUEST,
        "text": "",
        "elapsed_us": 1,
    }
    with pytest.raises(shadow.ShadowError, match="mode 'loud'"):
        shadow.entry(**base, mode="loud", injected=False, document=document(["A"]))
    with pytest.raises(shadow.ShadowError, match="exactly one"):
        shadow.entry(**base, mode="live", injected=False, document=None)
    with pytest.raises(shadow.ShadowError, match="exactly one"):
        shadow.entry(**base, mode="live", injected=False, document=document([]), skip="envelope")
    with pytest.raises(shadow.ShadowError, match="cannot be injected"):
        shadow.entry(**base, mode="shadow", injected=True, document=document(["A"]))
    quiet = shadow.entry(**base, mode="shadow", injected=False, document=document([]))
    assert (quiet["status"], quiet["silence"]["reason"]) == ("no_match", "no_document_reached")


def test_tail_and_body() -> None:
    records = [record(str(n), ["A"]) for n in range(10)]
    assert [r["task"] for r in shadow.tail(records, 3)] == ["7", "8", "9"]
    assert shadow.tail(records[:2], 5) == records[:2] and shadow.tail(records, 0) == []
    # the handler logs filters flat; a nested `filters` member is flattened the same way
    assert shadow.body("t", {"kind": "decision", "budget": 3, "strategy": None}) == {
        "task": "t",
        "kind": "decision",
        "budget": 3,
    }
    request = {"filters": {**FILTERS, "kind": "decision"}, "budget": 3, "order": "turns"}
    assert shadow.body("t", {**request, "strategy": None, "paths": ["a.py"]}) == {
        "task": "t",
        "kind": "decision",
        "budget": 3,
        "order": "turns",
        "paths": ["a.py"],
    }


# -- review ----------------------------------------------------------------------------------


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
    with pytest.raises(shadow.ShadowError, match=r"version 2\.0") as caught:
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
        doc = engine.route({"task": task})
        request = {"filters": doc["filters"], "budget": 5, "order": "diverse", "paths": []}
        shadow.append(
            log,
            shadow.entry(
                at="2025-03-01T10:00:00Z",
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
        )

    def route(task: str, request: dict[str, Any]) -> dict[str, Any]:
        return engine.route(shadow.body(task, request))

    untouched = review.replay(shadow.read(log), route)
    assert untouched["summary"] == {"tasks": 2, "matched": 2, "mismatched": 0, "errored": 0}

    decision = repo / "docs" / "decisions" / "0008-exponential-backoff-with-jitter.md"
    before = "problem_spaces: [retry a failed delivery, thundering herd after an outage]"
    assert before in decision.read_text()
    decision.write_text(
        decision.read_text().replace(before, "problem_spaces: [choose a dashboard colour]")
    )
    engine.reload()

    report = review.replay(shadow.read(log), route)
    assert report["summary"] == {"tasks": 2, "matched": 1, "mismatched": 1, "errored": 0}
    changed = [t for t in report["tasks"] if not t["match"]]
    assert [t["task"] for t in changed] == [tasks[0]]
    fresh = [p["id"] for p in engine.route({"task": tasks[0]})["pointers"]]
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
    page = review.report_html(records, "Shadow <report> for demo")
    assert page == review.report_html(records, "Shadow <report> for demo")  # deterministic
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 3
    assert "<title>Shadow &lt;report&gt; for demo</title>" in page
    for version in ("0.1.0", "0.9.0", "0.10.0", "&lt;img src=x&gt;"):
        assert f"<td>{version}</td>" in page
    assert "<td>33.3%</td>" in page and "<td>1.33</td>" in page  # 0.1.0: silence, ptr/route
    assert "<script" not in page.lower() and "<img" not in page and "<b>X" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert re.findall(r"<[a-z][^>]*\s(?:src|href)\s*=", page, re.I) == []  # no link at all
    assert not re.search(r"""<(?:link|img|iframe|object|embed)\b""", page, re.I)
    assert "url(" not in page and "@import" not in page
    # latency histogram: log-spaced buckets from 100 us to 2000 us
    assert ">100µs</text>" in page and ">2ms</text>" in page


def test_latency_buckets_are_log_spaced() -> None:
    assert report.latency_buckets([]) == []
    assert report.latency_buckets([0, 3, 3, 40, 999, 1000, 1500]) == [
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
    for name in ("shadow.py", "report.py"):
        source = (REPO / "router" / name).read_text()
        for banned in ("print(", "import click", "os.environ", "time.time", "datetime.now"):
            assert banned not in source, (name, banned)
    assert os.path.isfile(FIXTURES / "shadow" / "README.md")
