"""The documents agents opened: which file is a catalog document, each session's offers, the
reads' lines, and the service logging them (in process, over real files)."""

from __future__ import annotations

import datetime
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from router.catalog import config
from router.logbook import logfile, opened, recorder, shadow
from router.runtime.engine import Engine
from router.serve import service
from testing.paths import DEMO, FIXTURES
from testing.records import record

PAYLOADS = FIXTURES / "hook_payloads"
SESSION = "7f3c2a1e-5b0d-4c8e-9a61-2d4f8e0b1c33"
OFFERED = "docs/how-to/rotate-webhook-signing-key.md"
UNPOINTED = "docs/decisions/0001-postgres-event-store.md"


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO).resolve()


def engine_of(repo: Path) -> Engine:
    return Engine.load(config.load(repo / "kroute.toml"))


def payload(name: str, repo: Path) -> bytes:
    return (PAYLOADS / name).read_bytes().replace(b"REPO", str(repo).encode())


def reads(rec: recorder.Recorder) -> list[dict[str, Any]]:
    return list(opened.read(shadow.log_dir(rec.state, rec.repo_id)))


# -- which file is a document ----------------------------------------------------------------


def test_a_document_is_an_entry_s_own_file_however_the_path_is_written(repo: Path) -> None:
    engine = engine_of(repo)
    index, root = engine.index, engine.config.root
    absolute = opened.document_of(index, root, str(repo / OFFERED))
    assert absolute is not None and absolute.file == OFFERED
    assert absolute.entry.path == OFFERED and absolute.entry.kind == "how_to"
    assert opened.document_of(index, root, OFFERED) == absolute
    assert (
        opened.document_of(
            index, root, "how-to/x/../rotate-webhook-signing-key.md", str(repo / "docs")
        )
        == absolute
    )
    assert (
        opened.document_of(index, root, "rotate-webhook-signing-key.md", str(repo / "docs/how-to"))
        == absolute
    )
    skill = opened.document_of(index, root, ".claude/skills/debug-webhook-delivery/SKILL.md")
    assert skill is not None and skill.entry.kind == "skill"


@pytest.mark.parametrize(
    "path",
    [
        "src/billing/invoice.py",  # a source file
        "README.md",  # outside every catalog root
        "docs/techniques.catalog.json",  # a catalog file of many entries: no one document
        ".claude/skills/skill-rules.json",
        "docs/how-to/missing.md",
        "/etc/passwd",
        "../outside.md",
    ],
)
def test_other_files_are_no_document(repo: Path, path: str) -> None:
    engine = engine_of(repo)
    assert opened.document_of(engine.index, engine.config.root, path) is None


def test_a_page_of_a_skill_folder_is_that_skill(repo: Path) -> None:
    folder = repo / ".claude" / "skills" / "debug-webhook-delivery"
    (folder / "references").mkdir()
    (folder / "references" / "status-codes.md").write_text("# Status codes\n\n## 410\n\nGone.\n")
    (folder / "notes.txt").write_text("not a page")
    engine = engine_of(repo)
    found = opened.document_of(
        engine.index, engine.config.root, str(folder / "references" / "status-codes.md")
    )
    assert found is not None and found.entry.path.endswith("debug-webhook-delivery/SKILL.md")
    assert found.file == ".claude/skills/debug-webhook-delivery/references/status-codes.md"
    assert opened.document_of(engine.index, engine.config.root, str(folder / "notes.txt")) is None


# -- lines -------------------------------------------------------------------------------------


def test_lines_that_are_not_reads_are_skipped_and_counted(tmp_path: Path) -> None:
    directory = tmp_path / "shadow" / "repo"
    assert list(opened.read(directory)) == []  # nothing logged yet
    good = {
        "schema": opened.SCHEMA, "at": "2026-01-02T00:00:00.000Z", "engine_version": "1",
        "catalog_fingerprint": "f", "source": "claude/PostToolUse", "session": "s", "tool": "Read",
        "id": "a", "path": "docs/a.md", "file": "docs/a.md", "kind": "how_to", "offer": None,
    }  # fmt: skip
    bad_offer = {**good, "offer": {"rank": "first"}}
    lines = [good, {**good, "schema": "kroute.shadow/2"}, {**good, "id": 3}, bad_offer, [1]]
    (directory / opened.SUBDIR).mkdir(parents=True)
    (directory / opened.SUBDIR / "2026-01-02.jsonl").write_bytes(
        b"".join(orjson.dumps(line) + b"\n" for line in lines) + b'{"torn'
    )
    reading = opened.read(directory)
    assert list(reading) == [good]
    assert [s.line for s in reading.skipped] == [2, 3, 4, 5, 6]
    assert list(opened.read(directory, since="2026-01-03")) == []


