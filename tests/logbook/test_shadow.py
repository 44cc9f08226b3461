"""The shadow-mode log (DESIGN 12): records, reads, upgrades, tail."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from router.base.errors import ShadowError
from router.catalog import config
from router.client import locate
from router.logbook import logfile, review, shadow
from router.runtime.engine import Engine
from testing.paths import DEMO, FIXTURES
from testing.records import FILTERS, REQUEST, document, read_all, record

# -- reading ---------------------------------------------------------------------------------


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
    logfile.append(path, record("five", ["E"]))
    records, skipped = read_all(path)
    assert [r["task"] for r in records] == ["one", "two", "three", "five"]
    assert [s.line for s in skipped] == [2, 3, 4, 7]


@pytest.mark.process
def test_valid_but_incomplete_lines_are_skipped_and_counted(tmp_path: Path, copy_tree: Any) -> None:
    repo = copy_tree(DEMO).resolve()
    directory = shadow.log_dir(
        Path(os.environ["KROUTE_HOME"]), locate.key(repo, repo / "kroute.toml")
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


def test_a_v1_line_is_upgraded_on_read_and_the_file_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "2024-11-04.jsonl"
    path.write_bytes((FIXTURES / "shadow" / "2024-11-04.jsonl").read_bytes())
    logfile.append(path, record("current", ["A"], version="0.2.0"))
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
    with pytest.raises(ShadowError, match="not a JSON object"):
        shadow.upgrade([1])


def test_since_filters_on_the_timestamp(tmp_path: Path) -> None:
    directory = tmp_path / "log"
    for at in ("2025-02-27T23:59:59Z", "2025-03-01T09:00:00Z", "2025-03-01T11:30:00Z"):
        logfile.append(directory / f"{shadow.day_of(at)}.jsonl", record(at, ["A"], at=at))
    assert [r["at"] for r in shadow.read(directory, since="2025-03-01")] == [
        "2025-03-01T09:00:00Z",
        "2025-03-01T11:30:00Z",
    ]
    assert [r["at"] for r in shadow.read(directory, since="2025-03-01T10")] == [
        "2025-03-01T11:30:00Z"
    ]
    assert len(list(shadow.read(directory, since="2025"))) == 3


def test_missing_logs_and_bad_days_raise(tmp_path: Path) -> None:
    with pytest.raises(ShadowError, match="no shadow log at"):
        shadow.read(tmp_path / "nothing.jsonl")
    with pytest.raises(ShadowError, match="YYYY-MM-DD"):
        shadow.log_path(tmp_path, "r", "../../etc")


AT = "2025-03-01T10:00:00Z"


def test_entry_refuses_contradictions() -> None:
    base: dict[str, Any] = {
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
    with pytest.raises(ShadowError, match="mode 'loud'"):
        shadow.record(
            shadow.Emitted(**base, mode="loud", injected=False, document=document(["A"])), AT
        )
    with pytest.raises(ShadowError, match="exactly one"):
        shadow.record(shadow.Emitted(**base, mode="live", injected=False, document=None), AT)
    with pytest.raises(ShadowError, match="exactly one"):
        shadow.record(
            shadow.Emitted(
                **base, mode="live", injected=False, document=document([]), skip="envelope"
            ),
            AT,
        )
    with pytest.raises(ShadowError, match="cannot be injected"):
        shadow.record(
            shadow.Emitted(**base, mode="shadow", injected=True, document=document(["A"])), AT
        )
    quiet = shadow.record(
        shadow.Emitted(**base, mode="shadow", injected=False, document=document([])), AT
    )
    assert (quiet["status"], quiet["silence"]["reason"]) == ("no_match", "no_document_reached")


def test_an_emitted_route_takes_its_engine_fields_from_the_engine() -> None:
    engine = Engine.load(config.load(DEMO / "kroute.toml"), version="9.9.9")
    emitted = shadow.Emitted.of(
        engine,
        source="claude/UserPromptSubmit",
        mode="live",
        injected=True,
        task="t",
        request=REQUEST,
        document=document(["A"]),
        text="x",
        elapsed_us=1,
        session="s",
        skip=None,
    )
    assert (emitted.engine_version, emitted.catalog_fingerprint, emitted.config_digest) == (
        "9.9.9",
        engine.catalog.fingerprint,
        engine.config.digest,
    )
    assert (emitted.source, emitted.session, emitted.prompt_id, emitted.text) == (
        "claude/UserPromptSubmit",
        "s",
        None,
        "x",
    )
    line = shadow.record(emitted, AT)
    assert (line["engine_version"], line["catalog_fingerprint"], line["config_digest"]) == (
        "9.9.9",
        engine.catalog.fingerprint,
        engine.config.digest,
    )


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
