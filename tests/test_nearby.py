"""Neighbours by meaning for a catalog: what a pointer says the model read, and a model
loaded once however often the daemon builds again."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.core.entry import Entry, Section
from router.runtime import nearby


def entry(ident: str, summary: str, body: tuple[Section, ...] = ()) -> Entry:
    return Entry(
        id=ident,
        kind="doc",
        path=f"{ident}.md",
        file=f"{ident}.md",
        title=ident,
        summary=summary,
        body=body,
    )


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
    first = nearby.build(ENTRIES, None, tmp_path, models=kept)
    again = nearby.build(ENTRIES[:2], None, tmp_path, models=kept)
    assert loads == [None]
    found = first("the customer's invoice looks wrong", 2)
    assert found[0].id == "billing" and found[0].near == "title and summary"
    assert {n.id for n in again("money in cents", 3)} == {"billing", "retries"}
