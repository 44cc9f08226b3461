"""Which pointers agents followed: routes joined to reads, per engine and catalog version."""

from __future__ import annotations

from typing import Any

from router.logbook import follow, opened
from testing.records import record


def read(
    session: str | None,
    entry: str,
    offer: dict[str, Any] | None = None,
    *,
    at: str = "2025-03-01T11:00:00.000Z",
    version: str = "0.1.0",
    fingerprint: str = "f1",
) -> dict[str, Any]:
    """A read line as the daemon logs it (`opened.record`), checked as readers check it."""
    return opened.lifted(
        {
            "schema": opened.SCHEMA, "at": at, "engine_version": version,
            "catalog_fingerprint": fingerprint, "source": "claude/PostToolUse",
            "session": session, "tool": "Read", "id": entry, "path": f"docs/{entry}.md",
            "file": f"docs/{entry}.md", "kind": "decision", "offer": offer,
        }
    )  # fmt: skip


OFFER = {"at": "x", "engine_version": "0.1.0", "catalog_fingerprint": "f1", "rank": 1}
T = "2025-03-01T1{}:00:00.000Z".format  # hours 10..19


def sessions() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Two engine versions and two catalogs over three sessions, and the reads of two."""
    routes = [
        record("retry webhooks", ["A", "B"], session="s1", at=T(0)),
        record("retry again", ["B", "C"], session="s1", at=T(1)),  # B repeats: offered once
        record("rotate keys", ["A"], session="s2", at=T(2), version="0.2.0", fingerprint="f2"),
        record("haiku", [], session="s2", at=T(3), version="0.2.0", fingerprint="f2"),
        record("cli route", ["A"], session=None, at=T(4)),  # no session: not counted
        record("x", skip="envelope", session="s3", at=T(5)),
        record("tax rules", ["D"], session="s3", at=T(6), version="0.2.0", fingerprint="f2"),
    ]
    opens = [
        read("s1", "A", OFFER, at=T(1)),
        read("s1", "Z", at=T(1)),  # read without a pointer
        read("s1", "Z", at=T(2)),  # again: one per session
        read("s2", "Z", at=T(3), version="0.2.0", fingerprint="f2"),
        read("s2", "A", {**OFFER, "engine_version": "0.2.0"}, at=T(3), version="0.2.0"),
        read("s1", "C", at=T(0)),  # before its pointer: read on its own
    ]
    return routes, opens


def test_followed_pointers_per_engine_and_catalog_version() -> None:
    routes, opens = sessions()
    view = follow.summary(routes, opens)
    assert view["versions"] == ["0.1.0", "0.2.0"] and view["fingerprints"] == ["f1", "f2"]
    # s1 offered A, B, C under 0.1.0/f1 and followed A; s2 offered A, s3 offered D under 0.2.0
    assert view["by_version"]["0.1.0"] == {
        "offered": 3, "followed": 1, "followed_rate": 0.3333, "unpointed": 2
    }  # fmt: skip
    assert view["by_version"]["0.2.0"] == {
        "offered": 2, "followed": 1, "followed_rate": 0.5, "unpointed": 1
    }  # fmt: skip
    assert view["by_fingerprint"]["f2"]["offered"] == 2
    assert view["by_fingerprint"]["f2"]["unpointed"] == 1
    assert view["all"] == {"offered": 5, "followed": 2, "followed_rate": 0.4, "unpointed": 3}
    assert view["sessions"] == {"offered": 3, "read": 2}
    assert view["shadow"] == 0


def test_shadow_mode_offers_are_counted_apart() -> None:
    view = follow.summary([record("t", ["A"], session="s", mode="shadow")], [])
    assert view["shadow"] == 1 and view["all"]["followed_rate"] == 0
    assert "shadow mode, never shown" in follow.summary_text(view)


def test_misses_list_reads_without_a_pointer_and_pointers_never_followed() -> None:
    routes, opens = sessions()
    view = follow.misses(routes, opens)
    assert view["unpointed"] == [
        {"id": "Z", "path": "docs/Z.md", "kind": "decision", "sessions": 2,
         "tasks": ["retry again", "haiku"]},  # the prompt just before: a silent one in s2
        {"id": "C", "path": "docs/C.md", "kind": "decision", "sessions": 1,
         "tasks": ["retry webhooks"]},
    ]  # fmt: skip
    # A was followed (in s1 and s2); B, C and D never were
    assert view["unfollowed"] == [
        {"id": "B", "path": "docs/B.md", "sessions": 1, "first": 0},
        {"id": "C", "path": "docs/C.md", "sessions": 1, "first": 0},
        {"id": "D", "path": "docs/D.md", "sessions": 1, "first": 1},
    ]
    text = follow.misses_text(view)
    assert text.splitlines()[0] == (
        "read without a pointer: 2 documents (candidates for routing fields)"
    )
    assert "  Z  docs/Z.md  (decision), 2 sessions" in text
    assert "    after: haiku" in text
    assert "pointers never followed: 3 documents" in text
    assert "  D  docs/D.md  offered in 1 session (at the top in 1)" in text


def test_documents_count_offers_follows_and_reads_without_a_pointer() -> None:
    routes, opens = sessions()
    rows = {r["id"]: r for r in follow.documents(routes, opens)}
    assert rows["A"] == {
        "id": "A", "path": "docs/A.md", "offered": 3, "first": 3, "sessions": 2,
        "followed": 2, "unpointed": 0,
    }  # fmt: skip
    assert rows["B"]["offered"] == 2 and rows["B"]["sessions"] == 1 and rows["B"]["followed"] == 0
    assert rows["Z"] == {
        "id": "Z", "path": "docs/Z.md", "offered": 0, "first": 0, "sessions": 0,
        "followed": 0, "unpointed": 2,
    }  # fmt: skip
    assert next(r["id"] for r in follow.documents(routes, opens)) == "A"  # most offered first


def test_the_text_says_when_no_read_was_logged() -> None:
    routes, _ = sessions()
    text = follow.summary_text(follow.summary(routes, []))
    assert "no read was logged: install the hooks again" in text
    lines = text.splitlines()
    engine = lines.index(next(line for line in lines if line.startswith("engine")))
    assert lines[engine].split() == ["engine", "offered", "followed", "rate", "read", "unpointed"]
    assert lines[engine + 1].split() == ["0.1.0", "3", "0", "0.0%", "0"]


def test_hostile_strings_are_flattened_in_the_text() -> None:
    evil = "A\x1b[2J\u202e\nFAKE \u2014 line"
    routes = [record("t\x1b]0;x\x07", [evil], session="s")]
    opens = [read("s", "Q\x1b[2J", at=T(1))]
    for text in (
        follow.summary_text(follow.summary(routes, opens)),
        follow.misses_text(follow.misses(routes, opens)),
    ):
        assert "\x1b" not in text and "\u202e" not in text and "\u2014" not in text
        assert not any(line.startswith("FAKE") for line in text.splitlines())
