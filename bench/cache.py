"""Catalogs kept between runs: written one file at a time under --workdir (never inside the
repository) and reused while their manifest (bench-manifest.json) records the same
parameters; --fresh writes them again."""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from bench import corpus

MANIFEST = "bench-manifest.json"  # beside kroute.toml, outside the catalog's roots
GOVERNED = "bench-governed.txt"
GENERATOR = (
    corpus.vocabulary,
    corpus.vocabulary_size,
    corpus.Zipf,
    corpus.prose,
    corpus.bullets,
    corpus.code_block,
    corpus.chunks,
    corpus.sections,
    corpus.body,
    corpus.nygard,
    corpus.front_matter,
    corpus.annex_rows,
    corpus.generate,
)


def parameters(size: int, bodies: bool) -> dict[str, Any]:
    """Return what a generated catalog depends on: a kept catalog is reused only when its
    manifest records exactly these (the digest covers the generator's code)."""
    code = (
        "".join(inspect.getsource(part) for part in GENERATOR)
        + corpus.TAXONOMY
        + repr(corpus.HEADINGS)
    )
    return {
        "size": size,
        "bodies": bodies,
        "seed": corpus.SEED,
        "json_share": corpus.JSON_SHARE,
        "rows_per_json": corpus.ROWS_PER_JSON,
        "heaps_k": corpus.HEAPS_K,
        "words_per_entry": corpus.WORDS_PER_ENTRY,
        "stopword_ranks": corpus.STOPWORD_RANKS,
        "body_words": list(corpus.BODY_WORDS),
        "adr_share": corpus.ADR_SHARE,
        "generator": hashlib.sha256(code.encode()).hexdigest()[:16],
    }


def disk_usage(top: Path) -> dict[str, int]:
    """Return the files under `top` and their bytes: apparent and allocated (as du counts)."""
    files = apparent = allocated = 0
    for directory, _, names in os.walk(top):
        for name in names:
            stat = os.stat(os.path.join(directory, name))
            files += 1
            apparent += stat.st_size
            allocated += stat.st_blocks * 512
    return {"files": files, "bytes": apparent, "allocated_bytes": allocated}


def catalog(workdir: Path, size: int, bodies: bool, fresh: bool) -> tuple[Path, dict[str, Any]]:
    """Return the root of a catalog of `size` entries under `workdir` and its manifest (with
    `governed` and `generate_s`, None when a kept catalog was reused), writing it unless a
    kept one has the same parameters."""
    root = workdir / (f"catalog-{size}" if bodies else f"catalog-{size}-no-bodies")
    params = parameters(size, bodies)
    if not fresh:
        try:
            manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
            governed = (root / GOVERNED).read_text(encoding="utf-8").splitlines()
        except (OSError, ValueError):
            manifest = None
        if isinstance(manifest, dict) and manifest.get("parameters") == params:
            return root, {**manifest, "governed": governed, "generate_s": None}
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    began = time.perf_counter()
    stats = corpus.generate(root, size, bodies)
    governed = stats.pop("governed")
    manifest = {
        "parameters": params,
        **stats,
        **disk_usage(root / "docs"),
        "generated_in_s": round(time.perf_counter() - began, 2),
    }
    (root / GOVERNED).write_text("".join(f"{path}\n" for path in governed), encoding="utf-8")
    partial = root / (MANIFEST + ".partial")
    partial.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    partial.replace(root / MANIFEST)  # last: a catalog cut short has no manifest
    return root, {**manifest, "governed": governed, "generate_s": manifest["generated_in_s"]}


def remove_bench_files(root: Path) -> None:
    """Remove the documents the update-visibility measurement writes into a kept catalog."""
    for path in (root / "docs" / "decisions").glob("bench-*.md"):
        path.unlink()
