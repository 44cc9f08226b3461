"""Churn (`--churn`, issue 31): a git repository of 2,000 entries taken through 30 steps
(branch switches, a shelf renamed away and back, the root deleted and checked out again,
config saves) while a route and a status are sent every 50 ms; it reports the longest
request, any route answered from a catalog other than the one before or after its step, and
whether the index equals a cold load once each step settles."""

from __future__ import annotations

import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.corpus import generate
from bench.probe import percentile
from router import client
from router.catalog import config
from router.serve import launcher

CHURN_SIZE = 2_000
CHURN_ROUNDS = 5  # of the six moves of CHURN_MOVES: 30 steps
CHURN_TICK = 0.05  # a route and a status are each sent this often
CHURN_BRANCH_DOCS = 300  # documents the branch `other` adds (besides a shelf it deletes)
CHURN_QUIET = 1.0  # a step is over once the daemon says no update is pending after this long
CHURN_SETTLE = 120.0  # the longest a step is given to settle before the run says it did not
CHURN_REQUEST_TIMEOUT = 30.0
CHURN_TASK = "rotate the signing key of a failed delivery"
EXCLUDED_SHELF = 'exclude = ["docs/obligations/**"]\n'
# Run by another interpreter: `router` names as they are, not the bench's.
COLD_PROBE = (
    "import json, pathlib, sys\n"
    "from router.catalog import config\n"
    "from router.runtime.engine import Engine\n"
    "e = Engine.load(config.load(pathlib.Path(sys.argv[1]).resolve()))\n"
    "print(json.dumps([e.catalog.fingerprint, [x['id'] for x in e.listing()['entries']]]))\n"
)


def git(root: Path, *args: str) -> None:
    """Run git in `root` as the bench's author; raise CalledProcessError when it fails."""
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
    """Return the fingerprint and entry ids the daemon of `target` serves."""
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


@dataclass(slots=True)
class Steps:
    """What the churn's steps found: per step its line, and the catalogs a cold load of the
    tree held before the first step and after each (fingerprints and entry counts)."""

    fingerprints: list[str]
    counts: list[int]
    lines: list[str] = field(default_factory=list)
    settle_times: list[float] = field(default_factory=list)
    unequal: int = 0


def bench_churn(workdir: Path, size: int = CHURN_SIZE, rounds: int = CHURN_ROUNDS) -> str:
    """Return the churn run's figures: a daemon over a git repository of `size` entries
    taken through `rounds` rounds of CHURN_MOVES (branch switches, a shelf renamed away and
    back, the root deleted and checked out again, config saves) while a route and a status
    are sent every CHURN_TICK; after each step settles, the daemon's entries and fingerprint
    are compared with a cold load of the tree. Raise RuntimeError when the daemon does not
    serve a cold load's catalog before the churn."""
    print(f"churn: writing a git repository of {size:,} entries ...", file=sys.stderr, flush=True)
    root = churn_repository(workdir, size)
    env = dict(os.environ)
    cfg = config.load(root / "kroute.toml")
    target = client.target(cfg.root, cfg.file, env)
    launcher.stop(target)
    launcher.start(target, env, wait=600)
    first = cold_state(root)
    steps = Steps([first[0]], [len(first[1])])
    quiet(target)
    if served_state(target) != first:
        raise RuntimeError("the daemon does not serve a cold load's catalog before the churn")
    requests = Requests(target)
    moves = churn_moves(root) * rounds
    try:
        for n, (name, make) in enumerate(moves, start=1):
            take_step(root, target, requests, steps, n, name, make)
    finally:
        requests.close()
        launcher.stop(target)
    return report(size, len(moves), requests, steps)


def take_step(
    root: Path,
    target: client.Target,
    requests: Requests,
    steps: Steps,
    n: int,
    name: str,
    make: Callable[[], None],
) -> None:
    """Make step `n` and wait until it settles; add to `steps` what a cold load of the tree
    holds then, whether the daemon serves the same, and how long it took to settle."""
    requests.step = n
    began = time.monotonic()
    make()
    time.sleep(CHURN_QUIET)
    quiet(target)
    want = cold_state(root)
    equal = served_state(target) == want
    steps.unequal += not equal
    steps.fingerprints.append(want[0])
    steps.counts.append(len(want[1]))
    ours = [(at, fp, busy) for step, at, _, fp, busy in requests.statuses if step == n]
    last_busy = max((at for at, _, busy in ours if busy), default=began)
    seen = [at for at, fp, busy in ours if at > last_busy and fp == want[0] and not busy]
    settled = (min(seen) - began) if seen else math.nan
    steps.settle_times.append(settled)
    steps.lines.append(
        f"  step {n:2d} {name:34s} {steps.counts[-2]:5,} -> {steps.counts[-1]:5,} entries, "
        f"settled in {settled:5.2f} s, equal to a cold load: {'yes' if equal else 'NO'}"
    )
    print(steps.lines[-1], file=sys.stderr, flush=True)


def report(size: int, moves: int, requests: Requests, steps: Steps) -> str:
    """Return the churn's figures: its steps, the requests' latency, the routes answered
    from a catalog between two steps' and the steps whose index differed from a cold load."""
    fingerprints, counts = steps.fingerprints, steps.counts
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
            f"Churn: {size:,} entries, {moves} steps, a route and a status every "
            f"{CHURN_TICK * 1000:.0f} ms ({len(route_s):,} routes, {len(status_s):,} statuses, "
            f"{len(requests.failures)} unanswered)",
            *steps.lines,
            f"  max request latency {max(every) * 1000:.0f} ms (routes p50 / p99 / max "
            f"{percentile(route_s, 0.5) * 1000:.1f} / {percentile(route_s, 0.99) * 1000:.1f} / "
            f"{max(route_s) * 1000:.0f} ms; statuses {percentile(status_s, 0.5) * 1000:.1f} / "
            f"{percentile(status_s, 0.99) * 1000:.1f} / {max(status_s) * 1000:.0f} ms)",
            f"  routes answered from a catalog between before and after: {len(between)}"
            + (f" (first: step {between[0][0]}, {between[0][1]} entries)" if between else ""),
            f"  steps whose settled index differs from a cold load: {steps.unequal}",
            f"  settle time after a step: median {statistics.median(steps.settle_times):.2f} s, "
            f"max {max(steps.settle_times):.2f} s",
        ]
    )
