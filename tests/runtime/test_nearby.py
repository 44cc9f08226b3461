"""Neighbours by meaning for a catalog: what a pointer says the model read, and a model
loaded once however often the daemon builds again."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.catalog.entry import Entry, Section
from router.runtime import nearby
from testing.entries import doc


def entry(ident: str, summary: str, body: tuple[Section, ...] = ()) -> Entry:
    return doc(ident, title=ident, summary=summary, body=body)


ENTRIES = [
    entry("billing", "How invoices are computed from metered usage and plan prices"),
    entry("retries", "Retry a failed webhook delivery with exponential backoff"),
    entry("adr-7", "", (Section("Context", "We store money as integer cents in every table."),)),
]


def test_a_pointer_names_what_the_model_read() -> None:
    assert nearby.near_of(ENTRIES[0]) == "title and summary"
    assert nearby.near_of(ENTRIES[2]) == "title, summary and opening"


def test_the_model_is_loaded_once_across_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnxruntime", reason="the meaning extra is not installed")
    from router.meaning import model

    loads = []
    real = model.load

    def counted(
        name: str | None = None, threads: int = 1, workdir: Path | None = None
    ) -> model.Embedder:
        loads.append(name)
        return real(name, threads, workdir)

    monkeypatch.setattr(model, "load", counted)
    kept: dict[str | None, object] = {}
    first = nearby.build(ENTRIES, None, tmp_path, "one", models=kept)
    again = nearby.build(ENTRIES[:2], None, tmp_path, "one", models=kept)
    assert loads == [None]
    found = first("the customer's invoice looks wrong", 2)
    assert found.nearest[0].id == "billing" and found.nearest[0].near == "title and summary"
    assert len(found.nearest) == 2
    # every entry has its similarity, the nearest ones as they are listed
    assert found.similarity("billing") == found.nearest[0].similarity
    assert found.similarity("adr-7") <= found.nearest[1].similarity
    assert {n.id for n in again("money in cents", 3).nearest} == {"billing", "retries"}


def test_each_catalog_keeps_its_own_vectors(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime", reason="the meaning extra is not installed")
    from router.meaning import model, store

    kept: dict[str | None, object] = {}
    nearby.build(ENTRIES[:1], None, tmp_path, "one", models=kept)
    nearby.build(ENTRIES[1:], None, tmp_path, "two", models=kept)
    embedder = kept[None]
    assert isinstance(embedder, model.Embedder)
    one = store.Vectors.open(tmp_path / nearby.CATALOGS / "one", embedder.model_id)
    two = store.Vectors.open(tmp_path / nearby.CATALOGS / "two", embedder.model_id)
    # the second catalog's vectors did not push the first one's out
    assert (len(one), len(two)) == (1, 2)


def test_meaning_says_nothing_of_a_task_whose_vector_cannot_be_had() -> None:
    import numpy as np

    from router.meaning.space import Space

    found = Space(["a", "b"], np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32))
    near = {"a": "title and summary", "b": "title and summary"}
    vectors = {"on a": np.array([0.8, 0.6], dtype=np.float32)}
    nearness = nearby.over(found, near, vectors.get)
    assert nearness("late", 2) is None  # the route is the words' alone
    said = nearness("on a", 2)
    assert said is not None and [n.id for n in said.nearest] == ["a", "b"]
    assert said.similarity("b") == pytest.approx(0.6)
    assert said.similarity("added-since") == 0.0  # no vector yet: the next vectors have it
