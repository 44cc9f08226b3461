"""Anchors: the paths a task names and the entries governing them."""

from __future__ import annotations

import pytest

from router.catalog.entry import Entry
from router.core import deadline
from router.ranking.index import Index
from router.route import anchor


def doc(ident: str, *governs: str) -> Entry:
    path = f"docs/{ident}.md"
    return Entry(id=ident, kind="doc", path=path, file=path, summary=ident, governs=governs)


INDEX = Index(
    [doc("api", "src/api/**"), doc("payments", "src/api/payments.py"), doc("web", "web/")]
)


def test_each_named_path_anchors_the_entries_governing_it_in_task_order() -> None:
    words = "fix src/api/payments.py:12, then web/app.ts and the readme".split()
    anchors, entries, governed = anchor.named(INDEX, words, "/repo")
    assert anchors == ("src/api/payments.py", "web/app.ts")
    assert [e.id for e in entries] == ["api", "payments", "web"]
    assert governed == {
        "api": ["src/api/payments.py"],
        "payments": ["src/api/payments.py"],
        "web": ["web/app.ts"],
    }


def test_an_absolute_path_inside_the_root_is_read_relative_to_it() -> None:
    anchors, entries, _ = anchor.named(INDEX, ["/repo/src/api/payments.py"], "/repo")
    assert anchors == ("src/api/payments.py",) and len(entries) == 2
    assert anchor.relative("./web/x.ts", "/repo") == "web/x.ts"
    assert anchor.governing(INDEX, "/elsewhere/src/api/payments.py", "/repo") == []
    assert [e.id for e in anchor.governing(INDEX, "/repo/web/a.ts", "/repo")] == ["web"]


def test_words_that_cannot_be_paths_are_not_looked_up() -> None:
    asked = []

    def stop() -> bool:
        asked.append(1)
        return False

    anchor.named(INDEX, "look at src/a.py and src/b.py and the rest".split(), "/repo", stop)
    assert len(asked) == 2
    with pytest.raises(deadline.AbandonedError):
        anchor.named(INDEX, ["src/a.py"], "/repo", lambda: True)
