"""scripts/bench.py: a whole run on a tiny catalog (real files, a real daemon, real curl), so
that the benchmark the README's figures come from cannot break unseen. Its figures are not
asserted: timing lives in the benchmark, not in tests."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from testing.paths import REPO

BENCH = REPO / "scripts" / "bench.py"


def bench_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_task_streams_are_fixed_and_distinct() -> None:
    bench = bench_module()
    governed = ["src/a.py", "src/b.py"]
    first = bench.tasks(1000, governed, 30)
    assert first == bench.tasks(1000, governed, 30)
    warm = bench.tasks(1000, governed, 30, stream="warm")
    assert warm == bench.tasks(1000, governed, 30, stream="warm")
    assert not set(first) & set(warm)


@pytest.mark.process
@pytest.mark.skipif(shutil.which("curl") is None, reason="bench.py times curl; none installed")
def test_a_small_run_prints_the_table_and_its_figures(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable, str(BENCH), "--sizes", "200", "--queries", "20", "--lengths", "10",
            "--length-queries", "5", "--workdir", str(tmp_path / "work"), "--json",
        ],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    table, _, figures = done.stdout.partition("\n[\n")
    assert "| route p50 / p99 in daemon, first routes after a restart (ms) |" in table
    assert "| 10-word tasks, in daemon p50 / p99 (ms) |" in table
    (result,) = json.loads("[\n" + figures)
    assert result["entries"] == 200 and result["indexed"] == 200
    for key in ("route_in_daemon_p50_ms", "route_in_daemon_first_p50_ms", "cold_load_s"):
        assert result[key] > 0, key


@pytest.mark.process
def test_the_first_prompt_bench_says_it_skipped_without_the_shared_corpora(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--first-prompt", "--workdir", str(tmp_path / "work")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "KROUTE_SHARED": str(tmp_path / "absent")},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "first prompt: skipped, no shared corpora" in done.stdout
