"""Benchmarks (DESIGN 13): synthetic catalogs of 1k / 10k / 100k entries written as real
files, then cold load, route time inside the daemon, end-to-end latency through the socket
(curl and the Python client), the cold in-process CLI, update visibility after a write, and
the daemon's RSS. Prints one table. Figures, not assertions: the machine is noisy, so read
the ratios measured in one run.

The catalogs' words follow the two laws real text follows: Zipf frequencies (rank r drawn in
proportion to 1/r) over a vocabulary that grows with the catalog (Heaps: V = 20 * sqrt(n)
for n words written), with the 30 most frequent ranks left out, as a stopword list removes
them from real text. A fixed small vocabulary would make every entry share most task words,
which no real catalog does.

    python scripts/bench.py [--sizes 1000,10000,100000] [--queries 300] [--keep DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from router import __version__, client, config
from router.engine import Engine

SEED = 20261130
ROWS_PER_JSON = 100
JSON_SHARE = 0.1  # a tenth of the entries live in annex JSON catalogs
SHELVES = ("decisions", "specs", "how-to", "obligations", "evaluations")
TAXONOMY = """
[purposes.rationale]
intent = "explain why a choice was made"
answers = ["why is it this way", "what was rejected"]
[purposes.behavior]
intent = "state what the system does"
answers = ["what does this component do", "what may I rely on"]
[purposes.procedure]
intent = "walk through the steps of a task"
answers = ["how do I do this", "what are the steps"]
[purposes.obligation]
intent = "record what is missing or owed"
answers = ["what is missing", "who is this waiting on"]
[purposes.evidence]
intent = "report what was measured"
answers = ["what was measured", "what did the review find"]
[kinds]
decision = "rationale"
design_spec = "behavior"
how_to = "procedure"
obligation = "obligation"
evaluation = "evidence"
annex = "procedure"
[shelves]
"docs/decisions/**" = "decision"
"docs/specs/**" = "design_spec"
"docs/how-to/**" = "how_to"
"docs/obligations/**" = "obligation"
"docs/evaluations/**" = "evaluation"
"""


# -- the synthetic catalog ---------------------------------------------------------------------


HEAPS_K = 20
WORDS_PER_ENTRY = 35  # title, summary, tags and routing together
STOPWORD_RANKS = 30


def vocabulary_size(entries: int) -> int:
    """Return Heaps' law vocabulary for a catalog of `entries` entries."""
    return int(HEAPS_K * (entries * WORDS_PER_ENTRY) ** 0.5)


def vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    """Return pronounceable made-up words: a vocabulary no stopword list touches."""
    onsets, vowels, codas = "bdfgklmnprstvz", "aeiou", ["", "n", "r", "s", "l", "k"]
    words: set[str] = set()
    while len(words) < size:
        syllables = rng.randint(2, 3)
        words.add(
            "".join(
                rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                for _ in range(syllables)
            )
        )
    return sorted(words)


class Zipf:
    """Draw words with Zipf-like frequencies (rank r has weight 1 / r)."""

    def __init__(self, words: list[str], rng: random.Random) -> None:
        self.words = words[STOPWORD_RANKS:]
        self.rng = rng
        self.cumulative = list(
            itertools.accumulate(1 / (rank + 1 + STOPWORD_RANKS) for rank in range(len(self.words)))
        )

    def draw(self, k: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.cumulative, k=k)


