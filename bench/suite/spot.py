"""Spot timings printed after every run: the intent classifier, symbol extraction on the
inputs that once took seconds, and the hostile fixture catalog's load."""

from __future__ import annotations

import itertools
import json
import math
import time

from bench.paths import REPOSITORY
from router.catalog import config
from router.runtime.engine import Engine

LABELLED = REPOSITORY / "fixtures" / "intent" / "labelled.jsonl"
HOSTILE = REPOSITORY / "fixtures" / "hostile"


def bench_intent(count: int = 10_000) -> str:
    """Return how long classifying `count` queries (the labelled set, cycled) takes in
    process, best of three."""
    from router.filters import intent

    texts = [json.loads(line)["text"] for line in LABELLED.read_text().splitlines() if line]
    work = list(itertools.islice(itertools.cycle(texts), count))
    best = math.inf
    for _ in range(3):
        began = time.perf_counter()
        for text in work:
            intent.classify(text)
        best = min(best, time.perf_counter() - began)
    each = best / count * 1e6
    return (
        f"intent: classifying {count:,} queries in process took {best:.3f} s ({each:.0f} us each)"
    )


def bench_symbols() -> str:
    """Return how long symbol extraction takes on the inputs that once took seconds (a
    4 MB Rust file, 200k lines of `import {`), best of five each."""
    from router.filters import symbols

    rust = REPOSITORY / "fixtures" / "relevance" / "realcode" / "files" / "axum_extension.rs"
    text = rust.read_text(encoding="utf-8")
    inputs = {
        "4 MB Rust file": ((text * (4_000_000 // len(text) + 1))[:4_000_000], "big.rs"),
        "200k lines of `import {`": ("import {\n" * 200_000, "a.ts"),
    }
    parts = []
    for label, (content, path) in inputs.items():
        best = math.inf
        for _ in range(5):
            began = time.perf_counter()
            symbols.classify(content, path)
            best = min(best, time.perf_counter() - began)
        parts.append(f"{label} {best * 1000:.1f} ms")
    return "symbol extraction (best of 5, target under 50 ms each): " + ", ".join(parts)


def bench_hostile() -> str:
    """Return how long loading the hostile fixture catalog takes (an alias bomb, a recursive
    alias, globs that cannot compile, a list nested a thousand deep, an entry past the
    limits), best of five: each is refused or cut as it is read, never expanded. The tests
    hold it to a hang deadline; how fast is this figure's business."""
    cfg = config.load(HOSTILE / "kroute.toml")
    best = math.inf
    for _ in range(5):
        began = time.perf_counter()
        loaded = Engine.load(cfg)
        best = min(best, time.perf_counter() - began)
    return (
        f"hostile fixture catalog ({len(loaded.catalog.files)} files, best of 5, target under "
        f"500 ms): {best * 1000:.1f} ms"
    )


# -- churn: updates while requests keep coming (issue 31) ----------------------------------------
