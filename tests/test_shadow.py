"""The shadow-mode log (DESIGN 12): appends, reads, upgrades, tail."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from router.base import paths
from router.logbook import review, shadow

from conftest import DEMO, FIXTURES, REPO
from records import FILTERS, REQUEST, document, read_all, record

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
from router.logbook import shadow
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


def test_valid_but_incomplete_lines_are_skipped_and_counted(tmp_path: Path, copy_tree: Any) -> None:
    repo = copy_tree(DEMO).resolve()
    directory = shadow.log_dir(
        Path(os.environ["KROUTE_HOME"]), paths.key(repo, repo / "kroute.toml")
    )
    directory.mkdir(parents=True)
    path = directory / "2025-03-02.jsonl"
    bad_elapsed = {**record("two", ["B"]), "elapsed_us": "a"}
    bad_pointers = {**record("three", ["C"]), "pointers": ["x"]}
    lines = [
        orjson.dumps(record("one", ["A"])),
        b'{"schema":"kroute.shadow/2"}',
        orjson.dumps(bad_elapsed),
        orjson.dumps(bad_pointers),
        orjson.dumps({**record("four", ["D"]), "injected": 1}),
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    records, skipped = read_all(path)
    assert [r["task"] for r in records] == ["one"]
    assert [(s.line, s.reason) for s in skipped] == [
        (2, "no `at` member"),
        (3, "`elapsed_us` is not of its type"),
        (4, "`pointers` holds something other than objects"),
        (5, "`injected` is not of its type"),
    ]
    # the commands that read the log report the skipped lines and do not crash
    for command in (["tail"], ["stats"], ["report", "--html", str(tmp_path / "r.html")]):
        done = subprocess.run(
            [sys.executable, "-m", "router", "shadow", *command],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, (command, done.stderr)
        assert "Traceback" not in done.stderr and "4 unreadable line(s) skipped" in done.stderr


def test_a_full_day_drops_lines_and_stats_says_so(tmp_path: Path, copy_tree: Any) -> None:
    repo = copy_tree(DEMO).resolve()
    directory = shadow.log_dir(
        Path(os.environ["KROUTE_HOME"]), paths.key(repo, repo / "kroute.toml")
    )
    path = directory / "2025-03-03.jsonl"
    line = len(orjson.dumps(record("one", ["A"]), option=orjson.OPT_SORT_KEYS)) + 1
    written = [shadow.append(path, record(t, ["A"]), limit=2 * line) for t in ("a", "b", "c", "d")]
    assert written == [True, True, False, False]
    assert path.stat().st_size <= 2 * line
    assert shadow.dropped(directory) == {"2025-03-03": 2}
    done = subprocess.run(
        [sys.executable, "-m", "router", "shadow", "stats"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "dropped 2 line(s) on 2025-03-03" in done.stdout


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
        shadow.record(**base, mode="loud", injected=False, document=document(["A"]))
    with pytest.raises(shadow.ShadowError, match="exactly one"):
        shadow.record(**base, mode="live", injected=False, document=None)
    with pytest.raises(shadow.ShadowError, match="exactly one"):
        shadow.record(**base, mode="live", injected=False, document=document([]), skip="envelope")
    with pytest.raises(shadow.ShadowError, match="cannot be injected"):
        shadow.record(**base, mode="shadow", injected=True, document=document(["A"]))
    quiet = shadow.record(**base, mode="shadow", injected=False, document=document([]))
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
