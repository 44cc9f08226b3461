"""The anchors beside kroute (issues 15 and 33): tantivy and bm25s in a venv of their own
under --workdir (anchors-venv, never the project's venv), over the entries kroute loaded (the
text it ranks over, fields and body) and the same tasks it routes. `bench.anchor.engine`,
run by that venv's python, indexes them; each task goes to the anchors and to the daemon in
turn, so the three are timed in the same slices of the machine. `bench.anchor.server` puts
tantivy behind kroute's own HTTP server for the throughput of clients at once."""

from __future__ import annotations

import json
import statistics
import subprocess
from pathlib import Path
from typing import Any

from bench import install
from bench.anchor import ANCHORS
from bench.paths import child_env
from bench.probe import CROWD_SECONDS, CROWDS, concurrent, exchange, percentile
from router.core.text import normalize
from router.runtime.engine import Engine

ANCHORS_VENV = "anchors-venv"  # under --workdir: the project's venv never gets them
ANCHORS_DATA = "anchors"  # under --workdir: a folder per catalog, corpus.jsonl + queries.json
ENGINE_MODULE = "bench.anchor.engine"  # run by the anchors' venv's python
# bench.anchor.server puts tantivy behind kroute's own HTTP server, which needs these
SERVER_NEEDS = ("orjson",)
SERVER_MODULE = "bench.anchor.server"


