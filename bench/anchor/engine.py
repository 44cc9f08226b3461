"""The anchors of the bench (issue 15): tantivy and bm25s over the entries kroute indexed.

Run by the python of the anchors' own venv (`bench.py --anchors` makes it), never the
project's, with the checkout on PYTHONPATH: it imports only the standard library, tantivy
and bm25s.

    python -m bench.anchor.engine CORPUS QUERIES [--all] [--build-only ENGINES]

CORPUS holds JSON lines `{"id": ..., "text": ...}`, one per entry kroute indexed (the text
kroute ranks over, fields and body); QUERIES a JSON object `{set name: [task, ...]}`.

It builds a tantivy index in RAM (schema: a stored raw `id` and a `text` field with the
default tokenizer, BM25 as tantivy scores) and a bm25s index (its Tokenizer with English
stopwords, BM25 "lucene" as bm25s defaults), then prints one JSON line: the versions, the
build seconds of each (wall and CPU, every thread's), the documents and the process's peak
RSS. With --build-only ENGINES it builds only those and exits there.

Then, by default, it serves the bench: it reads lines `{"set": name, "at": i}` from stdin and
answers each with one JSON line `{"tantivy_s", "bm25s_s", "tantivy", "bm25s"}` (seconds,
and the ids of the top 5), so that the bench can route the same task to kroute between two
answers: the three engines are timed in the same slices of the machine. With --all it times
every query itself and prints the p50/p99 of each set as JSON.

A query is timed as a user of each library writes a free-text search: tantivy's from the
task's words (runs of letters and digits, lowercased so that no word reads as AND/OR/NOT and
no punctuation reaches the parser) through `parse_query` (whose words are OR'ed), bm25s's
through its Tokenizer; both searched for the top 5 and the hits' ids read out. The two run
in alternating order, query by query.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import re
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bm25s
import tantivy

TOP = 5
WRITER_HEAP = 256_000_000  # bytes tantivy's writer buffers before it writes a segment
WARM_UP = 3  # queries of each set run once before any is timed
WORD = re.compile(r"\w+")

Search = Callable[[str], list[str]]


def peak_rss_mib() -> float:
    """Return this process's peak resident set size in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    """Return the CPU seconds this process has used, every thread's (tantivy indexes on
    threads of its own)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def read_corpus(path: Path) -> tuple[list[str], list[str]]:
    """Return the ids and the texts of the corpus file, in the file's order."""
    ids, texts = [], []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            ids.append(row["id"])
            texts.append(row["text"])
    return ids, texts


def free_text(task: str) -> str:
    """Return a task as tantivy's query parser reads it safely: its words, lowercased."""
    return " ".join(WORD.findall(task.lower()))


def build_tantivy(ids: list[str], texts: list[str]) -> Search:
    """Return a search of the top TOP ids in a tantivy index of the texts, built in RAM."""
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("text", stored=False)
    index = tantivy.Index(builder.build())
    writer = index.writer(heap_size=WRITER_HEAP)
    for key, text in zip(ids, texts, strict=True):
        writer.add_document(tantivy.Document(id=key, text=text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()

    def search(task: str) -> list[str]:
        words = free_text(task)
        if not words:
            return []
        hits = searcher.search(index.parse_query(words, ["text"]), TOP).hits
        return [searcher.doc(address)["id"][0] for _, address in hits]

    return search


def build_bm25s(ids: list[str], texts: list[str]) -> Search:
    """Return a search of the top TOP ids (those scoring above 0) in a bm25s index."""
    tokenizer = bm25s.tokenization.Tokenizer(stopwords="en")
    retriever = bm25s.BM25()
    retriever.index(tokenizer.tokenize(texts, show_progress=False), show_progress=False)
    k = min(TOP, len(ids))

    def search(task: str) -> list[str]:
        query = tokenizer.tokenize([task], update_vocab=False, show_progress=False)
        found, scores = retriever.retrieve(query, k=k, show_progress=False, n_threads=1)
        return [ids[n] for n, score in zip(found[0], scores[0], strict=True) if score > 0]

    return search


def timed(search: Search, task: str) -> tuple[float, list[str]]:
    """Return the seconds one search took and the ids it found."""
    began = time.perf_counter()
    found = search(task)
    return time.perf_counter() - began, found


def both(engines: dict[str, Search], task: str, turn: int) -> dict[str, Any]:
    """Return `{name}_s` and `{name}` (ids) of each engine for one task, the engines run in
    an order that alternates with `turn`."""
    names = sorted(engines, reverse=turn % 2 == 1)
    out: dict[str, Any] = {}
    for name in names:
        out[f"{name}_s"], out[name] = timed(engines[name], task)
    return out


def percentile(values: list[float], q: float) -> float:
    """Return the `q` quantile of `values` (nearest rank, as `bench.probe` counts it)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def time_all(engines: dict[str, Search], queries: dict[str, list[str]]) -> dict[str, Any]:
    """Return, per query set and engine, the p50 and p99 in ms of every query, timed here."""
    out: dict[str, Any] = {}
    for name, tasks in queries.items():
        times: dict[str, list[float]] = {engine: [] for engine in engines}
        for turn, task in enumerate(tasks):
            answer = both(engines, task, turn)
            for engine in engines:
                times[engine].append(answer[f"{engine}_s"])
        out[name] = {
            f"{engine}_{label}_ms": percentile(values, q) * 1000
            for engine, values in times.items()
            for label, q in (("p50", 0.5), ("p99", 0.99))
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--all", action="store_true", help="Time every query here and exit.")
    parser.add_argument(
        "--build-only", metavar="ENGINES", help="Only build these (comma-separated) and exit."
    )
    args = parser.parse_args()
    ids, texts = read_corpus(args.corpus)
    queries: dict[str, list[str]] = json.loads(args.queries.read_text(encoding="utf-8"))
    engines: dict[str, Search] = {}
    build_s: dict[str, float] = {}
    build_cpu_s: dict[str, float] = {}
    for name, build in (("tantivy", build_tantivy), ("bm25s", build_bm25s)):
        if args.build_only and name not in args.build_only.split(","):
            continue
        began, cpu = time.perf_counter(), cpu_seconds()
        engines[name] = build(ids, texts)
        build_s[name] = time.perf_counter() - began
        build_cpu_s[name] = cpu_seconds() - cpu
    del texts
    for tasks in queries.values():
        for turn, task in enumerate(tasks[:WARM_UP]):
            both(engines, task, turn)
    ready = {
        "versions": {name: importlib.metadata.version(name) for name in engines},
        "python": sys.version.split()[0],
        "build_s": build_s,
        "build_cpu_s": build_cpu_s,
        "documents": len(ids),
        "rss_mib": peak_rss_mib(),
    }
    print(json.dumps(ready), flush=True)
    if args.build_only:
        return
    if args.all:
        print(json.dumps(time_all(engines, queries)), flush=True)
        return
    for turn, line in enumerate(sys.stdin):
        ask = json.loads(line)
        answer = both(engines, queries[ask["set"]][ask["at"]], turn)
        print(json.dumps(answer | {"rss_mib": peak_rss_mib()}), flush=True)


if __name__ == "__main__":
    main()
