"""Neighbours by meaning for a catalog (the `meaning` extra): every entry's passage embedded
once and cached in the state dir, and a function from a task to the entries nearest it.

Only this module and `router.meaning` know the extra exists; everything heavy (numpy,
onnxruntime) is imported when `build` runs, never by `import router`. Paths and the model
come from the caller. `build` embeds in this process (`kroute route --no-daemon`, `kroute
eval --meaning`); the daemon embeds in its meaning process (`sidecar`) and fuses with `over`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from router.catalog.entry import Entry
from router.meaning.space import Space
from router.route.fusion import Nearness, Neighbour

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Vector = NDArray[np.float32]

# Texts embedded at a time, one thread each: embedding a catalog on two is about 1.8 times
# as fast as on one; more than two would take the cores the agent and the editor need.
EMBED_THREADS = max(1, min(2, os.cpu_count() or 1))
MODELS = "models"  # the cache directory's folder for models made from the packaged one
CATALOGS = "catalogs"  # ... and for each catalog's vectors, one folder each

Nearby = Callable[[str, int], Nearness]
Progress = Callable[[int, int], None]


def near_of(item: Entry) -> str:
    """Return what a pointer by meaning says the model read of the entry (`passage.of`)."""
    return "title, summary and opening" if item.body else "title and summary"


def build(
    entries: Iterable[Entry],
    model_name: str | None,
    cache: Path,
    catalog: str,
    progress: Progress | None = None,
    models: dict[str | None, Any] | None = None,
) -> Nearby:
    """Return task, k -> what meaning says of the task over `entries`: the k entries
    nearest it, best first, and the similarity of each. Their vectors are read from (and
    new ones written to) the cache directory's folder for `catalog` (a key naming the
    catalog: each keeps its own, so two repositories never push each other's vectors out).
    A caller that builds again (the daemon, after each change) passes `models`, where the
    loaded model is kept between builds: loading one takes time and memory (README: Meaning).
    Raises ModelUnavailableError when the extra or the model is missing."""
    from router.meaning import model, store

    kept = {} if models is None else models
    embedder = kept.get(model_name)
    if embedder is None:
        embedder = kept[model_name] = model.load(model_name, EMBED_THREADS, cache / MODELS)
    listed = list(entries)
    near = {e.id: near_of(e) for e in listed}
    vectors = store.Vectors.open(cache / CATALOGS / catalog, embedder.model_id)
    found = Space.build(listed, embedder, vectors, progress)
    vectors.save()

    row = rows_of(found)

    def nearby(task: str, k: int) -> Nearness:
        return nearness(found, near, row, embedder.embed([task])[0], k)

    return nearby


def over(
    found: Space, near: Mapping[str, str], embed: Callable[[str], Vector | None]
) -> Callable[[str, int], Nearness | None]:
    """Return task, k -> what meaning says of the task over the entries of `found` (see
    `nearness`), its vector given by `embed`; None when `embed` gives none (it could not
    be had in time): the route is then the words' alone."""
    row = rows_of(found)

    def nearby(task: str, k: int) -> Nearness | None:
        vector = embed(task)
        return None if vector is None else nearness(found, near, row, vector, k)

    return nearby


def rows_of(found: Space) -> dict[str, int]:
    """Return each entry id's row in `found`."""
    return {entry_id: i for i, entry_id in enumerate(found.ids)}


def nearness(
    found: Space, near: Mapping[str, str], row: Mapping[str, int], vector: Vector, k: int
) -> Nearness:
    """Return the k entries of `found` nearest the task's `vector`, best first, each with
    what the model read of it (`near`, by id), and the similarity of any entry: 0 for one
    the vectors do not hold (added since they were made; the next vectors will)."""
    similarities = found.similarities(vector)
    nearest = tuple(Neighbour(i, near[i], s) for i, s in found.ranked(similarities, k))

    def similarity(entry_id: str) -> float:
        at = row.get(entry_id)
        return 0.0 if at is None else float(similarities[at])

    return Nearness(nearest, similarity)