def test_a_session_s_routes_are_read_back_from_its_days_only(tmp_path: Path) -> None:
    directory = tmp_path / "shadow" / "repo"
    for day, lines in {
        "2026-01-01": [record("old", ["X"], session="s")],
        "2026-01-02": [record("a", ["A"], session="s"), record("b", ["B"], session="t")],
        "2026-01-03": [record("c", ["C"], session="s")],
    }.items():
        for line in lines:
            logfile.append(shadow.log_path(tmp_path, "repo", day), line)
    found = opened.session_routes(directory, "s", ["2026-01-03", "2026-01-02"])
    assert [r["task"] for r in found] == ["a", "c"]
    assert list(opened.session_routes(directory, "s", ["2025-12-31"])) == []


# -- each session's offers -----------------------------------------------------------------


def offer(at: str, version: str = "1.0") -> opened.Offer:
    return opened.Offer(at, version, "f", 0, "live", "claude/UserPromptSubmit")


def test_a_session_keeps_the_first_offer_of_each_document() -> None:
    offers = opened.Offers()
    offers.note("s", offer("t1"), ["A", "B"])
    offers.note("s", offer("t2", "2.0"), ["B", "C"])
    first = offers.find("s", "B", list)
    assert first is not None and (first.at, first.rank, first.engine_version) == ("t1", 2, "1.0")
    third = offers.find("s", "C", list)
    assert third is not None and (third.at, third.rank) == ("t2", 2)
    assert offers.find("s", "Z", list) is None
    assert offers.find("other", "A", list) is None  # sessions are apart


def test_a_session_not_seen_is_read_back_once_and_the_log_comes_first() -> None:
    offers = opened.Offers()
    offers.note("s", offer("late"), ["A", "N"])  # noted by this process after a restart
    asked: list[int] = []

    def logged() -> list[dict[str, Any]]:
        asked.append(1)
        return [record("t", ["Q", "A"], session="s", at="2026-01-01T00:00:00.000Z")]

    found = offers.find("s", "A", logged)
    assert found is not None and found.at == "2026-01-01T00:00:00.000Z" and found.rank == 2
    assert found.source == "claude/UserPromptSubmit" and found.mode == "live"
    noted = offers.find("s", "N", logged)
    assert noted is not None and noted.at == "late"  # known only here: kept
    assert asked == [1]


def test_reads_are_logged_once_before_an_offer_and_once_after() -> None:
    offers = opened.Offers()
    assert offers.first_read("s", "A", False) and not offers.first_read("s", "A", False)
    assert offers.first_read("s", "A", True) and not offers.first_read("s", "A", True)
    assert offers.first_read("t", "A", False)