def anchors_python(workdir: Path) -> tuple[Path | None, str]:
    """Return the python of the anchors' venv under `workdir` (made with `python -m venv`
    and ANCHORS installed into it with pip the first time, reused after) and a line saying
    what was done; (None, why) when it could not be made."""
    venv = workdir / ANCHORS_VENV
    python = venv / "bin" / "python"
    probe = [str(python), "-c", f"import {', '.join((*ANCHORS, *SERVER_NEEDS))}"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python, f"anchors: reusing {venv}"
    why = install.venv(venv, *ANCHORS, *SERVER_NEEDS)
    if why is not None:
        return None, (
            f"anchors: could not install {' '.join(ANCHORS)} into {venv} ({why}); "
            "carrying on without anchor rows"
        )
    return python, f"anchors: installed {' '.join(ANCHORS)} into {venv}"


def export_corpus(engine: Engine, path: Path) -> int:
    """Write to `path` one JSON line `{"id", "text"}` per entry `engine` indexed, the text
    kroute ranks over: its fields' normal text (routing fields, id, title, summary, tags,
    path, governs, open_first, notes) and its body as the ranker reads it (each section's
    heading and text, normalized); return how many entries it wrote."""
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with path.open("w", encoding="utf-8") as out:
        for item in engine.index:
            body = normalize(" ".join(f"{s.heading} {s.text}" for s in item.entry.body))
            words = " ".join([*(field.normal for field in item.fields), body]).strip()
            out.write(json.dumps({"id": item.entry.id, "text": words}) + "\n")
            written += 1
    return written


class AnchorWorker:
    """bench.anchor.engine running in the anchors' venv over one catalog's exported corpus,
    answering one task at a time (see its docstring)."""

    def __init__(self, python: Path, corpus: Path, queries: Path) -> None:
        command = [str(python), "-m", ENGINE_MODULE, str(corpus), str(queries)]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=child_env()
        )
        self.ready = self.read()  # the versions, build seconds, documents, peak RSS

    def read(self) -> dict[str, Any]:
        """Return the worker's next JSON line; raise RuntimeError when it has exited."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"{ENGINE_MODULE} exited with {self.process.wait()}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def search(self, name: str, at: int) -> dict[str, Any]:
        """Return `{engine}_s` (seconds) and `{engine}` (top ids) of each anchor for task `at`
        of query set `name`, and the worker's peak RSS so far."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"set": name, "at": at}) + "\n")
        self.process.stdin.flush()
        return self.read()

    def close(self) -> None:
        """End the worker: close its stdin, wait for it, kill it when it does not end."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def p50_p99(values: list[float], prefix: str) -> dict[str, float]:
    """Return `{prefix}_p50_ms` and `{prefix}_p99_ms` of `values` (seconds); none when empty."""
    if not values:
        return {}
    return {
        f"{prefix}_p50_ms": statistics.median(values) * 1000,
        f"{prefix}_p99_ms": percentile(values, 0.99) * 1000,
    }


def bench_anchors(
    python: Path, folder: Path, sock_path: Path, sets: dict[str, list[str]]
) -> dict[str, Any]:
    """Return the anchors beside kroute on the same tasks: the anchors' versions, build
    seconds and peak RSS, and per query set the figures `time_set` returns.

    `folder` holds corpus.jsonl (see `export_corpus`); the tasks are written beside it."""
    queries = folder / "queries.json"
    queries.write_text(json.dumps(sets), encoding="utf-8")
    worker = AnchorWorker(python, folder / "corpus.jsonl", queries)
    out: dict[str, Any] = {**worker.ready, "sets": {}}
    try:
        for name, work in sets.items():
            out["sets"][name] = time_set(worker, sock_path, name, work, out)
    finally:
        worker.close()
    return out


def time_set(
    worker: AnchorWorker, sock_path: Path, name: str, work: list[str], out: dict[str, Any]
) -> dict[str, Any]:
    """Return the p50/p99 (ms) of kroute inside the daemon, of tantivy and of bm25s on query
    set `name`, timed task by task in turn (who goes first alternates), with how many tasks
    kroute refused and answered with pointers, how many pointers it gave, how many of those
    each anchor's top 5 holds, and the top-5 ids the two anchors share, mean; raise the
    anchors' peak RSS in `out` as the worker reports it."""
    times: dict[str, list[float]] = {engine: [] for engine in ("kroute", *ANCHORS)}
    figures: dict[str, Any] = {"tasks": len(work), "refused": 0, "answered": 0}
    figures |= {"pointers": 0, "held": dict.fromkeys(ANCHORS, 0), "common": 0.0}
    for at, task in enumerate(work):
        if at % 2:
            found = worker.search(name, at)
            status, _, inside, answer = exchange(sock_path, task)
        else:
            status, _, inside, answer = exchange(sock_path, task)
            found = worker.search(name, at)
        for engine in ANCHORS:
            times[engine].append(found[f"{engine}_s"])
        figures["common"] += len(set(found["tantivy"]) & set(found["bm25s"])) / len(work)
        out["rss_mib"] = max(out["rss_mib"], found["rss_mib"])
        if status in (400, 413):
            figures["refused"] += 1
            continue
        if status != 200:
            raise RuntimeError(f"the daemon answered {status} to a task of {name}")
        times["kroute"].append(inside)
        ids = {pointer["id"] for pointer in json.loads(answer)["pointers"]}
        figures["answered"] += bool(ids)
        figures["pointers"] += len(ids)
        for engine in ANCHORS:
            figures["held"][engine] += len(ids & set(found[engine]))
    for engine, values in times.items():
        figures |= p50_p99(values, engine)
    return figures


def served_crowds(
    python: Path,
    corpus: Path,
    daemon: Path,
    work: list[str],
    pid: int,
    seconds: float = CROWD_SECONDS,
) -> dict[str, dict[str, Any]]:
    """Return, per count of clients in CROWDS, the routes/s of tantivy behind kroute's own
    HTTP server (bench.anchor.server) and of kroute's daemon at `daemon`, measured in
    turn on the same tasks: `{"tantivy": {...}, "kroute": {...}}` each as `concurrent` says."""
    address = daemon.with_name("tantivy-anchor.sock")
    address.unlink(missing_ok=True)
    command = [str(python), "-m", SERVER_MODULE, str(corpus), str(address)]
    server = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=child_env()
    )
    out: dict[str, dict[str, Any]] = {}
    try:
        assert server.stdout is not None
        if server.stdout.readline().strip() != "ready":
            raise RuntimeError(f"{SERVER_MODULE} exited with {server.wait()}")
        for n in CROWDS:
            out[str(n)] = {
                "tantivy": concurrent(address, work, n, seconds, server.pid),
                "kroute": concurrent(daemon, work, n, seconds, pid),
            }
    finally:
        if server.stdin is not None:
            server.stdin.close()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        address.unlink(missing_ok=True)
    return out
