"""The main suite: per catalog size, cold load, the daemon's start from a snapshot, route time
inside the daemon, end-to-end latency through the socket (curl and the Python client), route
time for tasks of 10 to 5,000 words, clients at once, the cold in-process CLI, update
visibility after a write, the daemon's RSS, the catalog's size on disk and the bench's wall
time; with the anchors (tantivy, bm25s) beside kroute on the same entries and tasks."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import cache, task
from bench.anchor import SHORT, beside
from bench.probe import (
    CROWD_SECONDS,
    CROWDS,
    by_length,
    concurrent,
    curl,
    percentile,
    routed,
    rss_mib,
)
from bench.suite.meaning import bench_meaning
from router import __version__, client
from router.catalog import config
from router.runtime import intake, snapshot
from router.runtime.engine import Engine
from router.serve import launcher, loader

SLOW_COLD_LOAD_S = 60.0
DAEMON_WAIT_S = 600
UPDATES = 15  # documents written one by one, each timed until a route finds it
UPDATE_WAIT_S = 30.0


@dataclass(frozen=True, slots=True)
class Work:
    """The tasks one catalog is routed with: short ones, and long ones by length."""

    short: list[str]
    long: dict[int, list[str]]
    governed: list[str]


def bench_size(
    size: int,
    queries: int,
    workdir: Path,
    *,
    bodies: bool = True,
    fresh: bool = False,
    lengths: tuple[int, ...] = task.LENGTHS,
    length_queries: int = 100,
    crowd_seconds: float = CROWD_SECONDS,
    anchors: Path | None = None,
    meaning: bool = False,
) -> dict[str, Any]:
    """Return the figures of the catalog of `size` entries (what `table.table` prints); with
    `anchors` (the python of the anchors' venv) also tantivy's and bm25s's beside kroute's
    on the same entries and tasks, under "anchors" (None without). Raise RuntimeError when
    the catalog does not index whole or the daemon fails a route."""
    wall = time.perf_counter()
    root, manifest = cache.catalog(workdir, size, bodies, fresh)
    governed = manifest["governed"]
    cache.remove_bench_files(root)  # left by a run that was cut short
    cfg = config.load(root / "kroute.toml")
    began = time.perf_counter()
    load_began_ns = time.time_ns()
    # as a daemon loads: the collector held off while the index is built, then frozen
    engine = loader.load(cfg, None, __version__).engine
    cold_load = time.perf_counter() - began
    indexed = checked_size(engine, size, manifest)
    work = Work(
        task.tasks(size, governed, queries),
        {n: task.long_tasks(size, governed, n, length_queries) for n in lengths},
        governed,
    )
    corpus = workdir / beside.ANCHORS_DATA / root.name / "corpus.jsonl"
    if anchors is not None:  # from the engine itself: the anchors index the very same entries
        beside.export_corpus(engine, corpus)
    in_process = routed_in_process(engine, cfg, work.short)
    env = dict(os.environ)
    target = client.target(cfg.root, cfg.file, env)
    launcher.stop(target)
    figures = restarted(engine, target, env, load_began_ns)
    del engine
    try:
        pid = figures.pop("pid")
        figures |= served(target, pid, size, work, anchors, corpus, crowd_seconds)
        figures["update_visible_p50_ms"] = visible(root, target, size)
        figures["daemon_rss_mib"] = rss_mib(figures["pid"])
    finally:
        launcher.stop(target)
        cache.remove_bench_files(root)
    by_meaning = bench_meaning(root, cfg, work.short) if meaning else None
    cli = cold_cli(root, work.short[: 1 if cold_load > SLOW_COLD_LOAD_S else 3])
    return {
        **about(size, bodies, root, manifest),
        "indexed": indexed,
        "cold_load_s": cold_load,
        **{k: v for k, v in figures.items() if k != "pid"},
        "route_in_process_p50_ms": statistics.median(in_process) * 1000,
        "cli_no_daemon_median_ms": statistics.median(cli) * 1000,
        "daemon_speedup_vs_cli": statistics.median(cli) / (figures["python_client_p50_ms"] / 1000),
        "meaning": by_meaning,
        "wall_s": time.perf_counter() - wall,
    }


def about(size: int, bodies: bool, root: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """Return what the catalog holds and its size on disk, from its manifest."""
    return {
        "entries": size,
        "bodies": bodies,
        "catalog": str(root),
        "markdown": manifest["markdown"],
        "adrs": manifest["adrs"],
        "annex_rows": manifest["annex_rows"],
        "body_words_mean": manifest["body_words"] / max(1, manifest["markdown"]),
        "files": manifest["files"],
        "disk_mb": manifest["bytes"] / 1e6,
        "disk_allocated_mb": manifest["allocated_bytes"] / 1e6,
        "generate_s": manifest["generate_s"],
    }


def checked_size(engine: Engine, size: int, manifest: dict[str, Any]) -> int:
    """Return the entries `engine` indexed; raise RuntimeError unless that is every entry
    (or every entry but the ADRs, which a reader without them leaves out)."""
    indexed = len(engine.index)
    if indexed not in (size, size - manifest["adrs"]):
        problems = "; ".join(f"{d.path}: {d.problem}" for d in engine.catalog.diagnostics[:3])
        raise RuntimeError(f"{indexed:,} entries indexed of {size:,}: {problems}")
    return indexed


def routed_in_process(engine: Engine, cfg: config.Config, work: list[str]) -> list[float]:
    """Return the seconds each task of `work` took to route in this process."""
    spent = []
    for text in work:
        began = time.perf_counter()
        engine.route(intake.route({"task": text}, cfg))
        spent.append(time.perf_counter() - began)
    return spent


def restarted(
    engine: Engine, target: client.Target, env: dict[str, str], load_began_ns: int
) -> dict[str, Any]:
    """Write `engine`'s snapshot, start a daemon from it, stop it and start it again (as
    `kroute restart` does); return the snapshot's and both starts' figures and the pid of
    the daemon left running."""
    # The daemon starts from the snapshot of the engine just loaded, as a restart would.
    kept = snapshot.path_of(target.places.state, target.places.key)
    kept.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    began = time.perf_counter()
    snapshot_bytes = snapshot.save(engine, kept, load_began_ns)
    snapshot_write = time.perf_counter() - began
    # A restart reads a snapshot written long before: let the kernel finish writing this
    # one out first, or the daemon's reads compete with a gigabyte of writeback at 100k.
    began = time.perf_counter()
    os.sync()
    writeback = time.perf_counter() - began
    began = time.perf_counter()
    launcher.start(target, env, wait=DAEMON_WAIT_S)
    daemon_ready = time.perf_counter() - began
    load = client.call(target, "GET", "/v1/status").json()["load"]
    if load["from"] != "snapshot":
        print(f"  the daemon did not start from the snapshot: {load}", file=sys.stderr)
    # `kroute restart`: the daemon stopped and started again, as after an upgrade. This bench
    # process still holds the engine it built (freed objects stay in its heap), so the start
    # above is one beside a second copy of the catalog; a user's restart is not.
    launcher.stop(target)
    began = time.perf_counter()
    pid = launcher.start(target, env, wait=DAEMON_WAIT_S)
    return {
        "pid": pid,
        "daemon_ready_s": daemon_ready,
        "daemon_load": load,
        "daemon_restart_s": time.perf_counter() - began,
        "daemon_restart_load": client.call(target, "GET", "/v1/status").json()["load"],
        "snapshot_mib": snapshot_bytes / 1_048_576,
        "snapshot_write_s": snapshot_write,
        "snapshot_writeback_s": writeback,
    }


def served(
    target: client.Target,
    pid: int,
    size: int,
    work: Work,
    anchors: Path | None,
    corpus: Path,
    crowd_seconds: float = CROWD_SECONDS,
) -> dict[str, Any]:
    """Return the route figures of the running daemon `pid`: the first routes after its
    restart, the rest once warm, each length, clients at once, the Python client, curl, and
    the anchors beside it when `anchors` names their python."""
    socket = target.places.socket
    # A daemon fresh from a snapshot maps its postings in as routes first touch them: the
    # first routes after a restart are timed apart, on other tasks of the same kind,
    # and the rest once those have warmed it as a day's use would.
    warming = task.tasks(size, work.governed, len(work.short), stream="warm")
    first = [routed(socket, text)[1] for text in warming]
    e2e, inside = zip(*(routed(socket, text) for text in work.short), strict=True)
    long = {}
    for length, tasks in work.long.items():
        print(f"  routing {length:,}-word tasks ...", file=sys.stderr, flush=True)
        long[str(length)] = by_length(socket, tasks)
    crowds = {str(n): concurrent(socket, work.short, n, crowd_seconds, pid) for n in CROWDS}
    python_client = []
    for text in work.short[:100]:
        began = time.perf_counter()
        client.call(target, "POST", "/v1/route", {"task": text})
        python_client.append(time.perf_counter() - began)
    bare_curl = [curl(socket, "/v1/status") for _ in range(30)]
    curl_route = [curl(socket, "/v1/route", json.dumps({"task": t})) for t in work.short[:30]]
    return {
        "pid": pid,
        "route_in_daemon_first_p50_ms": statistics.median(first) * 1000,
        "route_in_daemon_first_p99_ms": percentile(first, 0.99) * 1000,
        "route_in_daemon_p50_ms": statistics.median(inside) * 1000,
        "route_in_daemon_p99_ms": percentile(list(inside), 0.99) * 1000,
        "socket_raw_p50_ms": statistics.median(e2e) * 1000,
        "lengths": long,
        "python_client_p50_ms": statistics.median(python_client) * 1000,
        "curl_status_p50_ms": statistics.median(bare_curl) * 1000,
        "curl_route_p50_ms": statistics.median(curl_route) * 1000,
        "crowds": crowds,
        "anchors": with_anchors(anchors, corpus, socket, work, pid, crowd_seconds),
    }


def with_anchors(
    anchors: Path | None,
    corpus: Path,
    socket: Path,
    work: Work,
    pid: int,
    crowd_seconds: float = CROWD_SECONDS,
) -> dict[str, Any] | None:
    """Return the anchors' figures beside the daemon on `socket` (None without `anchors`,
    `{"error": ...}` when they failed)."""
    if anchors is None:
        return None
    print("  timing the anchors beside kroute ...", file=sys.stderr, flush=True)
    sets = {SHORT: work.short, **{str(n): tasks for n, tasks in work.long.items()}}
    try:
        figures = beside.bench_anchors(anchors, corpus.parent, socket, sets)
    except (OSError, RuntimeError, ValueError) as error:
        print(f"  anchors failed: {error}", file=sys.stderr, flush=True)
        return {"error": str(error)}
    print("  tantivy behind the same server, clients at once ...", file=sys.stderr)
    figures["crowds"] = beside.served_crowds(
        anchors, corpus, socket, work.short, pid, crowd_seconds
    )
    return figures


def visible(root: Path, target: client.Target, size: int) -> float:
    """Return the median milliseconds from writing a new document to a route that finds it;
    raise RuntimeError when one never shows."""
    spent = []
    for n in range(UPDATES):
        word = f"zzquokka{n}x{size}"
        path = root / "docs" / "decisions" / f"bench-{n}.md"
        began = time.perf_counter()
        path.write_text(f"---\nid: BENCH-{n}\nsummary: {word} marker\n---\n", encoding="utf-8")
        while True:
            doc = client.call(target, "POST", "/v1/route", {"task": word}).json()
            if doc["pointers"]:
                break
            if time.perf_counter() - began > UPDATE_WAIT_S:
                raise RuntimeError("an update never became visible")
        spent.append(time.perf_counter() - began)
    return statistics.median(spent) * 1000


def cold_cli(root: Path, work: list[str]) -> list[float]:
    """Return the seconds `kroute route --no-daemon TASK` took for each task of `work` (each
    run loads the whole catalog cold)."""
    spent = []
    for text in work:
        began = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "router", "route", "--no-daemon", text],
            cwd=root,
            check=True,
            capture_output=True,
        )
        spent.append(time.perf_counter() - began)
    return spent
