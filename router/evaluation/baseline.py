"""A plain BM25 over the same entries, for `kroute eval --judged --baseline bm25` (DESIGN 13).

It reads each entry as one bag of seed 1's tokens (titles, summaries, every other field and
the body), with no tiers, no stemming and no silence beyond "no term in common": the
reference a user could pick instead of the router.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from router.catalog.entry import Entry
from router.core import text
from router.ranking.field import body_fields, fields_of

K1 = 1.2
B = 0.75


class Bm25:
    """BM25 over a fixed set of entries."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        self._docs: list[tuple[Entry, Counter[str], int]] = []
        for item in entries:
            counts: Counter[str] = Counter()
            for fld in (*fields_of(item), *body_fields(item)):
                counts.update(
                    w
                    for w in fld.normal.split()
                    if len(w) >= text.MIN_TOKEN_CHARS and w not in text.STOPWORDS
                )
            self._docs.append((item, counts, sum(counts.values())))
        self._df: Counter[str] = Counter(t for _, counts, _ in self._docs for t in counts)
        self._average = sum(n for _, _, n in self._docs) / max(len(self._docs), 1)

    def rank(self, task: str) -> list[Entry]:
        """Return the entries sharing a task token, best BM25 score first (path on ties)."""
        n = len(self._docs)
        query = text.tokens(task)
        scored = []
        for item, counts, length in self._docs:
            total = 0.0
            for t in query:
                tf = counts.get(t, 0)
                if tf:
                    df = self._df[t]
                    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                    norm = K1 * (1 - B + B * length / self._average)
                    total += idf * tf * (K1 + 1) / (tf + norm)
            if total > 0:
                scored.append((total, item))
        scored.sort(key=lambda p: (-p[0], p[1].path))
        return [item for _, item in scored]