def generate(root: Path, size: int) -> list[str]:
    """Write a catalog of `size` entries under `root`; return the governed source paths."""
    rng = random.Random(SEED + size)
    zipf = Zipf(vocabulary(rng, vocabulary_size(size)), rng)
    (root / "kroute.toml").write_text('roots = ["docs"]\n' + TAXONOMY, encoding="utf-8")
    governed: list[str] = []
    json_rows = int(size * JSON_SHARE)
    files = size - json_rows
    for n in range(files):
        shelf = SHELVES[n % len(SHELVES)]
        directory = root / "docs" / shelf / f"{n // 1000:03d}"
        directory.mkdir(parents=True, exist_ok=True)
        lines = [
            "---",
            f"id: SYN-{n:06d}",
            f"title: {' '.join(zipf.draw(rng.randint(3, 6))).capitalize()}",
            f"summary: {' '.join(zipf.draw(rng.randint(12, 24)))}",
            f"tags: [{', '.join(zipf.draw(3))}]",
            f"status: {'draft' if n % 17 == 0 else 'current'}",
        ]
        if n % 3 == 0:
            lines += [
                "routing:",
                f"  problem_spaces: [{' '.join(zipf.draw(3))}]",
                f"  capabilities: [{' '.join(zipf.draw(2))}]",
            ]
        if n % 10 == 0:
            target = f"src/{'/'.join(zipf.draw(2))}/{zipf.draw(1)[0]}.py"
            governed.append(target)
            lines += ["relations:", "  governs:", f"    - {target}"]
        lines += ["---", "", "# Synthetic", ""]
        (directory / f"{n:06d}.md").write_text("\n".join(lines), encoding="utf-8")
    for block in range(0, json_rows, ROWS_PER_JSON):
        rows = []
        for n in range(block, min(block + ROWS_PER_JSON, json_rows)):
            rows.append(
                {
                    "slug": f"annex-{n:06d}",
                    "display_name": " ".join(zipf.draw(4)),
                    "description": " ".join(zipf.draw(16)),
                    "tags": zipf.draw(3),
                    "routing": {
                        "problem_spaces": [" ".join(zipf.draw(3))],
                        "capabilities": [" ".join(zipf.draw(2))],
                        "domains": [zipf.draw(1)[0]],
                    },
                    "open_first": [{"summary": " ".join(zipf.draw(8))}],
                }
            )
        path = root / "docs" / "annexes" / f"block-{block // ROWS_PER_JSON:05d}.catalog.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"annexes": rows}), encoding="utf-8")
    return governed


def tasks(size: int, governed: list[str], count: int) -> list[str]:
    """Return benchmark tasks: 3-8 Zipf words, a tenth naming a governed path."""
    rng = random.Random(SEED - size)
    zipf = Zipf(vocabulary(random.Random(SEED + size), vocabulary_size(size)), rng)
    out = []
    for n in range(count):
        words = zipf.draw(rng.randint(3, 8))
        if governed and n % 10 == 0:
            words.append(rng.choice(governed))
        out.append(" ".join(words))
    return out


# -- measuring ----------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def raw_route(sock_path: Path, task: str) -> tuple[float, float]:
    """Return (end-to-end seconds, seconds inside the daemon) for one route."""
    body = json.dumps({"task": task}).encode()
    head = (
        "POST /v1/route HTTP/1.1\r\nHost: kroute\r\nConnection: close\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    began = time.perf_counter()
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(sock_path))
        s.sendall(head + body)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    total = time.perf_counter() - began
    headers = b"".join(chunks).split(b"\r\n\r\n", 1)[0].decode()
    inside = next(
        float(line.split("dur=")[1]) / 1000
        for line in headers.split("\r\n")
        if line.startswith("Server-Timing")
    )
    return total, inside


