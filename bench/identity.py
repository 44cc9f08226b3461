"""What a catalog's index holds and routes, as digests: the ranker's postings (stem -> slots
and impacts), seed 1's df, each entry's fields and body sections, and the route documents
of tasks made from the catalog's own entries. Two builds of kroute that print the same
digests for a catalog index and route it alike, byte for byte (issue 33: a faster cold load
must not move a posting). tests/test_identity.py keeps them for the fixture catalogs.

    python scripts/identity.py CATALOG_DIR [CATALOG_DIR ...]   # or python -m bench.identity

Prints one JSON line per catalog. A folder holding kroute.toml is read with it; any other
with the bare configuration (`kroute eval --catalog` reads the shared corpora so).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import orjson

from router.catalog import config
from router.ranking import field, index
from router.runtime import intake
from router.runtime.engine import Engine

TASKS_PER_CATALOG = 60  # entries whose title and summary make a task each
# besides the catalog's own words: a few tasks of every catalog's kinds
FIXED_TASKS = (
    "why did we choose this approach",
    "how do I deploy the service",
    "add retries to the HTTP client in src/client/retry.py",
    "what does the ingest pipeline do",
)


def engine_of(root: Path) -> Engine:
    """Return the engine over the catalog in `root`, read as `kroute eval --catalog` reads it."""
    root = root.resolve()
    file = root / config.FILE_NAME
    cfg = config.load(file, root) if file.is_file() else config.bare(root)
    return Engine.load(cfg)


def tasks_of(engine: Engine) -> list[str]:
    """Return the tasks routed over a catalog: FIXED_TASKS, then for the first entries by
    path their titles and the first words of their summaries."""
    out = list(FIXED_TASKS)
    for item in engine.index.entries()[:TASKS_PER_CATALOG]:
        if item.title:
            out.append(item.title)
        if item.summary:
            out.append(" ".join(item.summary.split()[:10]))
    return out


def _digest(parts: Any) -> str:
    return hashlib.sha256(orjson.dumps(parts, option=orjson.OPT_SORT_KEYS)).hexdigest()[:20]


def state(engine: Engine) -> dict[str, Any]:
    """Return the digests of what `engine`'s index holds and answers."""
    ix = engine.index
    postings = sorted(
        # the slots are an array: a buffer, typed as a sequence
        (p_stem, bytes(memoryview(slots).cast("B")).hex(), bytes(impacts).hex())  # type: ignore[arg-type]
        for p_stem, (slots, impacts) in ((s, ix.postings(s)) for s in _stems(ix))
    )
    df = sorted(ix._df.items())
    fields = []
    for slot in range(ix.slots_end):
        try:
            held = ix.slot(slot)
        except KeyError:
            continue
        fields.append(
            [
                held.entry.id,
                [[f.tier, f.name, f.normal, list(f.tokens), f.parts] for f in held.fields],
                [[f.section, f.normal] for f in field.body_fields(held.entry)],
            ]
        )
    routes = [
        engine.route(intake.route({"task": task}, engine.config)) for task in tasks_of(engine)
    ]
    return {
        "entries": len(ix),
        "fingerprint": engine.catalog.fingerprint,
        "stems": len(postings),
        "postings": _digest(postings),
        "df": _digest(df),
        "fields": _digest(fields),
        "routes": _digest(routes),
    }


def _stems(ix: index.Index) -> list[str]:
    return [stem for stem in ix._postings]


def main() -> None:
    for name in sys.argv[1:]:
        root = Path(name)
        print(json.dumps({"catalog": root.name, **state(engine_of(root))}), flush=True)


if __name__ == "__main__":
    main()
