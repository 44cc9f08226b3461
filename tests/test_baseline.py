"""The plain BM25 baseline (router.core.baseline) that judged sets report beside the router."""

from __future__ import annotations

from router.core.baseline import Bm25
from router.core.entry import Entry, Section


def doc(ident: str, **fields: object) -> Entry:
    return Entry(id=ident, kind="doc", path=f"docs/{ident}.md", file=f"docs/{ident}.md", **fields)  # type: ignore[arg-type]


def test_bm25_reads_titles_summaries_and_bodies_as_one_bag() -> None:
    entries = [
        doc("body", body=(Section("Decision", "rotate the database password monthly"),)),
        doc("title", title="Database password"),
        doc("other", summary="unrelated"),
    ]
    ranked = [e.id for e in Bm25(entries).rank("database password rotate")]
    assert ranked == ["body", "title"]  # a bag of words: more terms in common wins


def test_bm25_has_no_stemming_no_function_words_and_no_silence_beyond_no_overlap() -> None:
    entries = [doc("a", summary="why we retry"), doc("b", summary="retries")]
    assert [e.id for e in Bm25(entries).rank("why")] == ["a"]
    assert [e.id for e in Bm25(entries).rank("retries")] == ["b"]
    assert Bm25(entries).rank("kubernetes") == []
