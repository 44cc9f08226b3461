"""The bench package (`python scripts/bench.py`): its corpus generator, tasks and table in
process, and a whole run on a tiny catalog (real files, a real daemon, real curl), so that
the benchmark the README's figures come from cannot break unseen. Its figures are not
asserted: timing lives in the benchmark, not in tests."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import cache, cli, corpus, table, task
from bench.suite import imports
from router.catalog import config
from router.runtime.engine import Engine
from testing.paths import REPO

BENCH = REPO / "scripts" / "bench.py"


def files_of(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_task_streams_are_fixed_and_distinct() -> None:
    governed = ["src/a.py", "src/b.py"]
    first = task.tasks(1000, governed, 30)
    assert first == task.tasks(1000, governed, 30)
    warm = task.tasks(1000, governed, 30, stream="warm")
    assert warm == task.tasks(1000, governed, 30, stream="warm")
    assert not set(first) & set(warm)
    assert sum(any(path in t for path in governed) for t in first) >= 3  # a tenth name one


def test_long_tasks_have_the_words_asked_and_paste_a_trace_from_a_thousand() -> None:
    for length in (10, 100, 1000):
        (made,) = task.long_tasks(1000, ["src/a.py"], length, 1)
        assert len(made.split()) == length
        assert ("Traceback (most recent call last):" in made) == (length >= 1000)


def test_the_generator_writes_the_same_catalog_twice_and_kroute_indexes_all_of_it(
    tmp_path: Path,
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    made = corpus.generate(one, 120)
    corpus.generate(two, 120)
    assert files_of(one) == files_of(two)
    annexes = list((one / "docs" / "annexes").glob("*.catalog.json"))
    assert made["markdown"] == 108 and made["annex_rows"] == 12 and len(annexes) == 1
    assert made["adrs"] > 0 and made["body_words"] >= 300 * made["markdown"]
    assert len(made["governed"]) == 11  # every tenth Markdown document governs a path
    engine = Engine.load(config.load(one / "kroute.toml"))
    assert len(engine.index) == 120
    ids = {entry["id"] for entry in engine.listing()["entries"]}
    assert {f"annex-{n:06d}" for n in range(12)} <= ids


def test_without_bodies_the_front_matter_is_the_same(tmp_path: Path) -> None:
    full, bare = tmp_path / "full", tmp_path / "bare"
    full.mkdir()
    bare.mkdir()
    with_bodies = corpus.generate(full, 60)
    without = corpus.generate(bare, 60, bodies=False)
    assert with_bodies["governed"] == without["governed"] and without["adrs"] == 0
    for path in (bare / "docs").rglob("*.md"):
        kept = full / path.relative_to(bare)
        if kept.exists():  # not turned into an ADR
            assert kept.read_text().split("\n---\n")[0] == path.read_text().split("\n---\n")[0]


def test_a_kept_catalog_is_reused_until_asked_afresh(tmp_path: Path) -> None:
    root, first = cache.catalog(tmp_path, 50, True, fresh=False)
    assert first["generate_s"] is not None
    again_root, again = cache.catalog(tmp_path, 50, True, fresh=False)
    assert again_root == root and again["generate_s"] is None
    assert again["governed"] == first["governed"]
    (root / "docs" / "decisions" / "bench-0.md").write_text("---\nid: X\n---\n")
    cache.remove_bench_files(root)
    assert not list((root / "docs" / "decisions").glob("bench-*.md"))
    assert cache.catalog(tmp_path, 50, True, fresh=True)[1]["generate_s"] is not None


def result(entries: int, anchors: bool = False) -> dict[str, Any]:
    """A result as `bench_size` returns it, every figure `value`: the table's shape is what
    these tests read, not its figures."""
    value = 1.5
    crowd = {"routes_per_s": value, "p50_ms": value, "p99_ms": value, "failures": 0, "cores": 1}
    length = {"tasks": 5, "refused": 0, "chars_p50": 60, "daemon_p50_ms": value}
    length |= {"daemon_p99_ms": value, "socket_p50_ms": value, "socket_p99_ms": value}
    out: dict[str, Any] = dict.fromkeys(
        [key for _, key in re.findall(r'number\("([^"]+)", "(\w+)"\)', table_source())], value
    )
    out |= {
        "entries": entries,
        "markdown": entries,
        "adrs": 0,
        "annex_rows": 0,
        "generate_s": None,
        "snapshot_mib": value,
        "snapshot_write_s": value,
        "daemon_load": {"seconds": value},
        "daemon_restart_load": {"seconds": value},
        "route_in_daemon_first_p50_ms": value,
        "route_in_daemon_first_p99_ms": value,
        "lengths": {"10": length},
        "crowds": {str(n): crowd for n in (8, 64, 100)},
        "anchors": None,
        "meaning": None,
    }
    if anchors:
        figures: dict[str, object] = {
            "tasks": 5,
            "refused": 0,
            "answered": 5,
            "pointers": 5,
            "common": 2.0,
        }
        figures |= {"held": {"tantivy": 3, "bm25s": 2}}
        for engine in ("kroute", "tantivy", "bm25s"):
            figures |= {f"{engine}_p50_ms": value, f"{engine}_p99_ms": value}
        out["anchors"] = {
            "versions": {"tantivy": "0.27", "bm25s": "0.2"},
            "build_s": {"tantivy": value, "bm25s": value},
            "rss_mib": value,
            "sets": {"short": figures, "10": figures},
            "crowds": {str(n): {"kroute": crowd, "tantivy": crowd} for n in (8, 64, 100)},
        }
    return out


def table_source() -> str:
    return Path(table.__file__).read_text(encoding="utf-8")


def rows_of(text: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()]


def test_the_table_has_a_column_a_size_and_the_anchors_rows_only_when_measured() -> None:
    plain = rows_of(table.table([result(200), result(1000)], (10,)))
    assert plain[0] == ["measure", "200", "1,000"]
    assert all(len(row) == 3 for row in plain)
    labels = [row[0] for row in plain]
    assert "10-word tasks, in daemon p50 / p99 (ms)" in labels
    assert not any("tantivy" in label for label in labels)
    assert plain[labels.index("generate catalog (s)")][1:] == ["reused", "reused"]
    beside = rows_of(table.table([result(200, anchors=True), result(1000)], (10,)))
    extra = [row for row in beside if row[0] not in labels]
    assert extra and all(len(row) == 3 for row in extra)
    ratio = next(row for row in extra if row[0].startswith("kroute / tantivy p50"))
    assert ratio[1:] == ["1.0 / 1.0", "-"]  # equal figures; the size without anchors says -


def test_every_option_the_readme_gives_bench_is_one_it_takes() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    given = {flag for line in readme.splitlines() if "bench.py" in line
             for flag in re.findall(r"(--[a-z][a-z-]+)", line.split("bench.py", 1)[1])}  # fmt: skip
    options = set(cli.parser()._option_string_actions)
    assert given and given <= options, given - options


def test_the_importtime_report_is_read_by_module() -> None:
    report = (
        "import time: self [us] | cumulative | imported package\n"
        "import time:       157 |        157 |   _io\n"
        "import time:       399 |        887 | _frozen_importlib_external\n"
        "Traceback: not a line of the report\n"
    )
    assert imports.parse(report) == {"_io": (157, 157), "_frozen_importlib_external": (399, 887)}


@pytest.mark.process
def test_the_imports_suite_names_what_each_command_imports(tmp_path: Path) -> None:
    out = imports.bench_imports(tmp_path, runs=1)
    rows = {row[0]: row for row in rows_of(out) if len(row) == 8}
    assert set(rows) >= {"`python -c pass`", "`kroute route TASK`", "`kroute stop`"}
    for label, row in rows.items():
        if label.startswith("`kroute") or label.startswith("hook"):
            assert row[-1] == "0", row  # each ran with a daemon up and exited 0
            assert int(row[4]) > 0 and int(row[5]) > 0  # it imports kroute's modules
    assert rows["`python -c pass`"][4] == "0"


@pytest.mark.process
@pytest.mark.skipif(shutil.which("curl") is None, reason="bench.py times curl; none installed")
def test_a_small_run_prints_the_table_and_its_figures(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable, str(BENCH), "--sizes", "200", "--queries", "20", "--lengths", "10",
            "--length-queries", "5", "--crowd-seconds", "1", "--workdir", str(tmp_path / "work"),
            "--json",
        ],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    table_text, _, figures = done.stdout.partition("\n[\n")
    assert "| route p50 / p99 in daemon, first routes after a restart (ms) |" in table_text
    assert "| 10-word tasks, in daemon p50 / p99 (ms) |" in table_text
    head = table_text.splitlines()[0]
    assert head == "| measure | 200 |"
    (result_,) = json.loads("[\n" + figures)
    assert result_["entries"] == 200 and result_["indexed"] == 200
    for key in ("route_in_daemon_p50_ms", "route_in_daemon_first_p50_ms", "cold_load_s"):
        assert result_[key] > 0, key
    assert "intent: classifying" in table_text and "hostile fixture catalog" in table_text


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


@pytest.mark.process
def test_a_workdir_inside_the_checkout_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--sizes", "", "--workdir", str(REPO / "bench-work")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and "inside the repository" in done.stderr
    assert not (REPO / "bench-work").exists()
