"""The cold load beside tantivy's build, and what a cold-loaded daemon holds beside one
restored from its snapshot (issue 33), for `bench.py --cold`.

For each catalog (the bench's synthetic ones with bodies, and real documents made by
replicating the shared corpora, `bench.suite.firstprompt.template`), round by round and in
turns: kroute loads it cold in a process of its own, as a daemon does (`loader.load`, the
collector held off), and says its CPU seconds; tantivy builds its index over the very text
kroute ranks over (`bench.anchor.beside.export_corpus`, written by the first round) in a
process of its own (`bench.anchor.engine --build-only tantivy`) and says its CPU seconds,
every thread's. Then, at up to RSS_UP_TO entries, a daemon started with no snapshot (it
loads cold and writes one) and one started from that snapshot each route the same tasks,
and their RSS is read. Figures, not assertions; min and median of the rounds.

    python -m bench.suite.cold ROOT [CORPUS]   # one cold load: prints a JSON line
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.anchor.beside import ENGINE_MODULE, export_corpus
from bench.paths import child_env
from bench.probe import rss_mib
from router import __version__, client
from router.catalog import config, reader
from router.runtime import snapshot
from router.runtime.engine import Engine
from router.serve import launcher, loader

RSS_UP_TO = 10_000  # entries: past this a cold-loaded daemon takes minutes to start
SHORT_TASKS = 300
LONG_TASKS = 30
LONG_WORDS = 1000
SNAPSHOT_WAIT_S = 900.0


def once(root: Path, corpus: Path | None) -> dict[str, Any]:
    """Return the CPU and wall seconds of one cold load of the catalog at `root` in this
    process, its entries and this process's RSS after it; write the corpus the anchors
    index to `corpus` when given (after the load is timed)."""
    cfg = config.load(root / "kroute.toml")
    phases: dict[str, float] = {}

    def cold(settings: config.Config, version: str) -> Engine:
        # Engine.load in its two phases: reading the files (Markdown, front matter, entries)
        # and indexing what they hold, which is all tantivy's build does
        began = time.process_time()
        cat = reader.load(settings)
        read = time.process_time()
        engine = Engine(settings, cat, version)
        phases.update(read_cpu_s=read - began, index_cpu_s=time.process_time() - read)
        return engine

    cpu, wall = time.process_time(), time.perf_counter()
    engine = loader.load(cfg, None, __version__, cold=cold).engine
    figures = {
        "cpu_s": time.process_time() - cpu,
        "wall_s": time.perf_counter() - wall,
        **phases,
        "entries": len(engine.index),
        "rss_mib": rss_mib(os.getpid()),
    }
    if corpus is not None:
        export_corpus(engine, corpus)
    return figures


def kroute_round(root: Path, corpus: Path | None) -> dict[str, Any]:
    """Return the figures of one cold load of `root` in a process of its own (`once`)."""
    command = [sys.executable, "-m", "bench.suite.cold", str(root)]
    if corpus is not None:
        command.append(str(corpus))
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=child_env())
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def tantivy_round(python: Path, corpus: Path) -> dict[str, Any]:
    """Return the CPU and wall seconds of tantivy's index build over `corpus` in a process
    of its own (the anchors' venv's `python`), and tantivy's version."""
    queries = corpus.with_name("cold-queries.json")
    queries.write_text("{}", encoding="utf-8")
    command = [str(python), "-m", ENGINE_MODULE, str(corpus), str(queries)]
    done = subprocess.run(
        [*command, "--build-only", "tantivy"],
        check=True,
        capture_output=True,
        text=True,
        env=child_env(),
    )
    ready = json.loads(done.stdout.strip().splitlines()[0])
    return {
        "cpu_s": ready["build_cpu_s"]["tantivy"],
        "wall_s": ready["build_s"]["tantivy"],
        "version": ready["versions"]["tantivy"],
    }


def tasks_of(corpus: Path) -> list[str]:
    """Return the tasks both daemons route: the first words of entries' text, and longer
    ones made of several entries' text."""
    texts = [json.loads(line)["text"].split() for line in corpus.open(encoding="utf-8")]
    short = [" ".join(words[:8]) for words in texts[:SHORT_TASKS] if words]
    pool = [word for words in texts[: LONG_TASKS * 20] for word in words]
    long = [
        " ".join(pool[i * LONG_WORDS : (i + 1) * LONG_WORDS])
        for i in range(LONG_TASKS)
        if len(pool) >= (i + 1) * LONG_WORDS
    ]
    return short + long


def daemon_rss(root: Path, work: list[str]) -> dict[str, Any]:
    """Return the RSS (MiB) of a daemon over `root` after routing `work`: started with no
    snapshot (it loads cold, then writes one), and started again from that snapshot."""
    env = dict(os.environ)
    cfg = config.load(root / "kroute.toml")
    target = client.target(cfg.root, cfg.file, env)
    launcher.stop(target)
    kept = snapshot.path_of(target.places.state, target.places.key)
    kept.unlink(missing_ok=True)
    out: dict[str, Any] = {}
    try:
        for phase in ("cold", "snapshot"):
            pid = launcher.start(target, env, wait=SNAPSHOT_WAIT_S)
            began = time.monotonic()
            status = client.call(target, "GET", "/v1/status").json()
            if phase == "snapshot" and not kept.exists():
                break  # loaded cold too fast to be worth a snapshot (loader)
            while (
                status["snapshot"] is None
                and status["load"]["seconds"] >= loader.SNAPSHOT_AFTER_SECONDS
                and time.monotonic() - began < SNAPSHOT_WAIT_S
            ):
                time.sleep(0.5)  # the cold one writes its snapshot after it answers
                status = client.call(target, "GET", "/v1/status").json()
            if status["load"]["from"] != phase:
                raise RuntimeError(f"the daemon loaded from {status['load']['from']}")
            for task in work:
                client.call(target, "POST", "/v1/route", {"task": task})
            out[f"{phase}_rss_mib"] = rss_mib(pid)
            launcher.stop(target)
    finally:
        launcher.stop(target)
    return out