def curl(sock_path: Path, path: str, data: str | None = None) -> float:
    args = [
        "curl",
        "-s",
        "-o",
        "/dev/null",
        "--unix-socket",
        str(sock_path),
        f"http://kroute{path}",
    ]
    if data is not None:
        args += ["-d", data]
    began = time.perf_counter()
    subprocess.run(args, check=True)
    return time.perf_counter() - began


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bench_size(size: int, queries: int, workdir: Path) -> dict[str, float]:
    root = workdir / f"catalog-{size}"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    began = time.perf_counter()
    governed = generate(root, size)
    generated = time.perf_counter() - began
    cfg = config.load(root / "kroute.toml")

    began = time.perf_counter()
    engine = Engine.load(cfg)
    cold_load = time.perf_counter() - began
    assert len(engine.index) == size, (len(engine.index), size)
    work = tasks(size, governed, queries)
    in_process = []
    for task in work:
        t0 = time.perf_counter()
        engine.route({"task": task})
        in_process.append(time.perf_counter() - t0)
    del engine

    env = dict(os.environ)
    target = client.target(cfg.root, cfg.file, env)
    client.stop(target)
    began = time.perf_counter()
    pid = client.start(target, env, wait=600)
    daemon_ready = time.perf_counter() - began
    try:
        for task in work[:20]:  # warm up
            raw_route(target.places.socket, task)
        e2e, inside = zip(*(raw_route(target.places.socket, task) for task in work), strict=True)
        python_client = []
        for task in work[:100]:
            t0 = time.perf_counter()
            client.call(target, "POST", "/v1/route", {"task": task})
            python_client.append(time.perf_counter() - t0)
        bare_curl = [curl(target.places.socket, "/v1/status") for _ in range(30)]
        curl_route = [
            curl(target.places.socket, "/v1/route", json.dumps({"task": t})) for t in work[:30]
        ]

        visible = []
        for n in range(15):
            word = f"zzquokka{n}x{size}"
            path = root / "docs" / "decisions" / f"bench-{n}.md"
            t0 = time.perf_counter()
            path.write_text(f"---\nid: BENCH-{n}\nsummary: {word} marker\n---\n", encoding="utf-8")
            while True:
                doc = client.call(target, "POST", "/v1/route", {"task": word}).json()
                if doc["pointers"]:
                    break
                if time.perf_counter() - t0 > 30:
                    raise RuntimeError("an update never became visible")
            visible.append(time.perf_counter() - t0)
        rss = rss_mib(pid)
    finally:
        client.stop(target)

    cli = []
    for task in work[:3]:
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "router", "route", "--no-daemon", task],
            cwd=root,
            check=True,
            capture_output=True,
        )
        cli.append(time.perf_counter() - t0)
    return {
        "entries": size,
        "generate_s": generated,
        "cold_load_s": cold_load,
        "daemon_ready_s": daemon_ready,
        "route_in_process_p50_ms": statistics.median(in_process) * 1000,
        "route_in_daemon_p50_ms": statistics.median(inside) * 1000,
        "route_in_daemon_p99_ms": percentile(list(inside), 0.99) * 1000,
        "socket_raw_p50_ms": statistics.median(e2e) * 1000,
        "python_client_p50_ms": statistics.median(python_client) * 1000,
        "curl_status_p50_ms": statistics.median(bare_curl) * 1000,
        "curl_route_p50_ms": statistics.median(curl_route) * 1000,
        "cli_no_daemon_median_ms": statistics.median(cli) * 1000,
        "daemon_speedup_vs_cli": statistics.median(cli) / statistics.median(python_client),
        "update_visible_p50_ms": statistics.median(visible) * 1000,
        "daemon_rss_mib": rss,
    }


ROWS = (
    ("cold load (s)", "cold_load_s", "{:.2f}"),
    ("daemon ready (s)", "daemon_ready_s", "{:.2f}"),
    ("route p50 in daemon (ms)", "route_in_daemon_p50_ms", "{:.2f}"),
    ("route p99 in daemon (ms)", "route_in_daemon_p99_ms", "{:.2f}"),
    ("route p50 in process (ms)", "route_in_process_p50_ms", "{:.2f}"),
    ("socket round trip p50, raw (ms)", "socket_raw_p50_ms", "{:.2f}"),
    ("python client p50 (ms)", "python_client_p50_ms", "{:.2f}"),
    ("bare curl /v1/status p50 (ms)", "curl_status_p50_ms", "{:.2f}"),
    ("curl /v1/route p50 (ms)", "curl_route_p50_ms", "{:.2f}"),
    ("cold `kroute route --no-daemon` (ms)", "cli_no_daemon_median_ms", "{:.0f}"),
    ("daemon speed-up over cold CLI (x)", "daemon_speedup_vs_cli", "{:.0f}"),
    ("update visible p50 (ms)", "update_visible_p50_ms", "{:.1f}"),
    ("daemon RSS (MiB)", "daemon_rss_mib", "{:.0f}"),
)


def table(results: list[dict[str, float]]) -> str:
    head = "| measure | " + " | ".join(f"{int(r['entries']):,}" for r in results) + " |"
    rule = "|---|" + "---:|" * len(results)
    lines = [head, rule]
    for label, key, fmt in ROWS:
        lines.append(f"| {label} | " + " | ".join(fmt.format(r[key]) for r in results) + " |")
    return "\n".join(lines)


DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "catalogs" / "demo"
HOOKS = Path(__file__).resolve().parents[1] / "hooks"
PROMPT = {
    "session_id": "bench",
    "hook_event_name": "UserPromptSubmit",
    "prompt": "the webhook signing key leaked, rotate it today",
}


def timed(command: list[str], data: bytes, env: dict[str, str], cwd: Path) -> float:
    began = time.perf_counter()
    subprocess.run(command, input=data, env=env, cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - began


def bench_hooks(workdir: Path, runs: int = 30) -> str:
    """Return a table of end-to-end hook latency on the demo catalog: the shell shim's fast
    path (curl to a running daemon), `kroute-hook` with a daemon, and its slow path (no
    daemon: it answers in process and starts one), against a bare curl round trip."""
    root = workdir / "demo"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(DEMO, root)
    cfg = config.load(root / "kroute.toml")
    env = dict(os.environ)
    env.update(
        CLAUDE_PROJECT_DIR=str(root),
        KROUTE_HOOK_BIN=str(Path(sys.executable).with_name("kroute-hook")),
        KROUTE_VERSION=__version__,
    )
    target = client.target(cfg.root, cfg.file, env)
    data = json.dumps({**PROMPT, "cwd": str(root)}).encode()
    shim = [str(HOOKS / "claude" / "user-prompt-submit")]
    hook_bin = [env["KROUTE_HOOK_BIN"], "claude", "UserPromptSubmit"]
    slow = []
    for _ in range(max(5, runs // 3)):
        client.stop(target)
        slow.append(timed(hook_bin, data, env, root))
    client.stop(target)
    client.start(target, env)
    try:
        for _ in range(5):
            timed(shim, data, env, root)  # warm up
        bare = [curl(target.places.socket, "/v1/status") for _ in range(runs)]
        fast = [timed(shim, data, env, root) for _ in range(runs)]
        baked = {**env, "KROUTE_SOCKET": str(target.places.socket)}
        installed = [timed(shim, data, baked, root) for _ in range(runs)]
        with_daemon = [timed(hook_bin, data, env, root) for _ in range(runs)]
    finally:
        client.stop(target)
    rows = [
        ("bare curl round trip, GET /v1/status", bare),
        ("hook shim as `kroute install claude` writes it (socket known)", installed),
        ("hook shim finding the socket itself (user-scope install)", fast),
        ("kroute-hook with a running daemon", with_daemon),
        ("kroute-hook slow path (in process, starts a daemon)", slow),
    ]
    lines = ["| hook on the demo catalog | p50 (ms) | p90 (ms) |", "|---|---:|---:|"]
    for label, values in rows:
        lines.append(
            f"| {label} | {statistics.median(values) * 1000:.1f} | "
            f"{percentile(values, 0.9) * 1000:.1f} |"
        )
    return "\n".join(lines)


LABELLED = Path(__file__).resolve().parents[1] / "fixtures" / "intent" / "labelled.jsonl"


def bench_intent(count: int = 10_000) -> str:
    """Return how long classifying `count` queries (the labelled set, cycled) takes in
    process, best of three."""
    from router import intent

    texts = [json.loads(line)["text"] for line in LABELLED.read_text().splitlines() if line]
    work = list(itertools.islice(itertools.cycle(texts), count))
    best = math.inf
    for _ in range(3):
        began = time.perf_counter()
        for text in work:
            intent.classify(text)
        best = min(best, time.perf_counter() - began)
    each = best / count * 1e6
    return (
        f"intent: classifying {count:,} queries in process took {best:.3f} s ({each:.0f} us each)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--keep", type=Path, help="Write catalogs here and keep them.")
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON too.")
    parser.add_argument("--hooks", action="store_true", help="Also time the hooks on the demo.")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="kroute-bench-"))
    os.environ.setdefault("KROUTE_HOME", str(workdir / "home"))
    os.environ["XDG_RUNTIME_DIR"] = str(workdir / "run")
    try:
        results = []
        for size in sizes:
            print(f"benchmarking {size:,} entries ...", file=sys.stderr, flush=True)
            results.append(bench_size(size, args.queries, workdir))
        print(table(results))
        if args.hooks:
            print()
            print(bench_hooks(workdir))
        print()
        print(bench_intent())
        if args.json:
            print(json.dumps(results, indent=2))
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
