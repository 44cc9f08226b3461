"""The entries' vectors side by side, and the entries nearest to a task by cosine
similarity (brute force: a few thousand rows take well under a millisecond)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from router.catalog.entry import Entry
from router.meaning import passage
from router.meaning.store import Embeds, Vectors

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


class Space:
    """Entry ids and their unit vectors, row i the vector of ids[i]."""

    def __init__(self, ids: Sequence[str], matrix: NDArray[np.float32]) -> None:
        """Raise ValueError when the ids and the rows do not pair up."""
        if len(ids) != len(matrix):
            raise ValueError(f"{len(ids)} ids for {len(matrix)} vectors")
        self.ids = tuple(ids)
        self.matrix = matrix

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def build(
        cls,
        entries: Iterable[Entry],
        embedder: Embeds,
        vectors: Vectors,
        progress: Callable[[int, int], None] | None = None,
    ) -> Space:
        """Return the space of `entries`, each embedded as `passage.of(entry)`: from the
        cache where it holds the text, else embedded now (and cached: the caller saves)."""
        chosen = list(entries)
        texts = [passage.of(item) for item in chosen]
        return cls([item.id for item in chosen], vectors.fill(texts, embedder, progress))

    def similarities(self, vector: NDArray[np.float32]) -> NDArray[np.float32]:
        """Return the cosine similarity of each row to a unit vector, row order."""
        import numpy as np

        out: NDArray[np.float32] = self.matrix @ np.asarray(vector, dtype=np.float32)
        return out

    def ranked(self, scores: NDArray[np.float32], k: int) -> list[tuple[str, float]]:
        """Return up to k (id, score) pairs of `similarities`' scores, highest first; equal
        scores in id order, so the same query always gives the same list."""
        import numpy as np

        if k <= 0 or not self.ids:
            return []
        if k < len(scores):
            # every row scoring at least the k-th best: ties at the cut are all kept, so
            # the id order below decides between them, not argpartition's
            kth = np.partition(scores, len(scores) - k)[len(scores) - k]
            candidates = np.flatnonzero(scores >= kth)
        else:
            candidates = np.arange(len(scores))
        ranked = sorted(candidates.tolist(), key=lambda i: (-float(scores[i]), self.ids[i]))
        return [(self.ids[i], float(scores[i])) for i in ranked[:k]]

    def nearest(self, vector: NDArray[np.float32], k: int) -> list[tuple[str, float]]:
        """Return up to k (id, cosine similarity) pairs, most similar first; equal
        similarities in id order, so the same query always gives the same list."""
        if k <= 0 or not self.ids:
            return []
        return self.ranked(self.similarities(vector), k)

    def query(self, task: str, embedder: Embeds, k: int) -> list[tuple[str, float]]:
        """Return the k entries nearest to `task` (see `nearest`)."""
        return self.nearest(embedder.embed([task])[0], k)
