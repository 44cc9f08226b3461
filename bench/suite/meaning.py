"""The meaning extra in a daemon (`--meaning`): every entry embedded in the background from an
empty cache, routes answered meanwhile, one document added, and short tasks routed with
meaning off and live in turn."""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.probe import percentile, rss_mib
from router import client
from router.catalog import config
from router.serve import launcher

MEANING_CONFIG = "kroute-meaning.toml"  # the bench catalog's config with meaning live
MEANING_WAIT_S = 3600  # how long a daemon may take to embed a catalog from an empty cache
POLL_S = 0.2  # between two looks at the daemon's status while it embeds


def bench_meaning(root: Path, cfg: config.Config, work: list[str]) -> dict[str, Any]:
    """Return the meaning extra's figures, from a daemon serving the catalog with meaning
    live: how long it took to embed every entry in the background from an empty cache (per
    1,000 entries too), the routes it answered meanwhile (by words alone) and how long they
    took, its RSS once the vectors are in, and short tasks routed with meaning off and live
    in turn through its socket (p50 / p99 of each, and of what live added to each task).
    Raise RuntimeError when the vectors were not made."""
    from router.runtime import nearby

    live = root / MEANING_CONFIG
    live.write_text(
        (cfg.file.read_text(encoding="utf-8") if cfg.file else "") + '\n[meaning]\nmode = "live"\n',
        encoding="utf-8",
    )
    env = dict(os.environ)
    target = client.target(root, live, env)
    launcher.stop(target)
    shutil.rmtree(
        target.places.state / "meaning" / nearby.CATALOGS / target.places.key, ignore_errors=True
    )
    print("  embedding the catalog in a daemon's background ...", file=sys.stderr, flush=True)
    pid = launcher.start(target, env, wait=600)
    try:
        state, early = embedded(target, work)
        rss = rss_mib(pid)
        child = state.get("process", {}).get("pid")  # the meaning process, where there is one
        child_rss = rss_mib(child) if child else float("nan")
        edited_s, again = one_added(root, target, state["entries"])
        times = in_turn(target, work)
    finally:
        launcher.stop(target)
        live.unlink(missing_ok=True)
    out: dict[str, Any] = {
        "embed_s": state["seconds"],
        "embed_per_1000_s": state["seconds"] * 1000 / max(1, state["entries"]),
        "rss_mib": rss,
        "process_rss_mib": child_rss,
        **early,
        "edit_s": edited_s,
        "edit_build_s": again["seconds"],
    }
    for mode, spent in times.items():
        out[f"{mode}_p50_ms"] = statistics.median(spent) * 1000
        out[f"{mode}_p99_ms"] = percentile(spent, 0.99) * 1000
    added = [b - a for a, b in zip(times["off"], times["live"], strict=True)]
    out["added_p50_ms"] = statistics.median(added) * 1000
    out["added_p99_ms"] = percentile(added, 0.99) * 1000
    return out


def embedded(target: client.Target, work: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the daemon's meaning status once its vectors are made, and the figures of the
    statuses and routes it answered meanwhile; raise RuntimeError when they were not made
    within MEANING_WAIT_S."""
    early: list[float] = []
    asked: list[float] = []  # how long status took meanwhile (the model loads elsewhere)
    words_only = 0
    deadline = time.perf_counter() + MEANING_WAIT_S
    while True:
        began = time.perf_counter()
        state: dict[str, Any] = client.call(target, "GET", "/v1/status").json()["meaning"]
        asked.append(time.perf_counter() - began)
        if state["ready"] or state["error"] or time.perf_counter() > deadline:
            break
        text = work[len(early) % len(work)]
        began = time.perf_counter()
        answer = client.call(target, "POST", "/v1/route", {"task": text}).json()
        early.append(time.perf_counter() - began)
        words_only += not answer["meaning"]["ready"]
        time.sleep(POLL_S)
    if not state["ready"]:
        raise RuntimeError(f"the vectors were not made: {state}")
    return state, {
        "status_p50_ms": statistics.median(asked) * 1000,
        "status_max_ms": max(asked) * 1000,
        "early_routes": len(early),
        "early_words_only": words_only,
        "early_p50_ms": statistics.median(early) * 1000 if early else float("nan"),
        "early_p99_ms": percentile(early, 0.99) * 1000 if early else float("nan"),
    }


def one_added(root: Path, target: client.Target, entries: int) -> tuple[float, dict[str, Any]]:
    """Add one document (the daemon embeds that one, the rest from its cache); return the
    seconds until the vectors hold it and the daemon's meaning status then."""
    edit = root / "docs" / "decisions" / "bench-meaning.md"
    edit.write_text("---\nid: BENCH-MEANING\nsummary: a new decision\n---\n", "utf-8")
    began = time.perf_counter()
    again: dict[str, Any] = {}
    while time.perf_counter() - began < MEANING_WAIT_S:
        again = client.call(target, "GET", "/v1/status").json()["meaning"]
        if again["ready"] and again["entries"] == entries + 1:
            break
        time.sleep(0.05)
    edited_s = time.perf_counter() - began
    edit.unlink()
    return edited_s, again


def in_turn(target: client.Target, work: list[str]) -> dict[str, list[float]]:
    """Return the seconds of each task of `work` routed with meaning off and live, in turn
    (who goes first alternates)."""
    times: dict[str, list[float]] = {"off": [], "live": []}
    for n, text in enumerate(work):
        for mode in ("off", "live") if n % 2 else ("live", "off"):
            began = time.perf_counter()
            client.call(target, "POST", "/v1/route", {"task": text, "meaning": mode})
            times[mode].append(time.perf_counter() - began)
    return times