def test_sessions_are_bounded_and_thread_safe() -> None:
    offers = opened.Offers(limit=4)

    def note(n: int) -> None:
        for i in range(200):
            offers.note(f"s{(n * 200 + i) % 9}", offer(str(i)), ["A"])

    threads = [threading.Thread(target=note, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(offers) == 4


# -- the service ----------------------------------------------------------------------------


def test_the_service_logs_reads_of_documents_joined_to_the_offer(repo: Path) -> None:
    engine = engine_of(repo)
    rec = recorder.for_engine(engine, os.environ)
    app = service.App(engine, rec)
    prompt = app.answer(
        "POST", "/v1/hook/claude/UserPromptSubmit", payload("user_prompt_submit.json", repo)
    )
    assert OFFERED in prompt.document
    for name in (
        "post_tool_use_read.json",
        "post_tool_use_read_unpointed.json",
        "post_tool_use_read_source.json",  # no document: not logged
        "post_tool_use_read.json",  # read again: logged once
    ):
        answer = app.answer("POST", "/v1/hook/claude/PostToolUse", payload(name, repo))
        assert (answer.status, answer.document) == (200, "")  # prints nothing
    logged = reads(rec)
    assert [(r["path"], r["session"], r["source"], r["tool"]) for r in logged] == [
        (OFFERED, SESSION, "claude/PostToolUse", "Read"),
        (UNPOINTED, SESSION, "claude/PostToolUse", "Read"),
    ]
    followed, unpointed = logged
    assert (
        followed["offer"]["rank"] == 1 and followed["offer"]["source"] == "claude/UserPromptSubmit"
    )
    assert followed["offer"]["engine_version"] == engine.version
    assert followed["offer"]["catalog_fingerprint"] == engine.catalog.fingerprint
    assert unpointed["offer"] is None
    # a read is no route: the route log holds the prompt's line only
    assert [r["source"] for r in shadow.read(shadow.log_dir(rec.state, rec.repo_id))] == [
        "claude/UserPromptSubmit"
    ]
    # no word of the prompt is in the reads
    raw = b"".join(p.read_bytes() for p in opened.log_dir(rec.state, rec.repo_id).iterdir())
    assert not [w for w in (b"leaked", b"screenshot", b"today") if w in raw]


def test_a_process_that_did_not_answer_the_route_joins_the_read_through_the_log(repo: Path) -> None:
    engine = engine_of(repo)
    rec = recorder.for_engine(engine, os.environ)
    service.App(engine, rec).answer(
        "POST", "/v1/hook/claude/UserPromptSubmit", payload("user_prompt_submit.json", repo)
    )
    restarted = service.App(engine_of(repo), rec)  # a new daemon, or the in-process fallback
    restarted.answer(
        "POST", "/v1/hook/claude/PostToolUse", payload("post_tool_use_read.json", repo)
    )
    (line,) = reads(rec)
    assert line["offer"] is not None and line["offer"]["rank"] == 1


def test_codex_and_gemini_reads(repo: Path) -> None:
    engine = engine_of(repo)
    rec = recorder.for_engine(engine, os.environ)
    app = service.App(engine, rec)
    codex = "/v1/hook/codex/"
    app.answer("POST", codex + "UserPromptSubmit", payload("codex_user_prompt_submit.json", repo))
    answer = app.answer(
        "POST", codex + "PostToolUse", payload("codex_post_tool_use_bash_read.json", repo)
    )
    assert (answer.status, answer.document) == (200, "")
    gemini = "/v1/hook/gemini/"
    app.answer("POST", gemini + "BeforeAgent", payload("gemini_before_agent.json", repo))
    read = app.answer(
        "POST", gemini + "AfterTool", payload("gemini_after_tool_read_file.json", repo)
    )
    assert read.status == 200
    # AfterTool still routes: the documents governing a file written come with its result
    edit = app.answer(
        "POST", gemini + "AfterTool", payload("gemini_after_tool_write_file.json", repo)
    )
    assert "additionalContext" in edit.document
    by_source = {(r["source"], r["path"]): r["offer"] is not None for r in reads(rec)}
    assert by_source == {
        ("codex/PostToolUse", OFFERED): True,
        ("codex/PostToolUse", UNPOINTED): False,
        ("gemini/AfterTool", OFFERED): True,
    }


def test_reads_follow_the_mode_and_off_logs_nothing(repo: Path) -> None:
    engine = engine_of(repo)
    rec = recorder.for_engine(engine, os.environ)
    app = service.App(engine, rec)
    read = payload("post_tool_use_read.json", repo)
    app.answer("POST", "/v1/hook/claude/PostToolUse?mode=off", read)
    assert reads(rec) == []
    app.answer("POST", "/v1/hook/claude/PostToolUse?mode=shadow", read)
    assert len(reads(rec)) == 1


@pytest.mark.parametrize(
    "body", [b"", b"not json", b"[1]", b'{"tool_name": "Read", "tool_input": {"file_path": 7}}']
)
def test_a_payload_that_names_no_read_prints_and_logs_nothing(repo: Path, body: bytes) -> None:
    engine = engine_of(repo)
    rec = recorder.for_engine(engine, os.environ)
    answer = service.App(engine, rec).answer("POST", "/v1/hook/claude/PostToolUse", body)
    assert (answer.status, answer.document) == (200, "")
    assert reads(rec) == [] and not shadow.log_dir(rec.state, rec.repo_id).exists()


def test_reads_are_private_and_a_log_that_cannot_be_written_breaks_nothing(
    repo: Path, tmp_path: Path
) -> None:
    engine = engine_of(repo)
    day = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    rec = recorder.Recorder(tmp_path / "state", "abc", now=lambda: day)
    app = service.App(engine, rec)
    app.answer("POST", "/v1/hook/claude/PostToolUse", payload("post_tool_use_read.json", repo))
    path = opened.log_path(rec.state, "abc", "2026-03-01")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for directory in (path.parent, path.parent.parent, rec.state / "shadow", rec.state):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
    path.unlink()
    path.symlink_to(tmp_path / "elsewhere")  # refused, counted, never raised
    answer = app.answer(
        "POST", "/v1/hook/claude/PostToolUse", payload("post_tool_use_read_unpointed.json", repo)
    )
    assert (answer.status, answer.document) == (200, "")
    assert rec.losses.unwritten == 1 and "symbolic link" in (rec.losses.last or "")
    assert not (tmp_path / "elsewhere").exists()
