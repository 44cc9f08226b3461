"""Hand-built shadow records shared by the shadow and review tests, and the lines a real
daemon logs for a repository."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from router.client import locate
from router.logbook import shadow

FILTERS = {"cluster": None, "domain": None, "kind": None, "purpose": None}
REQUEST = {"filters": FILTERS, "budget": 5, "order": "diverse", "strategy": None, "paths": []}
KIND_PURPOSE = {"decision": "rationale", "how_to": "procedure", "design_spec": "behavior"}


def document(ids: list[str], kinds: list[str] | None = None) -> dict[str, Any]:
    """A route document shaped like render.route_json, with extra pointer members that the
    log must drop. No id means a silent route."""
    kinds = kinds or ["decision"] * len(ids)
    pointers = [
        {
            "id": i,
            "path": f"docs/{i}.md",
            "kind": k,
            "purpose": KIND_PURPOSE[k],
            "title": f"title of {i}",
            "summary": "dropped from the log",
            "unwarranted": False,
            "evidence": {"by": "terms", "field": "tags", "rank": n, "of": len(ids), "terms": []},
        }
        for n, (i, k) in enumerate(zip(ids, kinds, strict=True), start=1)
    ]
    silence = None if ids else {"reason": "no_document_reached", "says": "No document ..."}
    return {
        "schema": "kroute.route/1",
        "status": "routed" if ids else "no_match",
        "pointers": pointers,
        "withheld": 0,
        "silence": silence,
        "intent": None,
        "text": "",
    }


def record(
    task: str,
    ids: list[str] | None = None,
    *,
    version: str = "0.1.0",
    kinds: list[str] | None = None,
    injected: bool = False,
    elapsed_us: int = 100,
    skip: str | None = None,
    at: str = "2025-03-01T10:00:00.000000Z",
    request: dict[str, Any] | None = None,
    session: str | None = "s",
    fingerprint: str = "f1",
    mode: str = "live",
) -> dict[str, Any]:
    emitted = shadow.Emitted(
        engine_version=version,
        catalog_fingerprint=fingerprint,
        config_digest="d1",
        source="claude/UserPromptSubmit",
        session=session,
        prompt_id="p",
        cwd="/repo",
        mode=mode,
        injected=injected,
        task=task,
        request=request or REQUEST,
        document=None if skip else document(ids or [], kinds),
        text="",
        elapsed_us=elapsed_us,
        skip=skip,
    )
    return shadow.record(emitted, at)


def read_all(source: Path, since: str | None = None) -> tuple[list[dict[str, Any]], list[Any]]:
    reading = shadow.read(source, since)
    records = list(reading)
    return records, reading.skipped


def shadow_lines(repo: Path, expected: int = 0) -> list[dict[str, Any]]:
    """Return the repository's shadow lines (under KROUTE_HOME) once there are `expected` of
    them (the daemon writes one just after it answers), or what there is after 10 s."""
    directory = shadow.log_dir(
        Path(os.environ["KROUTE_HOME"]), locate.key(repo, repo / "kroute.toml")
    )
    deadline = time.monotonic() + 10
    while True:
        found = list(shadow.read(directory)) if directory.exists() else []
        if len(found) >= expected or time.monotonic() > deadline:
            return found
        time.sleep(0.02)
