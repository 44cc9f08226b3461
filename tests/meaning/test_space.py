"""router.meaning.space and passage: the text embedded for an entry; the nearest entries,
best first, ties in id order; a space built from the cache embeds only new passages."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from router.catalog.entry import Entry, Section
from router.meaning import passage
from router.meaning.space import Space
from router.meaning.store import Vectors
from testing.entries import doc


def entry(id: str, title: str = "", summary: str = "", body: str = "") -> Entry:
    sections = (Section("", body),) if body else ()
    return doc(id, title=title, summary=summary, body=sections)


def test_a_passage_is_title_summary_and_the_body_opening() -> None:
    long = " ".join(f"w{i}" for i in range(500))
    item = Entry(
        id="adr-1",
        kind="adr",
        path="a.md",
        file="a.md",
        title="Use Postgres",
        summary="For the event store",
        body=(Section("", "Context first."), Section("Decision", long)),
    )
    text = passage.of(item)
    assert text.startswith("Use Postgres. For the event store Context first. w0 w1")
    assert len(text.split()) == 6 + passage.BODY_WORDS  # the head, then 200 body words
    assert text.split()[-1] == f"w{passage.BODY_WORDS - 3}"


def test_a_passage_falls_back_to_what_there_is() -> None:
    assert passage.of(entry("x", title="Only a title")) == "Only a title"
    assert passage.of(entry("x", summary="Only a summary")) == "Only a summary"
    assert passage.of(entry("bare-id")) == "bare-id"
    assert passage.of(entry("x", body="just  a\nbody")) == "x just a body"


def unit(*values: float) -> NDArray[np.float32]:
    row = np.array(values, dtype=np.float32)
    return row / np.linalg.norm(row)


def test_nearest_is_best_first() -> None:
    space = Space(["a", "b", "c"], np.stack([unit(1, 0), unit(0, 1), unit(1, 1)]))
    found = space.nearest(unit(1, 0.1), 3)
    assert [i for i, _ in found] == ["a", "c", "b"]
    assert found[0][1] == pytest.approx(float(unit(1, 0) @ unit(1, 0.1)))
    assert space.nearest(unit(1, 0.1), 1) == found[:1]
    assert space.nearest(unit(1, 0.1), 10) == found
    assert space.nearest(unit(1, 0.1), 0) == []
    assert Space([], np.zeros((0, 2), dtype=np.float32)).nearest(unit(1, 0), 3) == []


def test_ties_go_in_id_order_even_across_the_cut() -> None:
    ids = ["e", "b", "d", "a", "c", "z"]
    rows = [unit(1, 0)] * 5 + [unit(0, 1)]
    space = Space(ids, np.stack(rows))
    assert [i for i, _ in space.nearest(unit(1, 0), 2)] == ["a", "b"]
    assert [i for i, _ in space.nearest(unit(1, 0), 5)] == ["a", "b", "c", "d", "e"]
    assert [i for i, _ in space.nearest(unit(0, 1), 2)] == ["z", "a"]


def test_ids_and_rows_must_pair_up() -> None:
    with pytest.raises(ValueError, match="2 ids for 1 vectors"):
        Space(["a", "b"], np.zeros((1, 2), dtype=np.float32))


class Letters:
    """A stand-in Embedder: a text's vector counts its a, b and c (plus one)."""

    dimensions = 3

    def __init__(self) -> None:
        self.asked: list[str] = []

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.asked.extend(texts)
        rows = [[t.count("a") + 1, t.count("b"), t.count("c")] for t in texts]
        matrix = np.array(rows, dtype=np.float32).reshape(len(texts), 3)
        normed: NDArray[np.float32] = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        return normed


def test_build_embeds_passages_and_reuses_the_cache(tmp_path: Path) -> None:
    entries = [entry("one", title="bbbb"), entry("two", title="cccc"), entry("three", title="aaaa")]
    fake = Letters()
    vectors = Vectors.open(tmp_path, "letters@1")
    space = Space.build(entries, fake, vectors)
    vectors.save()
    assert space.ids == ("one", "two", "three")
    assert sorted(fake.asked) == sorted(passage.of(e) for e in entries)
    assert [i for i, _ in space.query("bb", fake, 2)] == ["one", "three"]
    again = Letters()
    edited = [*entries[:2], entry("three", title="aaaa", summary="and now c")]
    Space.build(edited, again, Vectors.open(tmp_path, "letters@1"))
    assert again.asked == [passage.of(edited[2])]


def test_the_packaged_model_finds_the_entry_a_task_means(tmp_path: Path) -> None:
    for name in ("onnxruntime", "tokenizers"):
        pytest.importorskip(name, reason=f"the meaning extra is not installed ({name})")
    from router.meaning import model

    entries = [
        entry("db-migrations", "Database migrations", "How to add and roll back a schema change"),
        entry("release", "Cutting a release", "Version bumps, changelog and tagging"),
        entry("auth", "Login and sessions", "How authentication tokens are issued and checked"),
    ]
    embedder = model.load()
    space = Space.build(entries, embedder, Vectors.open(tmp_path, embedder.model_id))
    assert space.query("add a column to the users table", embedder, 1)[0][0] == "db-migrations"
    assert space.query("users get logged out randomly", embedder, 1)[0][0] == "auth"
