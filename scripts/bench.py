"""Benchmarks (DESIGN 13): synthetic catalogs of 1k / 10k / 100k entries written as real
files, then cold load, the daemon's start from a snapshot, route time inside the daemon,
end-to-end latency through the socket (curl and the Python client), route time for tasks of
10 to 5,000 words, the cold in-process CLI, update visibility after a write, the daemon's
RSS, the catalog's size on disk and the bench's wall time. Prints one table. Figures, not
assertions: the machine is noisy, so read the ratios measured in one run.

The catalogs' words follow the two laws real text follows: Zipf frequencies (rank r drawn in
proportion to 1/r) over a vocabulary that grows with the catalog (Heaps: V = 20 * sqrt(n)
for n words written), with the 30 most frequent ranks left out, as a stopword list removes
them from real text. A fixed small vocabulary would make every entry share most task words,
which no real catalog does.

Nine entries in ten are Markdown files, one in ten a row of an annex JSON catalog. Each
Markdown file has a body of 300-1,500 words (Zipf words over the same vocabulary) in 3-6
`## ` sections of 40-120-word paragraphs, with now and then a bullet list or a fenced code
block; about a fifth of them are Nygard-style ADRs with no front matter at all (`# N. Title`,
`Date:`, Status, Context, Decision, Consequences). The front matter and the annex rows are
drawn exactly as before bodies existed, so `--no-bodies` writes the old catalogs byte for
byte, and both kinds of catalog are routed with the same tasks.

Catalogs are written one file at a time under --workdir (never inside the repository) and
kept there: a later run reuses a catalog whose manifest (bench-manifest.json) records the
same parameters; --fresh writes them again.

With --churn, only the churn run is made (issue 31): a git repository of 2,000 entries taken
through 30 steps (branch switches, a shelf renamed away and back, the root deleted and
checked out again, config saves) while a route and a status are sent every 50 ms; it reports
the longest request, any route answered from a catalog other than the one before or after its
step, and whether the index equals a cold load once each step settles.

With --anchors, kroute is set beside tantivy and bm25s (issue 15): bench.py makes a venv of
their own under --workdir once (anchors-venv, never the project's venv), exports the entries
kroute loaded (the text it ranks over, fields and body) and the same tasks it routes, and has
scripts/anchors.py, run by that venv's python, index them; then each task goes to the anchors
and to the daemon in turn, so the three are timed in the same slices of the machine, and the
table gains their p50/p99 and kroute / tantivy ratios. When the packages cannot be installed
it says so and carries on without them.

    python scripts/bench.py [--sizes 1000,10000,100000] [--queries 300] [--no-bodies]
        [--lengths 10,100,1000,5000] [--length-queries 100] [--workdir DIR] [--fresh]
        [--hooks] [--anchors] [--json] [--churn]
    python scripts/bench.py --first-prompt [--first-prompt-runs 3] [--turn 5] [--sizes 1000,5000]
    python scripts/bench.py --onboarding [--against OTHER_CHECKOUT] [--onboarding-runs 5]
    python scripts/bench.py --cold [--anchors] [--cold-rounds 2] [--real 5000] [--sizes ...]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import inspect
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
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from router import __version__
from router.catalog import config
from router.core.text import normalize
from router.runtime import request, snapshot
from router.runtime.engine import Engine
from router.serve import client, launcher, loader

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


BODY_WORDS = (300, 1500)  # words of a Markdown body, drawn uniformly per document
SECTIONS = (3, 6)
PARAGRAPH_WORDS = (40, 120)
SENTENCE_WORDS = (6, 20)
BULLET_WORDS = (4, 12)
LIST_SHARE = 0.12  # of paragraphs, written as a bullet list instead
CODE_SHARE = 0.3  # of bodies, with one fenced code block
ADR_SHARE = 0.2  # of Markdown documents: Nygard ADRs without front matter
# Never an ADR where the document governs a path, so the governed paths (and so the tasks)
# are the same with and without bodies; the other nine in ten make up the share.
ADR_CHANCE = ADR_SHARE / 0.9
HEADINGS = {
    "decisions": (
        "Context",
        "Background",
        "Options considered",
        "Decision",
        "Rationale",
        "Alternatives",
        "Consequences",
        "Status",
    ),
    "specs": (
        "Overview",
        "Background",
        "Details",
        "Interfaces",
        "Behaviour",
        "Limits",
        "Rationale",
        "Open questions",
    ),
    "how-to": (
        "Background",
        "Prerequisites",
        "Steps",
        "Details",
        "Verification",
        "Troubleshooting",
        "Rollback",
    ),
    "obligations": ("Context", "What is missing", "Details", "Owner", "Deadline", "Status"),
    "evaluations": (
        "Background",
        "Method",
        "Details",
        "Results",
        "Findings",
        "Threats to validity",
        "Rationale",
    ),
}
ADR_STATUSES = (("Accepted", 0.75), ("Proposed", 0.1), ("Superseded", 0.1), ("Deprecated", 0.05))
ADR_EPOCH = datetime.date(2018, 1, 1)


def prose(words: list[str], rng: random.Random) -> str:
    """Return `words` as a paragraph of sentences, now and then with a comma."""
    out, at = [], 0
    while at < len(words):
        step = rng.randint(*SENTENCE_WORDS)
        if len(words) - at - step < 4:  # no sentence of a word or two at the end
            step = len(words) - at
        part = words[at : at + step]
        at += step
        if len(part) > 8 and rng.random() < 0.3:
            part[rng.randint(3, len(part) - 4)] += ","
        out.append(" ".join(part).capitalize() + ".")
    return " ".join(out)


def bullets(words: list[str], rng: random.Random) -> str:
    """Return `words` as a bullet list of 4-12-word items."""
    items, at = [], 0
    while at < len(words):
        step = rng.randint(*BULLET_WORDS)
        items.append("- " + " ".join(words[at : at + step]))
        at += step
    return "\n".join(items)


def code_block(words: list[str], rng: random.Random) -> str:
    """Return a small fenced code block naming six of `words`."""
    a, b, c, d, e, f = words
    kind = rng.randrange(4)
    if kind == 0:
        return f'```python\ndef {a}_{b}({c}):\n    return {c}.{d}("{e}", {f}=True)\n```'
    if kind == 1:
        return f"```sh\n{a} {b} --{c} {d}/{e}.toml\n{a} {f} --check\n```"
    if kind == 2:
        return f"```yaml\n{a}:\n  {b}: {c}\n  {d}: [{e}, {f}]\n```"
    return f'```json\n{{"{a}": "{b}", "{c}": {{"{d}": {rng.randint(1, 999)}, "{e}": "{f}"}}}}\n```'


def chunks(total: int, low: int, high: int, rng: random.Random) -> list[int]:
    """Return sizes between `low` and `high` adding up to `total` (at least `low`)."""
    out = []
    while total > high:
        step = rng.randint(low, min(high, total - low))
        out.append(step)
        total -= step
    return [*out, total]


def sections(headings: list[str], total: int, zipf: Zipf, rng: random.Random) -> list[str]:
    """Return the blocks of `total` body words under `headings`: paragraphs, now and then a
    bullet list, and in some bodies one code block."""
    low = PARAGRAPH_WORDS[0]
    spare = total - low * len(headings)
    cuts = sorted(rng.randint(0, spare) for _ in headings[1:])
    counts = [low + b - a for a, b in itertools.pairwise([0, *cuts, spare])]
    words = zipf.draw(total)
    code_at = rng.randrange(len(headings)) if rng.random() < CODE_SHARE else -1
    blocks, at = [], 0
    for number, (heading, count) in enumerate(zip(headings, counts, strict=True)):
        blocks.append(f"## {heading}")
        for step in chunks(count, *PARAGRAPH_WORDS, rng):
            part = words[at : at + step]
            at += step
            blocks.append(bullets(part, rng) if rng.random() < LIST_SHARE else prose(part, rng))
        if number == code_at:
            blocks.append(code_block(zipf.draw(6), rng))
    return blocks


def body(shelf: str, zipf: Zipf, rng: random.Random) -> tuple[str, int]:
    """Return the body of a document with front matter and its word count."""
    pool = HEADINGS[shelf]
    chosen = sorted(rng.sample(range(len(pool)), rng.randint(*SECTIONS)))
    total = rng.randint(*BODY_WORDS)
    return "\n\n".join(sections([pool[i] for i in chosen], total, zipf, rng)) + "\n", total


def nygard(number: int, title: str, zipf: Zipf, rng: random.Random) -> tuple[str, int]:
    """Return a Nygard-style ADR (no front matter) and its body word count."""
    date = ADR_EPOCH + datetime.timedelta(days=rng.randrange(8 * 365))
    status = rng.choices([s for s, _ in ADR_STATUSES], [w for _, w in ADR_STATUSES])[0]
    if status == "Superseded":
        status = f"Superseded by {rng.randint(number, number + 50)}." if number > 1 else "Accepted"
    headings = ["Context", "Decision", "Consequences"]
    if rng.random() < 0.3:
        headings.insert(1, "Options considered")
    total = rng.randint(*BODY_WORDS)
    blocks = [f"# {number}. {title}", f"Date: {date.isoformat()}", "## Status", status]
    return "\n\n".join(blocks + sections(headings, total, zipf, rng)) + "\n", total


def generate(root: Path, size: int, bodies: bool = True) -> dict[str, Any]:
    """Write a catalog of `size` entries under `root`, one file at a time; return what it
    holds: the governed source paths and the counts of documents, ADRs and body words.

    The front matter and the annex rows come from one random stream, the bodies and the
    choice of ADRs from another, so that the front matter is the same with or without
    bodies."""
    rng = random.Random(SEED + size)
    words = vocabulary(rng, vocabulary_size(size))
    zipf = Zipf(words, rng)
    body_rng = random.Random(f"bodies-{SEED}-{size}")
    body_zipf = Zipf(words, body_rng)
    (root / "kroute.toml").write_text('roots = ["docs"]\n' + TAXONOMY, encoding="utf-8")
    governed: list[str] = []
    json_rows = int(size * JSON_SHARE)
    files = size - json_rows
    adrs = body_words = 0
    made: set[Path] = set()
    for n in range(files):
        if n and n % 10_000 == 0:
            print(f"  wrote {n:,} of {files:,} Markdown files", file=sys.stderr, flush=True)
        shelf = SHELVES[n % len(SHELVES)]
        title_words = zipf.draw(rng.randint(3, 6))
        title = " ".join(title_words).capitalize()
        lines = [
            "---",
            f"id: SYN-{n:06d}",
            f"title: {title}",
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
        path = root / "docs" / shelf / f"{n // 1000:03d}" / f"{n:06d}.md"
        if not bodies:
            text = "\n".join([*lines, "---", "", "# Synthetic", ""])
        elif n % 10 != 0 and body_rng.random() < ADR_CHANCE:
            adrs += 1
            slug = "-".join(title_words)
            path = (
                root / "docs" / "decisions" / "adr" / f"{n // 1000:03d}" / f"{adrs:04d}-{slug}.md"
            )
            text, count = nygard(adrs, title, body_zipf, body_rng)
            body_words += count
        else:
            text, count = body(shelf, body_zipf, body_rng)
            text = "\n".join([*lines, "---", "", f"# {title}", "", text])
            body_words += count
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_text(text, encoding="utf-8")
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
    return {
        "governed": governed,
        "markdown": files,
        "adrs": adrs,
        "annex_rows": json_rows,
        "body_words": body_words,
    }


# -- keeping catalogs between runs -------------------------------------------------------------


MANIFEST = "bench-manifest.json"  # beside kroute.toml, outside the catalog's roots
GOVERNED = "bench-governed.txt"
GENERATOR = (
    vocabulary,
    vocabulary_size,
    Zipf,
    prose,
    bullets,
    code_block,
    chunks,
    sections,
    body,
    nygard,
    generate,
)


def parameters(size: int, bodies: bool) -> dict[str, Any]:
    """Return what a generated catalog depends on: a kept catalog is reused only when its
    manifest records exactly these (the digest covers the generator's code)."""
    code = "".join(inspect.getsource(part) for part in GENERATOR) + TAXONOMY + repr(HEADINGS)
    return {
        "size": size,
        "bodies": bodies,
        "seed": SEED,
        "json_share": JSON_SHARE,
        "rows_per_json": ROWS_PER_JSON,
        "heaps_k": HEAPS_K,
        "words_per_entry": WORDS_PER_ENTRY,
        "stopword_ranks": STOPWORD_RANKS,
        "body_words": list(BODY_WORDS),
        "adr_share": ADR_SHARE,
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
    stats = generate(root, size, bodies)
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


# -- the tasks ----------------------------------------------------------------------------------


LENGTHS = (10, 100, 1000, 5000)
# Many hooks at once (several agents, a pre-commit over many files): clients routing back to
# back for this long, at each of these counts (issue 33: the routes/s of 64 at least those of
# 8; past MAX_HANDLERS, 100 wait for a thread).
CROWDS = (8, 64, 100)
CROWD_SECONDS = 10.0
SOURCE_TOPS = ("src", "src", "lib", "app", "services", "tests")
SOURCE_EXTS = (".py", ".py", ".py", ".ts", ".go", ".rs")


def task_zipf(size: int, rng: random.Random) -> Zipf:
    """Return a Zipf drawer over the vocabulary of the catalog of `size` entries."""
    return Zipf(vocabulary(random.Random(SEED + size), vocabulary_size(size)), rng)


def tasks(size: int, governed: list[str], count: int, stream: str = "") -> list[str]:
    """Return benchmark tasks: 3-8 Zipf words, a tenth naming a governed path. Another
    `stream` gives other tasks of the same kind."""
    rng = random.Random(f"{stream}-{SEED}-{size}" if stream else SEED - size)
    zipf = task_zipf(size, rng)
    out = []
    for n in range(count):
        words = zipf.draw(rng.randint(3, 8))
        if governed and n % 10 == 0:
            words.append(rng.choice(governed))
        out.append(" ".join(words))
    return out


def source_path(zipf: Zipf, governed: list[str], rng: random.Random) -> str:
    """Return a source path with a line number; a third of them a governed path."""
    if governed and rng.random() < 1 / 3:
        path = rng.choice(governed)
    else:
        parts = zipf.draw(rng.randint(2, 3))
        path = "/".join([rng.choice(SOURCE_TOPS), *parts]) + rng.choice(SOURCE_EXTS)
    return f"{path}:{rng.randint(1, 900)}"


def long_tasks(size: int, governed: list[str], length: int, count: int) -> list[str]:
    """Return `count` tasks of `length` words (whitespace-separated tokens) of Zipf words.
    From 100 words on, a few are source paths with line numbers; from 1,000 on, half of
    those come as a pasted stack trace, one `File "path", line N, in name` frame a line."""
    rng = random.Random(f"tasks-{SEED}-{size}-{length}")
    zipf = task_zipf(size, rng)
    out = []
    for _ in range(count):
        paths = 0 if length < 100 else max(3, length // 100)
        frames = []
        if length >= 1000:
            for _ in range(paths // 2):
                path, line = source_path(zipf, governed, rng).rsplit(":", 1)
                frames.append(f'  File "{path}", line {line}, in {"_".join(zipf.draw(2))}')
            paths -= len(frames)
        trace = ["Traceback (most recent call last):", *frames] if frames else []
        used = sum(len(line.split()) for line in trace)
        words = zipf.draw(length - used - paths)
        for _ in range(paths):
            words.insert(rng.randint(0, len(words)), source_path(zipf, governed, rng))
        if trace:
            at = rng.randint(0, len(words))
            words[at:at] = ["\n" + "\n".join(trace) + "\n"]
        task = " ".join(words)
        assert len(task.split()) == length, (len(task.split()), length)
        out.append(task)
    return out


# -- measuring ----------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def raw_route(sock_path: Path, task: str) -> tuple[int, float, float]:
    """Return (HTTP status, end-to-end seconds, seconds inside the daemon) for one route."""
    return exchange(sock_path, task)[:3]


def exchange(sock_path: Path, task: str) -> tuple[int, float, float, bytes]:
    """Return (HTTP status, end-to-end seconds, seconds inside the daemon, the answer's body)
    for one route, one connection."""
    body = json.dumps({"task": task}).encode()
    head = (
        "POST /v1/route HTTP/1.1\r\nHost: kroute\r\nConnection: close\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    began = time.perf_counter()
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(300)
        s.connect(str(sock_path))
        s.sendall(head + body)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    total = time.perf_counter() - began
    head_bytes, _, answer = b"".join(chunks).partition(b"\r\n\r\n")
    headers = head_bytes.decode().split("\r\n")
    status = int(headers[0].split()[1])
    inside = next(
        (
            float(line.split("dur=")[1]) / 1000
            for line in headers
            if line.startswith("Server-Timing")
        ),
        math.nan,
    )
    return status, total, inside, answer


def cpu_seconds(pid: int) -> float:
    """Return the CPU seconds (user and system) process `pid` has used, NaN without /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return math.nan
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def concurrent(
    sock_path: Path, work: list[str], clients: int, seconds: float, pid: int = 0
) -> dict[str, Any]:
    """Return routes/s and end-to-end p50/p99 with `clients` threads each routing tasks of
    `work` back to back for `seconds` (one connection per route, as hooks do), and how many
    cores the serving process `pid` kept busy meanwhile (its CPU seconds over the wall's)."""
    used = cpu_seconds(pid) if pid else math.nan
    stop = time.perf_counter() + seconds
    times: list[float] = []
    failures = 0
    lock = threading.Lock()

    def client(offset: int) -> None:
        nonlocal failures
        n = offset
        while time.perf_counter() < stop:
            try:
                status, total, _ = raw_route(sock_path, work[n % len(work)])
            except (OSError, IndexError, ValueError):  # refused, or closed with no answer
                status, total = 0, 0.0
            with lock:
                if status == 200:
                    times.append(total)
                else:
                    failures += 1
            n += clients

    began = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    return {
        "cores": (cpu_seconds(pid) - used) / elapsed if pid else math.nan,
        "clients": clients,
        "routes_per_s": len(times) / elapsed,
        "p50_ms": percentile(times, 0.50) * 1000 if times else math.nan,
        "p99_ms": percentile(times, 0.99) * 1000 if times else math.nan,
        "failures": failures,
    }


def routed(sock_path: Path, task: str) -> tuple[float, float]:
    """Return (end-to-end seconds, seconds inside the daemon) for a route that must succeed."""
    status, total, inside = raw_route(sock_path, task)
    if status != 200:
        raise RuntimeError(f"the daemon answered {status} to a {len(task)}-character task")
    return total, inside


def by_length(sock_path: Path, work: list[str]) -> dict[str, Any]:
    """Return the figures for tasks of one length: p50 and p99 inside the daemon and end to
    end for the tasks it accepted, and how many it refused (400 or 413)."""
    for task in work[:3]:  # warm up
        raw_route(sock_path, task)
    inside, e2e, refused = [], [], 0
    for task in work:
        status, total, spent = raw_route(sock_path, task)
        if status in (400, 413):
            refused += 1
            continue
        if status != 200:
            raise RuntimeError(f"the daemon answered {status} to a {len(task)}-character task")
        inside.append(spent)
        e2e.append(total)
    out: dict[str, Any] = {
        "tasks": len(work),
        "refused": refused,
        "chars_p50": statistics.median(len(task) for task in work),
    }
    if inside:
        out |= {
            "daemon_p50_ms": statistics.median(inside) * 1000,
            "daemon_p99_ms": percentile(inside, 0.99) * 1000,
            "socket_p50_ms": statistics.median(e2e) * 1000,
            "socket_p99_ms": percentile(e2e, 0.99) * 1000,
        }
    return out


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


# -- the anchors: tantivy and bm25s on the same entries and tasks (issue 15) -------------------


ANCHORS = ("tantivy", "bm25s")  # the PyPI packages, and the engines' names in the figures
ANCHORS_VENV = "anchors-venv"  # under --workdir: the project's venv never gets them
ANCHORS_DATA = "anchors"  # under --workdir: a folder per catalog, corpus.jsonl + queries.json
ANCHORS_SCRIPT = Path(__file__).with_name("anchors.py")
INSTALL_TIMEOUT_S = 900
SHORT = "short"  # the query set of the short tasks; the others are named by their length
TOP_K = 5  # the hits scripts/anchors.py reads out of each anchor (its TOP)
# scripts/anchorserve.py puts tantivy behind kroute's own HTTP server, which needs these
SERVER_NEEDS = ("orjson",)
ANCHOR_SERVER_SCRIPT = Path(__file__).with_name("anchorserve.py")


def made_venv(venv: Path, *install: str) -> str | None:
    """Make a fresh venv at `venv` (`python -m venv --clear`) and pip-install `install` (pip's
    arguments) into it; return None when both steps worked, else why not (the last line
    the failing step said)."""
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    try:
        for step in (
            [sys.executable, "-m", "venv", "--clear", str(venv)],
            [*pip, "--disable-pip-version-check", *install],
        ):
            subprocess.run(
                step, check=True, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S
            )
    except (OSError, subprocess.SubprocessError) as error:
        said = (getattr(error, "stderr", None) or str(error)).strip().splitlines()
        return said[-1] if said else type(error).__name__
    return None


def anchors_python(workdir: Path) -> tuple[Path | None, str]:
    """Return the python of the anchors' venv under `workdir` (made with `python -m venv`
    and ANCHORS installed into it with pip the first time, reused after) and a line saying
    what was done; (None, why) when it could not be made."""
    venv = workdir / ANCHORS_VENV
    python = venv / "bin" / "python"
    probe = [str(python), "-c", f"import {', '.join((*ANCHORS, *SERVER_NEEDS))}"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python, f"anchors: reusing {venv}"
    why = made_venv(venv, *ANCHORS, *SERVER_NEEDS)
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
    """scripts/anchors.py running in the anchors' venv over one catalog's exported corpus,
    answering one task at a time (see its docstring)."""

    def __init__(self, python: Path, corpus: Path, queries: Path) -> None:
        command = [str(python), str(ANCHORS_SCRIPT), str(corpus), str(queries)]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.ready = self.read()  # the versions, build seconds, documents, peak RSS

    def read(self) -> dict[str, Any]:
        """Return the worker's next JSON line; raise RuntimeError when it has exited."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"scripts/anchors.py exited with {self.process.wait()}")
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
    seconds and peak RSS, and per query set the p50/p99 (ms) of kroute inside the daemon, of
    tantivy and of bm25s, timed task by task in turn (who goes first alternates), with how
    many tasks kroute refused and answered with pointers, how many pointers it gave, how
    many of those each anchor's top 5 holds, and the top-5 ids the two anchors share, mean.

    `folder` holds corpus.jsonl (see `export_corpus`); the tasks are written beside it."""
    queries = folder / "queries.json"
    queries.write_text(json.dumps(sets), encoding="utf-8")
    worker = AnchorWorker(python, folder / "corpus.jsonl", queries)
    out: dict[str, Any] = {**worker.ready, "sets": {}}
    try:
        for name, work in sets.items():
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
            out["sets"][name] = figures
    finally:
        worker.close()
    return out


def served_crowds(
    python: Path, corpus: Path, daemon: Path, work: list[str], pid: int
) -> dict[str, dict[str, Any]]:
    """Return, per count of clients in CROWDS, the routes/s of tantivy behind kroute's own
    HTTP server (scripts/anchorserve.py) and of kroute's daemon at `daemon`, measured in
    turn on the same tasks: `{"tantivy": {...}, "kroute": {...}}` each as `concurrent` says."""
    address = daemon.with_name("tantivy-anchor.sock")
    address.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY)}
    command = [str(python), str(ANCHOR_SERVER_SCRIPT), str(corpus), str(address)]
    server = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )
    out: dict[str, dict[str, Any]] = {}
    try:
        assert server.stdout is not None
        if server.stdout.readline().strip() != "ready":
            raise RuntimeError(f"scripts/anchorserve.py exited with {server.wait()}")
        for n in CROWDS:
            out[str(n)] = {
                "tantivy": concurrent(address, work, n, CROWD_SECONDS, server.pid),
                "kroute": concurrent(daemon, work, n, CROWD_SECONDS, pid),
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


SLOW_COLD_LOAD_S = 60.0


def bench_size(
    size: int,
    queries: int,
    workdir: Path,
    *,
    bodies: bool = True,
    fresh: bool = False,
    lengths: tuple[int, ...] = LENGTHS,
    length_queries: int = 100,
    anchors: Path | None = None,
    meaning: bool = False,
) -> dict[str, Any]:
    """Return the figures of the catalog of `size` entries (what `table` prints); with
    `anchors` (the python of the anchors' venv) also tantivy's and bm25s's beside kroute's
    on the same entries and tasks, under "anchors" (None without)."""
    wall = time.perf_counter()
    root, manifest = catalog(workdir, size, bodies, fresh)
    governed = manifest["governed"]
    remove_bench_files(root)  # left by a run that was cut short
    cfg = config.load(root / "kroute.toml")

    began = time.perf_counter()
    load_began_ns = time.time_ns()
    # as a daemon loads: the collector held off while the index is built, then frozen
    engine = loader.load(cfg, None, __version__).engine
    cold_load = time.perf_counter() - began
    indexed = len(engine.index)
    # Today a Markdown file without front matter gives no entry; once ADRs are read, all do.
    if indexed not in (size, size - manifest["adrs"]):
        problems = "; ".join(f"{d.path}: {d.problem}" for d in engine.catalog.diagnostics[:3])
        raise RuntimeError(f"{indexed:,} entries indexed of {size:,}: {problems}")
    work = tasks(size, governed, queries)
    long_work = {length: long_tasks(size, governed, length, length_queries) for length in lengths}
    corpus = workdir / ANCHORS_DATA / root.name / "corpus.jsonl"
    if anchors is not None:  # from the engine itself: the anchors index the very same entries
        export_corpus(engine, corpus)
    in_process = []
    for task in work:
        t0 = time.perf_counter()
        engine.route(request.route({"task": task}, cfg))
        in_process.append(time.perf_counter() - t0)
    env = dict(os.environ)
    target = client.target(cfg.root, cfg.file, env)
    launcher.stop(target)
    # The daemon starts from the snapshot of the engine just loaded, as a restart would.
    kept = snapshot.path_of(target.places.state, target.places.key)
    kept.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    began = time.perf_counter()
    snapshot_bytes = snapshot.save(engine, kept, load_began_ns)
    snapshot_write = time.perf_counter() - began
    del engine
    # A restart reads a snapshot written long before: let the kernel finish writing this
    # one out first, or the daemon's reads compete with a gigabyte of writeback at 100k.
    began = time.perf_counter()
    os.sync()
    writeback = time.perf_counter() - began
    began = time.perf_counter()
    pid = launcher.start(target, env, wait=600)
    daemon_ready = time.perf_counter() - began
    load = client.call(target, "GET", "/v1/status").json()["load"]
    if load["from"] != "snapshot":
        print(f"  the daemon did not start from the snapshot: {load}", file=sys.stderr)
    # `kroute restart`: the daemon stopped and started again, as after an upgrade. This bench
    # process still holds the engine it built (freed objects stay in its heap), so the start
    # above is one beside a second copy of the catalog; a user's restart is not.
    launcher.stop(target)
    began = time.perf_counter()
    pid = launcher.start(target, env, wait=600)
    daemon_restart = time.perf_counter() - began
    restart_load = client.call(target, "GET", "/v1/status").json()["load"]
    try:
        # A daemon fresh from a snapshot maps its postings in as routes first touch them: the
        # first routes after a restart are timed apart, on other tasks of the same kind,
        # and the rest once those have warmed it as a day's use would.
        warming = tasks(size, governed, queries, stream="warm")
        first = [routed(target.places.socket, task)[1] for task in warming]
        e2e, inside = zip(*(routed(target.places.socket, task) for task in work), strict=True)
        long = {}
        for length in lengths:
            print(f"  routing {length:,}-word tasks ...", file=sys.stderr, flush=True)
            long[str(length)] = by_length(target.places.socket, long_work[length])
        crowds = {
            str(n): concurrent(target.places.socket, work, n, CROWD_SECONDS, pid) for n in CROWDS
        }
        python_client = []
        for task in work[:100]:
            t0 = time.perf_counter()
            client.call(target, "POST", "/v1/route", {"task": task})
            python_client.append(time.perf_counter() - t0)
        bare_curl = [curl(target.places.socket, "/v1/status") for _ in range(30)]
        curl_route = [
            curl(target.places.socket, "/v1/route", json.dumps({"task": t})) for t in work[:30]
        ]
        beside: dict[str, Any] | None = None
        if anchors is not None:
            print("  timing the anchors beside kroute ...", file=sys.stderr, flush=True)
            sets = {SHORT: work, **{str(length): long_work[length] for length in lengths}}
            try:
                beside = bench_anchors(anchors, corpus.parent, target.places.socket, sets)
            except (OSError, RuntimeError, ValueError) as error:
                print(f"  anchors failed: {error}", file=sys.stderr, flush=True)
                beside = {"error": str(error)}
            else:
                print("  tantivy behind the same server, clients at once ...", file=sys.stderr)
                beside["crowds"] = served_crowds(anchors, corpus, target.places.socket, work, pid)

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
        launcher.stop(target)
        remove_bench_files(root)
    by_meaning = bench_meaning(root, cfg, work) if meaning else None

    cli = []
    # each run loads the whole catalog cold: once is enough where that takes minutes
    for task in work[: 1 if cold_load > SLOW_COLD_LOAD_S else 3]:
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
        "bodies": bodies,
        "catalog": str(root),
        "markdown": manifest["markdown"],
        "adrs": manifest["adrs"],
        "annex_rows": manifest["annex_rows"],
        "indexed": indexed,
        "body_words_mean": manifest["body_words"] / max(1, manifest["markdown"]),
        "files": manifest["files"],
        "disk_mb": manifest["bytes"] / 1e6,
        "disk_allocated_mb": manifest["allocated_bytes"] / 1e6,
        "generate_s": manifest["generate_s"],
        "cold_load_s": cold_load,
        "daemon_ready_s": daemon_ready,
        "daemon_load": load,
        "daemon_restart_s": daemon_restart,
        "daemon_restart_load": restart_load,
        "snapshot_mib": snapshot_bytes / 1_048_576,
        "snapshot_write_s": snapshot_write,
        "snapshot_writeback_s": writeback,
        "route_in_process_p50_ms": statistics.median(in_process) * 1000,
        "route_in_daemon_first_p50_ms": statistics.median(first) * 1000,
        "route_in_daemon_first_p99_ms": percentile(first, 0.99) * 1000,
        "route_in_daemon_p50_ms": statistics.median(inside) * 1000,
        "route_in_daemon_p99_ms": percentile(list(inside), 0.99) * 1000,
        "socket_raw_p50_ms": statistics.median(e2e) * 1000,
        "lengths": long,
        "python_client_p50_ms": statistics.median(python_client) * 1000,
        "curl_status_p50_ms": statistics.median(bare_curl) * 1000,
        "curl_route_p50_ms": statistics.median(curl_route) * 1000,
        "cli_no_daemon_median_ms": statistics.median(cli) * 1000,
        "daemon_speedup_vs_cli": statistics.median(cli) / statistics.median(python_client),
        "update_visible_p50_ms": statistics.median(visible) * 1000,
        "crowds": crowds,
        "daemon_rss_mib": rss,
        "anchors": beside,
        "meaning": by_meaning,
        "wall_s": time.perf_counter() - wall,
    }


def number(fmt: str, key: str) -> Callable[[dict[str, Any]], str]:
    return lambda r: fmt.format(r[key])


def generated(r: dict[str, Any]) -> str:
    return "reused" if r["generate_s"] is None else f"{r['generate_s']:.1f}"


def at_length(length: int, where: str) -> Callable[[dict[str, Any]], str]:
    """Return the cell of one task length: `p50 / p99`, or `refused` when the daemon refused
    every task of that length (with the count when it refused only some)."""

    def cell(r: dict[str, Any]) -> str:
        figures = r["lengths"].get(str(length))
        if figures is None:
            return "-"
        if f"{where}_p50_ms" not in figures:
            return "refused"
        out = f"{figures[f'{where}_p50_ms']:.2f} / {figures[f'{where}_p99_ms']:.2f}"
        if figures["refused"]:
            out += f" ({figures['refused']}/{figures['tasks']} refused)"
        return out

    return cell


def task_chars(r: dict[str, Any]) -> str:
    return " / ".join(f"{f['chars_p50']:,.0f}" for f in r["lengths"].values()) or "-"


def documents(r: dict[str, Any]) -> str:
    return f"{r['markdown']:,} ({r['adrs']:,}) + {r['annex_rows']:,}"


def first_routes(figures: dict[str, Any]) -> str:
    """Return the p50 / p99 of the first routes a restarted daemon answered."""
    return (
        f"{figures['route_in_daemon_first_p50_ms']:.2f} / "
        f"{figures['route_in_daemon_first_p99_ms']:.2f}"
    )


ROWS: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("Markdown files (ADRs without front matter) + annex rows", documents),
    ("entries indexed", number("{:,}", "indexed")),
    ("body words per Markdown file, mean", number("{:.0f}", "body_words_mean")),
    ("catalog on disk, apparent (MB)", number("{:.1f}", "disk_mb")),
    ("catalog on disk, allocated (MB)", number("{:.1f}", "disk_allocated_mb")),
    ("generate catalog (s)", generated),
    ("cold load from nothing, in process as a daemon loads (s)", number("{:.2f}", "cold_load_s")),
    (
        "snapshot written (MiB / s)",
        lambda r: f"{r['snapshot_mib']:.0f} / {r['snapshot_write_s']:.1f}",
    ),
    ("  then written out to disk (sync, s)", number("{:.1f}", "snapshot_writeback_s")),
    ("daemon ready from the snapshot, spawn to loaded (s)", number("{:.2f}", "daemon_ready_s")),
    (
        "  of which reading the snapshot, in the daemon (s)",
        lambda r: f"{r['daemon_load']['seconds']:.2f}",
    ),
    ("daemon stopped and started again, spawn to loaded (s)", number("{:.2f}", "daemon_restart_s")),
    (
        "  of which reading the snapshot, in the daemon (s)",
        lambda r: f"{r['daemon_restart_load']['seconds']:.2f}",
    ),
    ("route p50 / p99 in daemon, first routes after a restart (ms)", first_routes),
    ("route p50 in daemon (ms)", number("{:.2f}", "route_in_daemon_p50_ms")),
    ("route p99 in daemon (ms)", number("{:.2f}", "route_in_daemon_p99_ms")),
    ("route p50 in process (ms)", number("{:.2f}", "route_in_process_p50_ms")),
    ("socket round trip p50, raw (ms)", number("{:.2f}", "socket_raw_p50_ms")),
)
CLOSING_ROWS: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
    ("python client p50 (ms)", number("{:.2f}", "python_client_p50_ms")),
    ("bare curl /v1/status p50 (ms)", number("{:.2f}", "curl_status_p50_ms")),
    ("curl /v1/route p50 (ms)", number("{:.2f}", "curl_route_p50_ms")),
    ("cold `kroute route --no-daemon` (ms)", number("{:.0f}", "cli_no_daemon_median_ms")),
    ("daemon speed-up over cold CLI (x)", number("{:.0f}", "daemon_speedup_vs_cli")),
    ("update visible p50 (ms)", number("{:.1f}", "update_visible_p50_ms")),
    (
        f"{' / '.join(map(str, CROWDS))} clients at once: routes/s",
        lambda r: " / ".join(f"{r['crowds'][str(n)]['routes_per_s']:.0f}" for n in CROWDS),
    ),
    (
        f"{' / '.join(map(str, CROWDS))} clients at once: p50 / p99 (ms), failures",
        lambda r: "; ".join(
            "{p50_ms:.0f} / {p99_ms:.0f}, {failures}".format(**r["crowds"][str(n)]) for n in CROWDS
        ),
    ),
    (
        f"{' / '.join(map(str, CROWDS))} clients at once: cores the daemon kept busy",
        lambda r: " / ".join(f"{r['crowds'][str(n)].get('cores', math.nan):.2f}" for n in CROWDS),
    ),
    ("daemon RSS (MiB)", number("{:.0f}", "daemon_rss_mib")),
    ("bench wall time (s)", number("{:.1f}", "wall_s")),
)


def length_rows(lengths: tuple[int, ...]) -> list[tuple[str, Callable[[dict[str, Any]], str]]]:
    rows: list[tuple[str, Callable[[dict[str, Any]], str]]] = []
    if lengths:
        words = " / ".join(f"{length:,}" for length in lengths)
        rows.append((f"task characters, median, for {words} words", task_chars))
    for length in lengths:
        rows.append(
            (f"{length:,}-word tasks, in daemon p50 / p99 (ms)", at_length(length, "daemon"))
        )
        rows.append((f"{length:,}-word tasks, socket p50 / p99 (ms)", at_length(length, "socket")))
    return rows


Cell = Callable[[dict[str, Any]], str]


def anchored(r: dict[str, Any]) -> dict[str, Any] | None:
    """Return the anchors' figures of a result, None when they were not asked for or failed."""
    figures = r.get("anchors")
    return figures if figures and "error" not in figures else None


def anchor_about(r: dict[str, Any]) -> str:
    """Return the anchors' versions cell: `tantivy X, bm25s Y`, `failed` or `-`."""
    figures = anchored(r)
    if figures is None:
        return "failed" if r.get("anchors") else "-"
    return ", ".join(f"{name} {figures['versions'][name]}" for name in ANCHORS)


def anchor_build(r: dict[str, Any]) -> str:
    """Return the cell of the anchors' index build seconds: `tantivy / bm25s`."""
    figures = anchored(r)
    return " / ".join(f"{figures['build_s'][name]:.1f}" for name in ANCHORS) if figures else "-"


def anchor_rss(r: dict[str, Any]) -> str:
    """Return the cell of the anchors' process peak RSS (MiB)."""
    figures = anchored(r)
    return f"{figures['rss_mib']:.0f}" if figures else "-"


def anchor_times(name: str, engine: str) -> Cell:
    """Return the cell of one engine on query set `name`: `p50 / p99` (ms), `-` without."""

    def cell(r: dict[str, Any]) -> str:
        figures = (anchored(r) or {}).get("sets", {}).get(name, {})
        if f"{engine}_p50_ms" not in figures:
            return "-"
        return f"{figures[f'{engine}_p50_ms']:.2f} / {figures[f'{engine}_p99_ms']:.2f}"

    return cell


def per_set(names: list[str], figure: Callable[[dict[str, Any]], str]) -> Cell:
    """Return a cell of `figure` of each query set in `names`, joined `a / b / ...`."""

    def cell(r: dict[str, Any]) -> str:
        sets = (anchored(r) or {}).get("sets")
        if not sets:
            return "-"
        return " / ".join(figure(sets[name]) if name in sets else "-" for name in names)

    return cell


def ratio(q: str, anchor: str = "tantivy") -> Callable[[dict[str, Any]], str]:
    """Return kroute's `q` (p50, p99) over the anchor's, of one query set's figures."""

    def figure(f: dict[str, Any]) -> str:
        mine, theirs = f.get(f"kroute_{q}_ms"), f.get(f"{anchor}_{q}_ms")
        return f"{mine / theirs:.1f}" if mine is not None and theirs else "-"

    return figure


def held(engine: str) -> Callable[[dict[str, Any]], str]:
    """Return the share of kroute's pointers that the engine's top 5 holds (%), of one set."""

    def figure(f: dict[str, Any]) -> str:
        return f"{100 * f['held'][engine] / f['pointers']:.0f}" if f["pointers"] else "-"

    return figure


MEANING_CONFIG = "kroute-meaning.toml"  # the bench catalog's config with meaning live
MEANING_WAIT_S = 3600  # how long a daemon may take to embed a catalog from an empty cache


def bench_meaning(root: Path, cfg: config.Config, work: list[str]) -> dict[str, Any]:
    """Return the meaning extra's figures, from a daemon serving the catalog with meaning
    live: how long it took to embed every entry in the background from an empty cache (per
    1,000 entries too), the routes it answered meanwhile (by words alone) and how long they
    took, its RSS once the vectors are in, and short tasks routed with meaning off and live
    in turn through its socket (p50 / p99 of each, and of what live added to each task)."""
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
        early: list[float] = []
        asked: list[float] = []  # how long status took meanwhile (the model loads elsewhere)
        words_only = 0
        deadline = time.perf_counter() + MEANING_WAIT_S
        while True:
            t0 = time.perf_counter()
            state = client.call(target, "GET", "/v1/status").json()["meaning"]
            asked.append(time.perf_counter() - t0)
            if state["ready"] or state["error"] or time.perf_counter() > deadline:
                break
            task = work[len(early) % len(work)]
            t0 = time.perf_counter()
            answer = client.call(target, "POST", "/v1/route", {"task": task}).json()
            early.append(time.perf_counter() - t0)
            words_only += not answer["meaning"]["ready"]
            time.sleep(0.2)
        if not state["ready"]:
            raise RuntimeError(f"the vectors were not made: {state}")
        rss = rss_mib(pid)
        child = state.get("process", {}).get("pid")  # the meaning process, where there is one
        child_rss = rss_mib(child) if child else float("nan")
        # one document added: the daemon embeds that one (the rest from its cache)
        edit = root / "docs" / "decisions" / "bench-meaning.md"
        edit.write_text("---\nid: BENCH-MEANING\nsummary: a new decision\n---\n", "utf-8")
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < MEANING_WAIT_S:
            again = client.call(target, "GET", "/v1/status").json()["meaning"]
            if again["ready"] and again["entries"] == state["entries"] + 1:
                break
            time.sleep(0.05)
        edited_s = time.perf_counter() - t0
        edit.unlink()
        times: dict[str, list[float]] = {"off": [], "live": []}
        for n, task in enumerate(work):
            for mode in ("off", "live") if n % 2 else ("live", "off"):
                t0 = time.perf_counter()
                client.call(target, "POST", "/v1/route", {"task": task, "meaning": mode})
                times[mode].append(time.perf_counter() - t0)
    finally:
        launcher.stop(target)
        live.unlink(missing_ok=True)
    entries = state["entries"]
    out: dict[str, Any] = {
        "embed_s": state["seconds"],
        "embed_per_1000_s": state["seconds"] * 1000 / max(1, entries),
        "rss_mib": rss,
        "process_rss_mib": child_rss,
        "status_p50_ms": statistics.median(asked) * 1000,
        "status_max_ms": max(asked) * 1000,
        "edit_s": edited_s,
        "edit_build_s": again["seconds"],
        "early_routes": len(early),
        "early_words_only": words_only,
        "early_p50_ms": statistics.median(early) * 1000 if early else float("nan"),
        "early_p99_ms": percentile(early, 0.99) * 1000 if early else float("nan"),
    }
    for mode, spent in times.items():
        out[f"{mode}_p50_ms"] = statistics.median(spent) * 1000
        out[f"{mode}_p99_ms"] = percentile(spent, 0.99) * 1000
    added = [b - a for a, b in zip(times["off"], times["live"], strict=True)]
    out["added_p50_ms"] = statistics.median(added) * 1000
    out["added_p99_ms"] = percentile(added, 0.99) * 1000
    return out


def meaning_rows() -> list[tuple[str, Cell]]:
    """Return the meaning extra's rows (`bench_meaning`)."""

    def cell(key: str, fmt: str) -> Cell:
        return lambda r: fmt.format(r["meaning"][key]) if r.get("meaning") else "-"

    def pair(prefix: str) -> Cell:
        def figure(r: dict[str, Any]) -> str:
            m = r.get("meaning")
            return f"{m[prefix + '_p50_ms']:.2f} / {m[prefix + '_p99_ms']:.2f}" if m else "-"

        return figure

    def early(r: dict[str, Any]) -> str:
        m = r.get("meaning")
        if not m:
            return "-"
        return (
            f"{m['early_words_only']} of {m['early_routes']} by words; "
            f"{m['early_p50_ms']:.1f} / {m['early_p99_ms']:.1f}"
        )

    def status(r: dict[str, Any]) -> str:
        m = r.get("meaning")
        return f"{m['status_p50_ms']:.1f} / {m['status_max_ms']:.1f}" if m else "-"

    return [
        ("meaning: every entry embedded in the daemon's background (s)", cell("embed_s", "{:.1f}")),
        ("meaning: ... per 1,000 entries (s)", cell("embed_per_1000_s", "{:.1f}")),
        ("meaning: routes while embedding, by words alone; p50 / p99 (ms)", early),
        ("meaning: status while the model loads and embeds, p50 / max (ms)", status),
        ("meaning: daemon RSS with the vectors in (MiB)", cell("rss_mib", "{:.0f}")),
        ("meaning: ... its meaning process's RSS (MiB)", cell("process_rss_mib", "{:.0f}")),
        ("meaning: one file added, until fused again (s)", cell("edit_s", "{:.2f}")),
        ("meaning: ... of which the vectors' rebuild (s)", cell("edit_build_s", "{:.2f}")),
        ("meaning off: route p50 / p99 through the socket (ms), in turn", pair("off")),
        ("meaning live: route p50 / p99 through the socket (ms), in turn", pair("live")),
        ("meaning live adds to a route, p50 / p99 (ms)", pair("added")),
    ]


def anchor_rows(lengths: tuple[int, ...]) -> list[tuple[str, Cell]]:
    """Return the anchors' rows: versions, build, RSS, then per query set kroute's, tantivy's
    and bm25s's p50 / p99 timed in turn, the kroute / tantivy ratios, and how far kroute's
    pointers are among the anchors' top 5."""
    names = [SHORT, *map(str, lengths)]
    labels = ["short tasks", *(f"{length:,}-word tasks" for length in lengths)]
    sets = " / ".join(["short", *(f"{length:,}" for length in lengths)]) + " words"
    rows: list[tuple[str, Cell]] = [
        ("anchors, in a venv of their own", anchor_about),
        ("anchors' index build, tantivy / bm25s (s)", anchor_build),
        ("anchors' process peak RSS, both indexes (MiB)", anchor_rss),
    ]
    for name, label in zip(names, labels, strict=True):
        rows.append(
            (f"{label}, kroute in daemon p50 / p99 (ms), in turn", anchor_times(name, "kroute"))
        )
        for engine in ANCHORS:
            rows.append((f"{label}, {engine} p50 / p99 (ms), in turn", anchor_times(name, engine)))
    rows += [
        (f"kroute / tantivy p50 (x), {sets}", per_set(names, ratio("p50"))),
        (f"kroute / tantivy p99 (x), {sets}", per_set(names, ratio("p99"))),
        (
            f"tasks kroute answered with pointers, {sets}",
            per_set(names, lambda f: f"{f['answered']}/{f['tasks']}"),
        ),
    ]
    for engine in ANCHORS:
        rows.append(
            (
                f"kroute's pointers in {engine}'s top {TOP_K} (%), {sets}",
                per_set(names, held(engine)),
            )
        )
    rows.append(
        (
            f"top-{TOP_K} ids tantivy and bm25s share, mean, {sets}",
            per_set(names, lambda f: f"{f['common']:.1f}"),
        )
    )
    crowds = " / ".join(map(str, CROWDS))
    rows += [
        (f"{crowds} clients, kroute routes/s, in turn with tantivy", served("kroute")),
        (f"{crowds} clients, tantivy behind the same server, routes/s", served("tantivy")),
        (f"{crowds} clients, kroute / tantivy routes/s (x)", served_ratio),
        (f"{crowds} clients, cores busy: kroute's daemon", served("kroute", "cores")),
        (f"{crowds} clients, cores busy: tantivy's server", served("tantivy", "cores")),
    ]
    return rows


def served(engine: str, figure: str = "routes_per_s") -> Cell:
    """Return the cell of `engine`'s routes/s (or another `concurrent` figure) at each count
    of clients, measured in turn (`served_crowds`), `-` without."""
    fmt = "{:.0f}" if figure == "routes_per_s" else "{:.2f}"

    def cell(r: dict[str, Any]) -> str:
        crowds = (anchored(r) or {}).get("crowds")
        if not crowds:
            return "-"
        return " / ".join(fmt.format(crowds[str(n)][engine][figure]) for n in CROWDS)

    return cell


def served_ratio(r: dict[str, Any]) -> str:
    """Return the cell of kroute's routes/s over tantivy's at each count of clients."""
    crowds = (anchored(r) or {}).get("crowds")
    if not crowds:
        return "-"
    pairs = [(crowds[str(n)]["kroute"], crowds[str(n)]["tantivy"]) for n in CROWDS]
    return " / ".join(f"{k['routes_per_s'] / t['routes_per_s']:.2f}" for k, t in pairs)


def table(results: list[dict[str, Any]], lengths: tuple[int, ...] = LENGTHS) -> str:
    """Return the one table of every size's figures, a column a size; with the anchors'
    rows when some size has them."""
    head = "| measure | " + " | ".join(f"{int(r['entries']):,}" for r in results) + " |"
    rule = "|---|" + "---:|" * len(results)
    lines = [head, rule]
    beside = anchor_rows(lengths) if any(r.get("anchors") for r in results) else []
    beside += meaning_rows() if any(r.get("meaning") for r in results) else []
    for label, cell in (*ROWS, *length_rows(lengths), *beside, *CLOSING_ROWS):
        lines.append(f"| {label} | " + " | ".join(cell(r) for r in results) + " |")
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


def settle(target: client.Target, seconds: float = 10.0) -> None:
    """Wait until a daemon a hook started in the background is up (or none is coming), so
    that stopping it does not race its start."""
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        if client.state(target)[0] == "running":
            return
        time.sleep(0.05)


HOOK_VENV = "hook-venv"


def installed_hook(workdir: Path) -> tuple[Path | None, str]:
    """Return `kroute-hook` as a user's regular install has it (this checkout installed,
    not editable, with its dependencies, into a venv of its own under `workdir`) and a line
    saying what was done; (None, why) when it could not be made. `kroute` is beside it.

    The suite's venv holds an editable install, whose import finder makes every Python
    start under it pay about 16 ms for pathlib, re and importlib.util before the hook runs."""
    venv = workdir / HOOK_VENV
    why = made_venv(venv, str(REPOSITORY))
    if why is not None:
        return None, f"hooks: no regular install in {venv} ({why})"
    return venv / "bin" / "kroute-hook", f"hooks: installed this checkout into {venv}"


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
    user_hook, said = installed_hook(workdir)
    print(said, file=sys.stderr, flush=True)
    hook_bin = [env["KROUTE_HOOK_BIN"], "claude", "UserPromptSubmit"]
    slow = []
    for _ in range(max(5, runs // 3)):
        settle(target)
        launcher.stop(target)
        slow.append(timed(hook_bin, data, env, root))
    settle(target)  # the slow path starts a daemon in the background: let it come up first
    launcher.stop(target)
    launcher.ensure(target, env)  # a daemon the slow path started may come up meanwhile
    baked = {**env, "KROUTE_SOCKET": str(target.places.socket)}
    # Each round times every command once, in turn, so that the machine's drift falls on
    # all of them alike and their ratios hold.
    commands: dict[str, Callable[[], float]] = {
        "bare": lambda: curl(target.places.socket, "/v1/status"),
        "installed": lambda: timed(shim, data, baked, root),
        "fast": lambda: timed(shim, data, env, root),
        "with_daemon": lambda: timed(hook_bin, data, env, root),
    }
    if user_hook is not None:
        regular_python = str(user_hook.with_name("python"))
        commands["regular"] = lambda: timed([str(user_hook), *hook_bin[1:]], data, env, root)
        commands["python"] = lambda: timed([regular_python, "-c", "pass"], b"", env, root)
        kroute = str(user_hook.with_name("kroute"))
        commands["help"] = lambda: timed([kroute, "--help"], b"", env, root)
        commands["route"] = lambda: timed([kroute, "route", PROMPT["prompt"]], b"", env, root)
        commands["status"] = lambda: timed([kroute, "status"], b"", env, root)
    times: dict[str, list[float]] = {name: [] for name in commands}
    try:
        for _ in range(5):
            timed(shim, data, env, root)  # warm up
        for _ in range(runs):
            for name, command in commands.items():
                times[name].append(command())
        if user_hook is not None:  # `kroute stop` ends the daemon: one started for each
            for _ in range(max(5, runs // 3)):
                launcher.ensure(target, env)
                times.setdefault("stop", []).append(
                    timed([str(user_hook.with_name("kroute")), "stop"], b"", env, root)
                )
    finally:
        launcher.stop(target)
    rows = [
        ("bare curl round trip, GET /v1/status", times["bare"]),
        ("hook shim as `kroute install claude` writes it (socket known)", times["installed"]),
        ("hook shim finding the socket itself (user-scope install)", times["fast"]),
        ("kroute-hook with a running daemon (this editable dev install)", times["with_daemon"]),
        ("kroute-hook with a running daemon (a regular install)", times.get("regular", [])),
        ("kroute-hook slow path (in process, starts a daemon)", slow),
        ("`python -c pass` (the regular install's interpreter)", times.get("python", [])),
        ("`kroute --help` (a regular install)", times.get("help", [])),
        ("`kroute route TASK` with a running daemon (a regular install)", times.get("route", [])),
        ("`kroute status` with a running daemon (a regular install)", times.get("status", [])),
        ("`kroute stop` of a running daemon (a regular install)", times.get("stop", [])),
    ]
    lines = ["| hook on the demo catalog | p50 (ms) | p90 (ms) |", "|---|---:|---:|"]
    for label, values in rows:
        if not values:  # no regular install could be made (said on stderr)
            continue
        lines.append(
            f"| {label} | {statistics.median(values) * 1000:.1f} | "
            f"{percentile(values, 0.9) * 1000:.1f} |"
        )
    for over, under, said in (
        ("regular", "bare", "kroute-hook (regular install) / bare curl"),
        ("help", "python", "`kroute --help` / `python -c pass`"),
        ("route", "python", "`kroute route TASK` / `python -c pass`"),
        ("status", "python", "`kroute status` / `python -c pass`"),
        ("stop", "python", "`kroute stop` / `python -c pass`"),
    ):
        if times.get(over) and times.get(under):
            ratio = statistics.median(times[over]) / statistics.median(times[under])
            lines.append(f"\n{said}, p50: {ratio:.2f}x")
    return "\n".join(lines)


LABELLED = Path(__file__).resolve().parents[1] / "fixtures" / "intent" / "labelled.jsonl"


def bench_intent(count: int = 10_000) -> str:
    """Return how long classifying `count` queries (the labelled set, cycled) takes in
    process, best of three."""
    from router.filters import intent

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


def bench_symbols() -> str:
    """Return how long symbol extraction takes on the inputs that once took seconds (a
    4 MB Rust file, 200k lines of `import {`), best of five each."""
    from router.filters import symbols

    rust = REPOSITORY / "fixtures" / "relevance" / "realcode" / "files" / "axum_extension.rs"
    text = rust.read_text(encoding="utf-8")
    inputs = {
        "4 MB Rust file": ((text * (4_000_000 // len(text) + 1))[:4_000_000], "big.rs"),
        "200k lines of `import {`": ("import {\n" * 200_000, "a.ts"),
    }
    parts = []
    for label, (content, path) in inputs.items():
        best = math.inf
        for _ in range(5):
            began = time.perf_counter()
            symbols.classify(content, path)
            best = min(best, time.perf_counter() - began)
        parts.append(f"{label} {best * 1000:.1f} ms")
    return "symbol extraction (best of 5, target under 50 ms each): " + ", ".join(parts)


REPOSITORY = Path(__file__).resolve().parents[1]
HOSTILE = REPOSITORY / "fixtures" / "hostile"


def bench_hostile() -> str:
    """Return how long loading the hostile fixture catalog takes (an alias bomb, a recursive
    alias, globs that cannot compile, a list nested a thousand deep, an entry past the
    limits), best of five: each is refused or cut as it is read, never expanded. The tests
    hold it to a hang deadline; how fast is this figure's business."""
    cfg = config.load(HOSTILE / "kroute.toml")
    best = math.inf
    for _ in range(5):
        began = time.perf_counter()
        loaded = Engine.load(cfg)
        best = min(best, time.perf_counter() - began)
    return (
        f"hostile fixture catalog ({len(loaded.catalog.files)} files, best of 5, target under "
        f"500 ms): {best * 1000:.1f} ms"
    )


# -- churn: updates while requests keep coming (issue 31) ----------------------------------------


CHURN_SIZE = 2_000
CHURN_ROUNDS = 5  # of the six moves of CHURN_MOVES: 30 steps
CHURN_TICK = 0.05  # a route and a status are each sent this often
CHURN_BRANCH_DOCS = 300  # documents the branch `other` adds (besides a shelf it deletes)
CHURN_QUIET = 1.0  # a step is over once the daemon says no update is pending after this long
CHURN_SETTLE = 120.0  # the longest a step is given to settle before the run says it did not
CHURN_REQUEST_TIMEOUT = 30.0
CHURN_TASK = "rotate the signing key of a failed delivery"
EXCLUDED_SHELF = 'exclude = ["docs/obligations/**"]\n'
COLD_PROBE = (
    "import json, pathlib, sys\n"
    "from router.catalog import config\n"
    "from router.runtime.engine import Engine\n"
    "e = Engine.load(config.load(pathlib.Path(sys.argv[1]).resolve()))\n"
    "print(json.dumps([e.catalog.fingerprint, [x['id'] for x in e.listing()['entries']]]))\n"
)


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def churn_repository(workdir: Path, size: int) -> Path:
    """Return a git repository of a bench catalog of `size` entries (written afresh), whose
    branch `other` deletes the how-to shelf and adds CHURN_BRANCH_DOCS documents."""
    root = workdir / f"churn-{size}"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    generate(root, size, bodies=True)
    git(root, "init", "-q")
    git(root, "checkout", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "main")
    git(root, "checkout", "-q", "-b", "other")
    shutil.rmtree(root / "docs" / "how-to")
    for n in range(CHURN_BRANCH_DOCS):
        path = root / "docs" / "branch" / f"{n % 10:02d}" / f"branch-{n:04d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"---\nid: BRANCH-{n:04d}\ntitle: Branch document {n}\n"
            f"summary: a document only the branch holds, number {n}\n---\n\n# Branch {n}\n",
            encoding="utf-8",
        )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "other")
    git(root, "checkout", "-q", "main")
    return root


def churn_moves(root: Path) -> list[tuple[str, Callable[[], None]]]:
    """Return one round of the churn's moves, each a (name, make) pair."""

    def shell(command: str) -> Callable[[], None]:
        def run() -> None:
            subprocess.run(command, shell=True, cwd=root, check=True)

        return run

    def config_save() -> None:  # as editors save: a temporary file renamed over
        path = root / "kroute.toml"
        text = path.read_text(encoding="utf-8")
        roots, _, rest = text.partition("\n")  # top-level keys come before the tables
        if rest.startswith(EXCLUDED_SHELF):
            text = f"{roots}\n{rest.removeprefix(EXCLUDED_SHELF)}"
        else:
            text = f"{roots}\n{EXCLUDED_SHELF}{rest}"
        temp = path.with_name(".kroute.toml.tmp")
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, path)

    return [
        ("checkout other", lambda: git(root, "checkout", "-q", "other")),
        ("rename a shelf away", shell("mv docs/evaluations docs/evaluations-away")),
        ("rename it back", shell("mv docs/evaluations-away docs/evaluations")),
        ("checkout main", lambda: git(root, "checkout", "-q", "main")),
        ("rm -rf docs && git checkout docs", shell("rm -rf docs && git checkout -q docs")),
        ("config save", config_save),
    ]


class Requests:
    """A route and a status sent every CHURN_TICK on threads of their own, each answer kept
    with the step under way when it was sent and when it came back."""

    def __init__(self, target: client.Target) -> None:
        self.target = target
        self.step = 0
        self.routes: list[tuple[int, int, float, int, str]] = []  # sent, back, s, entries, fp
        self.statuses: list[tuple[int, float, float, str, bool]] = []  # step, at, s, fp, busy
        self.failures: list[str] = []
        self.stop = threading.Event()
        self.threads = [
            threading.Thread(target=self._loop, args=(self._route,), daemon=True),
            threading.Thread(target=self._loop, args=(self._status,), daemon=True),
        ]
        for thread in self.threads:
            thread.start()

    def _loop(self, send: Callable[[], None]) -> None:
        tick = time.monotonic()
        while not self.stop.is_set():
            try:
                send()
            except Exception as error:  # a request unanswered in time among them
                self.failures.append(repr(error))
            tick += CHURN_TICK
            self.stop.wait(max(0.0, tick - time.monotonic()))
            tick = max(tick, time.monotonic() - CHURN_TICK)

    def _route(self) -> None:
        sent, began = self.step, time.perf_counter()
        reply = client.call(
            self.target, "POST", "/v1/route", {"task": CHURN_TASK}, timeout=CHURN_REQUEST_TIMEOUT
        )
        seconds = time.perf_counter() - began
        held = reply.json()["catalog"]
        self.routes.append((sent, self.step, seconds, held["entries"], held["fingerprint"]))

    def _status(self) -> None:
        step, began = self.step, time.perf_counter()
        reply = client.call(self.target, "GET", "/v1/status", timeout=CHURN_REQUEST_TIMEOUT)
        seconds = time.perf_counter() - began
        now = reply.json()
        self.statuses.append((step, time.monotonic(), seconds, now["fingerprint"], now["updating"]))

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(CHURN_REQUEST_TIMEOUT * 2)


def cold_state(root: Path) -> tuple[str, list[str]]:
    """Return the fingerprint and entry ids of a cold load of `root`, made in a process of
    its own (the requests' threads are not to share an interpreter lock with it)."""
    probe = [sys.executable, "-c", COLD_PROBE, str(root / "kroute.toml")]
    done = subprocess.run(probe, check=True, capture_output=True, text=True)
    fingerprint, ids = json.loads(done.stdout)
    return fingerprint, ids


def served_state(target: client.Target) -> tuple[str, list[str]]:
    listing = client.call(target, "GET", "/v1/catalog", timeout=CHURN_REQUEST_TIMEOUT).json()
    status = client.call(target, "GET", "/v1/status", timeout=CHURN_REQUEST_TIMEOUT).json()
    return status["fingerprint"], [e["id"] for e in listing["entries"]]


def quiet(target: client.Target) -> None:
    """Wait until the daemon has said for CHURN_QUIET that no update is pending."""
    deadline = time.monotonic() + CHURN_SETTLE
    since = time.monotonic()
    while time.monotonic() < deadline:
        status = client.call(target, "GET", "/v1/status", timeout=CHURN_REQUEST_TIMEOUT).json()
        if status["updating"]:
            since = time.monotonic()
        elif time.monotonic() - since >= CHURN_QUIET:
            return
        time.sleep(CHURN_TICK)


def bench_churn(workdir: Path, size: int = CHURN_SIZE, rounds: int = CHURN_ROUNDS) -> str:
    """Return the churn run's figures: a daemon over a git repository of `size` entries
    taken through `rounds` rounds of CHURN_MOVES (branch switches, a shelf renamed away and
    back, the root deleted and checked out again, config saves) while a route and a status
    are sent every CHURN_TICK; after each step settles, the daemon's entries and fingerprint
    are compared with a cold load of the tree."""
    print(f"churn: writing a git repository of {size:,} entries ...", file=sys.stderr, flush=True)
    root = churn_repository(workdir, size)
    env = dict(os.environ)
    cfg = config.load(root / "kroute.toml")
    target = client.target(cfg.root, cfg.file, env)
    launcher.stop(target)
    launcher.start(target, env, wait=600)
    first = cold_state(root)
    fingerprints, counts = [first[0]], [len(first[1])]
    quiet(target)
    if served_state(target) != first:
        raise RuntimeError("the daemon does not serve a cold load's catalog before the churn")
    requests = Requests(target)
    lines, unequal = [], 0
    settle_times: list[float] = []
    try:
        moves = churn_moves(root) * rounds
        for n, (name, make) in enumerate(moves, start=1):
            requests.step = n
            began = time.monotonic()
            make()
            time.sleep(CHURN_QUIET)
            quiet(target)
            want = cold_state(root)
            got = served_state(target)
            equal = got == want
            unequal += not equal
            fingerprints.append(want[0])
            counts.append(len(want[1]))
            ours = [(at, fp, busy) for step, at, _, fp, busy in requests.statuses if step == n]
            last_busy = max((at for at, _, busy in ours if busy), default=began)
            seen = [at for at, fp, busy in ours if at > last_busy and fp == want[0] and not busy]
            settled = (min(seen) - began) if seen else math.nan
            settle_times.append(settled)
            lines.append(
                f"  step {n:2d} {name:34s} {counts[-2]:5,} -> {counts[-1]:5,} entries, "
                f"settled in {settled:5.2f} s, equal to a cold load: {'yes' if equal else 'NO'}"
            )
            print(lines[-1], file=sys.stderr, flush=True)
    finally:
        requests.close()
        launcher.stop(target)
    between = [
        (sent, entries)
        for sent, back, _, entries, fp in requests.routes
        if fp not in fingerprints[max(0, sent - 1) : back + 1]
        or entries not in counts[max(0, sent - 1) : back + 1]
    ]
    route_s = [r[2] for r in requests.routes]
    status_s = [s[2] for s in requests.statuses]
    every = route_s + status_s
    return "\n".join(
        [
            f"Churn: {size:,} entries, {len(moves)} steps, a route and a status every "
            f"{CHURN_TICK * 1000:.0f} ms ({len(route_s):,} routes, {len(status_s):,} statuses, "
            f"{len(requests.failures)} unanswered)",
            *lines,
            f"  max request latency {max(every) * 1000:.0f} ms (routes p50 / p99 / max "
            f"{percentile(route_s, 0.5) * 1000:.1f} / {percentile(route_s, 0.99) * 1000:.1f} / "
            f"{max(route_s) * 1000:.0f} ms; statuses {percentile(status_s, 0.5) * 1000:.1f} / "
            f"{percentile(status_s, 0.99) * 1000:.1f} / {max(status_s) * 1000:.0f} ms)",
            f"  routes answered from a catalog between before and after: {len(between)}"
            + (f" (first: step {between[0][0]}, {between[0][1]} entries)" if between else ""),
            f"  steps whose settled index differs from a cold load: {unequal}",
            f"  settle time after a step: median {statistics.median(settle_times):.2f} s, "
            f"max {max(settle_times):.2f} s",
        ]
    )


def int_list(text: str) -> tuple[int, ...]:
    return tuple(int(part.replace("_", "")) for part in text.split(",") if part.strip())


DEFAULT_SIZES = "1000,10000,100000"
FIRST_PROMPT_SIZES = (1000, 5000)


def first_prompt(args: argparse.Namespace) -> None:
    """Print the first prompts' table (`scripts/firstprompt.py`), or why it was skipped."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import firstprompt

    shared = Path(os.environ.get("KROUTE_SHARED", REPOSITORY.parent / "shared"))
    workdir = (args.keep or args.workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    sizes = int_list(args.sizes) if args.sizes != DEFAULT_SIZES else FIRST_PROMPT_SIZES
    print(firstprompt.bench(workdir, shared / "corpora", sizes, args.first_prompt_runs, args.turn))


def onboarding(args: argparse.Namespace) -> None:
    """Print the onboarding table (`scripts/onboarding.py`): the README's first command in a
    fresh venv, and `kroute mcp`'s initialize beside another checkout's."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import onboarding as first_minutes

    workdir = (args.keep or args.workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    print(first_minutes.bench(workdir, args.against, args.onboarding_runs))


def cold(args: argparse.Namespace, workdir: Path) -> None:
    """Print the cold loads' table (`scripts/coldload.py`): the synthetic catalogs of
    --sizes and --real replicated real documents, beside tantivy's build with --anchors."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import coldload
    import firstprompt

    catalogs = [(f"bench {size:,}", catalog(workdir, size, True, args.fresh)[0])
                for size in int_list(args.sizes)]  # fmt: skip
    shared = Path(os.environ.get("KROUTE_SHARED", REPOSITORY.parent / "shared"))
    if args.real and firstprompt.corpus_files(shared / "corpora"):
        repo = firstprompt.template(workdir, shared / "corpora", args.real)
        catalogs.insert(0, (f"real {args.real:,} (corpora replicated)", repo))
    python, said = anchors_python(workdir) if args.anchors else (None, "")
    if said:
        print(said, file=sys.stderr, flush=True)
    print(coldload.bench(workdir, catalogs, args.cold_rounds, python))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=DEFAULT_SIZES)
    parser.add_argument("--queries", type=int, default=300, help="Short tasks per size.")
    parser.add_argument(
        "--lengths",
        default=",".join(map(str, LENGTHS)),
        help="Task lengths in words to time besides the short tasks ('' for none).",
    )
    parser.add_argument(
        "--length-queries", type=int, default=100, help="Tasks per length and size."
    )
    parser.add_argument(
        "--no-bodies",
        action="store_true",
        help="Write the old catalogs: front matter only, no bodies, no ADRs.",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / f"kroute-bench-{os.getuid()}",
        help="Where catalogs are written and kept for the next run (default: %(default)s).",
    )
    parser.add_argument("--keep", type=Path, help="The same as --workdir (catalogs are kept).")
    parser.add_argument(
        "--fresh", action="store_true", help="Write the catalogs again even when kept ones match."
    )
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON too.")
    parser.add_argument(
        "--hooks",
        action="store_true",
        help="Also time the hooks on the demo, beside a bare curl (a second table).",
    )
    parser.add_argument(
        "--anchors",
        action="store_true",
        help=f"Time {' and '.join(ANCHORS)} beside kroute (installed into {ANCHORS_VENV} "
        "under the workdir the first time).",
    )
    parser.add_argument(
        "--meaning",
        action="store_true",
        help="Also embed every entry (the meaning extra) and time routes with meaning live.",
    )
    parser.add_argument(
        "--first-prompt",
        action="store_true",
        help="Only time the first prompts of a session on fresh clones of 1,000 and 5,000 "
        "real documents (the shared corpora; KROUTE_SHARED names them), under two busy "
        "processes (scripts/firstprompt.py).",
    )
    parser.add_argument("--first-prompt-runs", type=int, default=3, help="Runs per size.")
    parser.add_argument(
        "--turn",
        type=float,
        default=5.0,
        help="With --first-prompt: seconds between the first prompt and the second (the "
        "agent's answer; default %(default)s).",
    )
    parser.add_argument(
        "--churn",
        action="store_true",
        help=f"Only the churn run: a git repository of {CHURN_SIZE:,} entries taken through "
        f"{CHURN_ROUNDS * 6} steps of checkouts, renames, deletions and config saves while "
        "requests keep coming.",
    )
    parser.add_argument(
        "--onboarding",
        action="store_true",
        help="Only the first minutes: the README's first command in a fresh venv (time, size, "
        "packages) and kroute mcp's initialize (scripts/onboarding.py).",
    )
    parser.add_argument(
        "--against", type=Path, help="With --onboarding: another checkout's MCP server, in turn."
    )
    parser.add_argument("--onboarding-runs", type=int, default=5, help="initialize runs each.")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="Only time cold loads (CPU seconds) of the --sizes catalogs and of --real "
        "replicated real documents, beside tantivy's build with --anchors, and the RSS of a "
        "cold-loaded daemon beside one restored from its snapshot (scripts/coldload.py).",
    )
    parser.add_argument("--cold-rounds", type=int, default=2, help="Rounds per catalog.")
    parser.add_argument(
        "--real",
        type=int,
        default=5000,
        help="With --cold: real documents (the shared corpora replicated; 0 for none).",
    )
    args = parser.parse_args()
    if args.cold:
        workdir = (args.keep or args.workdir).resolve()
        workdir.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("KROUTE_HOME", str(workdir / "home"))
        os.environ["XDG_RUNTIME_DIR"] = str(workdir / "run")
        cold(args, workdir)
        return
    if args.first_prompt:
        first_prompt(args)
        return
    if args.onboarding:
        onboarding(args)
        return
    sizes = () if args.churn else int_list(args.sizes)
    lengths = int_list(args.lengths)
    workdir = (args.keep or args.workdir).resolve()
    if workdir == REPOSITORY or REPOSITORY in workdir.parents:
        parser.error(f"--workdir {workdir} is inside the repository; choose a directory outside")
    workdir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("KROUTE_HOME", str(workdir / "home"))
    os.environ["XDG_RUNTIME_DIR"] = str(workdir / "run")
    anchors, said = anchors_python(workdir) if args.anchors else (None, "")
    if said:
        print(said, file=sys.stderr, flush=True)
    if args.churn:
        print(bench_churn(workdir))
        return
    results = []
    for size in sizes:
        print(f"benchmarking {size:,} entries in {workdir} ...", file=sys.stderr, flush=True)
        results.append(
            bench_size(
                size,
                args.queries,
                workdir,
                bodies=not args.no_bodies,
                fresh=args.fresh,
                lengths=lengths,
                length_queries=args.length_queries,
                anchors=anchors,
                meaning=args.meaning,
            )
        )
    if results:
        print(table(results, lengths))
    if args.anchors and anchors is None:
        print(said)  # the anchors could not be installed: the table has no rows of theirs
    if args.hooks:
        print()
        print("Hooks end to end on the demo catalog, beside a bare curl round trip:")
        print(bench_hooks(workdir))
    print()
    print(bench_intent())
    print(bench_symbols())
    print(bench_hostile())
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