def bench(workdir: Path, catalogs: list[tuple[str, Path]], rounds: int, python: Path | None) -> str:
    """Return the table of the cold loads (and tantivy's builds when `python`, the anchors'
    venv's, is given) of each catalog, `rounds` rounds each."""
    rows = []
    for label, root in catalogs:
        corpus = workdir / "anchors" / f"cold-{root.name}" / "corpus.jsonl"
        corpus.parent.mkdir(parents=True, exist_ok=True)
        mine, theirs = in_turns(label, root, corpus, rounds, python)
        row: dict[str, Any] = {"catalog": label, "entries": mine[0]["entries"]}
        for name, runs in (("kroute", mine), ("tantivy", theirs)):
            for key in ("cpu_s", "wall_s", "read_cpu_s", "index_cpu_s"):
                values = [r[key] for r in runs if key in r]
                if values:
                    row[f"{name}_{key}"] = (min(values), statistics.median(values))
        row["kroute_process_rss_mib"] = statistics.median(r["rss_mib"] for r in mine)
        if mine[0]["entries"] <= RSS_UP_TO:
            print(f"cold load: {label}, daemon RSS", file=sys.stderr, flush=True)
            row.update(daemon_rss(root, tasks_of(corpus)))
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)  # kept should a later one fail
    return table(rows, rounds)


def in_turns(
    label: str, root: Path, corpus: Path, rounds: int, python: Path | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return kroute's cold loads of `root` and tantivy's builds over `corpus` (none without
    `python`), `rounds` of each in turns (who goes first alternates); kroute's first round
    writes the corpus."""
    mine: list[dict[str, Any]] = []
    theirs: list[dict[str, Any]] = []
    for at in range(rounds):
        print(f"cold load: {label}, round {at + 1}", file=sys.stderr, flush=True)
        turns = ["kroute", "tantivy"] if at % 2 == 0 else ["tantivy", "kroute"]
        for who in turns:
            if who == "kroute":
                mine.append(kroute_round(root, corpus if at == 0 else None))
            elif python is not None and corpus.exists():
                theirs.append(tantivy_round(python, corpus))
    if python is not None and len(theirs) < rounds:  # the corpus came after its turn
        theirs.append(tantivy_round(python, corpus))
    return mine, theirs


def _pair(row: dict[str, Any], key: str) -> str:
    if key not in row:
        return "-"
    low, mid = row[key]
    return f"{low:.2f} / {mid:.2f}"


def _ratio(row: dict[str, Any], at: int, mine: str = "kroute_cpu_s") -> str:
    if "tantivy_cpu_s" not in row or mine not in row:
        return "-"
    return f"{row[mine][at] / row['tantivy_cpu_s'][at]:.1f}x"


def _phases(row: dict[str, Any]) -> str:
    """Return the median CPU seconds of the cold load's reading and indexing, "-" without."""
    if "kroute_read_cpu_s" not in row or "kroute_index_cpu_s" not in row:
        return "-"
    return f"{row['kroute_read_cpu_s'][1]:.2f} / {row['kroute_index_cpu_s'][1]:.2f}"


def table(rows: list[dict[str, Any]], rounds: int) -> str:
    """Return the cold loads' table of `rows` (one per catalog, as `bench` makes them)."""
    lines = [
        f"Cold load beside tantivy's build ({rounds} rounds; min / median)",
        "| catalog | entries | kroute cold load, CPU s | of which reading / indexing | "
        "tantivy build, CPU s | ratio min | ratio median | indexing alone, ratio median | "
        "kroute wall s | tantivy wall s | daemon RSS MiB cold / snapshot |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        rss = "-"
        if "snapshot_rss_mib" in row:
            cold, kept = row["cold_rss_mib"], row["snapshot_rss_mib"]
            rss = f"{cold:.0f} / {kept:.0f} ({cold / kept:.2f}x)"
        elif "cold_rss_mib" in row:  # loaded too fast to be worth a snapshot
            rss = f"{row['cold_rss_mib']:.0f} / no snapshot"
        lines.append(
            f"| {row['catalog']} | {row['entries']:,} | {_pair(row, 'kroute_cpu_s')} "
            f"| {_phases(row)} | {_pair(row, 'tantivy_cpu_s')} | {_ratio(row, 0)} "
            f"| {_ratio(row, 1)} | {_ratio(row, 1, 'kroute_index_cpu_s')} "
            f"| {_pair(row, 'kroute_wall_s')} | {_pair(row, 'tantivy_wall_s')} | {rss} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    corpus_arg = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    print(json.dumps(once(Path(sys.argv[1]), corpus_arg)), flush=True)
