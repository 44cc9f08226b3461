"""A plain BM25 ranking over the same entry fields the router scores, as a reference point
for `kroute eval --judged` (DESIGN 13). Not part of the router: it reads every field as one
bag of words, with no tiers, no gate and no silence beyond "no term in common".

    python scripts/bm25_reference.py --judged FILE --catalog DIR [--config FILE] [--budget 5]
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from pathlib import Path

from router import catalog, config, evaluate, text
from router.index import fields_of

K1 = 1.2
B = 0.75


def rank(docs: dict[str, Counter[str]], query: tuple[str, ...]) -> list[str]:
    """Return the ids of documents sharing a query term, best BM25 score first (id on ties)."""
    n = len(docs)
    average = sum(sum(c.values()) for c in docs.values()) / max(n, 1)
    df = Counter(t for c in docs.values() for t in c)
    scores: dict[str, float] = {}
    for ident, counts in docs.items():
        length = sum(counts.values())
        total = 0.0
        for t in query:
            tf = counts.get(t, 0)
            if not tf:
                continue
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            total += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
        if total > 0:
            scores[ident] = total
    return sorted(scores, key=lambda i: (-scores[i], i))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judged", type=Path, required=True)
    parser.add_argument("--catalog", type=Path, required=True)
    parser.add_argument("--config", type=Path)
    parser.add_argument("--budget", type=int, default=5)
    args = parser.parse_args()
    root = args.catalog.resolve()
    cfg = config.load(args.config, root) if args.config else config.bare(root)
    docs = {}
    for item in catalog.load(cfg).entries:
        words = [w for f in fields_of(item) for w in f.normal.split()]
        docs[item.id] = Counter(w for w in words if len(w) >= 2 and w not in text.STOPWORDS)
    rows = []
    for j in evaluate.read_judged(args.judged):
        ranked = rank(docs, text.tokens(j.task))
        rows.append((j, ranked, ranked[: args.budget]))
    print(json.dumps({"bm25": evaluate.metrics(rows, args.budget)}, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
