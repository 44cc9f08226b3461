"""Writing the shadow log's day files (DESIGN 12): whole lines under a lock, private
files, the day's cap, and the errors of an unwritable log."""

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

from router.base.errors import ShadowError, StateError
from router.client import locate
from router.logbook import logfile, shadow
from testing.paths import DEMO, REPO
from testing.process import kroute
from testing.records import read_all, record


def test_append_and_read_round_trip(tmp_path: Path) -> None:
    path = shadow.log_path(tmp_path / "state", "abc123", "2025-03-01")
    assert path == tmp_path / "state" / "shadow" / "abc123" / "2025-03-01.jsonl"
    first, second = record("retry a webhook", ["A", "B"]), record("hello", skip="envelope")
    logfile.append(path, first)
    logfile.append(path, second)

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
    logfile.append(path.with_name("2025-02-28.jsonl"), record("earlier", ["C"]))
    records, _ = read_all(shadow.log_dir(tmp_path / "state", "abc123"))
    assert [r["task"] for r in records] == ["earlier", "retry a webhook", "hello"]


WRITER = """
import sys, time
from pathlib import Path
from router.logbook import logfile
path, worker, go = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
deadline = time.monotonic() + 60
while not go.exists() and time.monotonic() < deadline:
    time.sleep(0.001)
for seq in range(200):
    size = 2048 + (worker * 997 + seq * 131) % 6144
    text = chr(ord("a") + worker) * size
    logfile.append(path, {"worker": worker, "seq": seq, "size": size, "text": text})
"""


@pytest.mark.process
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


@pytest.mark.process
def test_a_full_day_drops_lines_and_stats_says_so(tmp_path: Path, copy_tree: Any) -> None:
    repo = copy_tree(DEMO).resolve()
    directory = shadow.log_dir(
        Path(os.environ["KROUTE_HOME"]), locate.key(repo, repo / "kroute.toml")
    )
    path = directory / "2025-03-03.jsonl"
    line = len(orjson.dumps(record("one", ["A"]), option=orjson.OPT_SORT_KEYS)) + 1
    written = [logfile.append(path, record(t, ["A"]), limit=2 * line) for t in ("a", "b", "c", "d")]
    assert written == [True, True, False, False]
    assert path.stat().st_size <= 2 * line
    assert logfile.dropped(directory) == {"2025-03-03": 2}
    done = kroute("shadow", "stats", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "dropped 2 line(s) on 2025-03-03" in done.stdout


def test_an_unwritable_log_raises_a_shadow_error(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where the log directory should be")
    with pytest.raises(StateError, match="not a directory"):
        logfile.append(tmp_path / "blocker" / "2025-03-01.jsonl", record("x", ["A"]))
    (tmp_path / "day.jsonl").mkdir()  # a directory where the day's file should be
    with pytest.raises(ShadowError, match="cannot append to the shadow log"):
        logfile.append(tmp_path / "day.jsonl", record("x", ["A"]))
    with pytest.raises(ShadowError, match="cannot be written as JSON"):
        logfile.append(tmp_path / "log.jsonl", {"task": object()})
