"""Probes: one route through the daemon's socket (its status, the seconds end to end and
inside the daemon), clients routing at once, curl, and a process's CPU seconds and RSS."""

from __future__ import annotations

import json
import math
import os
import socket
import statistics
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

# Many hooks at once (several agents, a pre-commit over many files): clients routing back to
# back for this long, at each of these counts (issue 33: the routes/s of 64 at least those of
# 8; past MAX_HANDLERS, 100 wait for a thread).
CROWDS = (8, 64, 100)
CROWD_SECONDS = 10.0


def percentile(values: list[float], q: float) -> float:
    """Return the `q` quantile of `values` (nearest rank)."""
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
    """Return the seconds one curl of `path` over the Unix socket took, curl's start included."""
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
    """Return the resident set size of process `pid` in MiB, NaN when /proc does not say."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# -- the anchors: tantivy and bm25s on the same entries and tasks (issue 15) -------------------
