"""Every route emitted through the CLI, the socket or a hook adds one shadow line; the review
commands read them back."""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from router import __version__, client
from router.catalog import config
from router.client import locate
from router.logbook import recorder, shadow
from router.runtime.engine import Engine
from router.serve import service
from testing.paths import CHROMIUM, DEMO
from testing.process import kroute
from testing.records import shadow_lines

FIELDS = {
    "schema", "at", "engine_version", "catalog_fingerprint", "config_digest", "source",
    "session", "prompt_id", "cwd", "mode", "injected", "task", "request", "status", "silence",
    "pointers", "withheld", "intent", "text", "elapsed_us", "skip",
}  # fmt: skip


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO).resolve()


@pytest.mark.process
def test_cli_socket_and_daemon_routes_each_add_one_line(repo: Path) -> None:
    kroute("route", "--no-daemon", "retry a failed delivery", cwd=repo)
    assert [r["source"] for r in shadow_lines(repo)] == ["cli"]
    kroute("route", "rotate the webhook signing key", cwd=repo)  # starts a daemon, asks it
    target = client.target(repo, repo / "kroute.toml", os.environ)
    subprocess.run(
        [
            "curl",
            "-s",
            "--unix-socket",
            str(target.places.socket),
            "http://kroute/v1/route",
            "-d",
            '{"task": "add a column to the events table"}',
        ],
        check=True,
        capture_output=True,
    )
    records = shadow_lines(repo, expected=3)
    assert [r["source"] for r in records] == ["cli", "cli", "socket"]
    for record in records:
        assert set(record) == FIELDS
        assert record["mode"] == "live" and record["injected"] is False
        assert record["pointers"] and record["text"]
    assert records[1]["task"] == "rotate the webhook signing key"


@pytest.mark.process
def test_mode_off_logs_nothing(repo: Path) -> None:
    text = (repo / "kroute.toml").read_text().replace('mode = "live"', 'mode = "off"')
    (repo / "kroute.toml").write_text(text)
    kroute("route", "--no-daemon", "retry a failed delivery", cwd=repo)
    assert shadow_lines(repo) == []


def test_strictest_mode_wins() -> None:
    assert recorder.strictest("live", "shadow") == "shadow"
    assert recorder.strictest("off", "live") == "off"
    assert recorder.strictest("live", None) == "live"
    assert recorder.strictest("live", "bogus") == "live"


@pytest.mark.process
def test_review_commands_over_two_engine_versions(repo: Path, tmp_path: Path) -> None:
    engine = Engine.load(config.load(repo / "kroute.toml"))
    rec = recorder.for_engine(engine, os.environ)
    tasks = ["retry a failed delivery", "rotate the webhook signing key", "weather on mars"]
    for task in tasks:
        service.App(engine, rec).answer("POST", "/v1/route", service.encode({"task": task}), "cli")
    engine.version = "9.9.9"  # the same catalog, routed by a "later" engine that offers less
    for task in tasks:
        service.App(engine, rec).answer(
            "POST", "/v1/route", service.encode({"task": task, "budget": 1}), "cli"
        )
    assert len(shadow_lines(repo, expected=6)) == 6

    stats = json.loads(kroute("shadow", "stats", "--json", cwd=repo).stdout)
    assert stats["versions"] == [__version__, "9.9.9"]
    assert stats["all"]["routes"] == 6
    diff = kroute(
        "shadow", "diff", "--from", stats["versions"][0], "--to", "9.9.9", "--json", cwd=repo
    )
    changed = json.loads(diff.stdout)["tasks"]
    vanished = {t["task"]: t["vanished"] for t in changed}
    assert vanished["retry a failed delivery"]  # budget 1 dropped pointers

    replay = json.loads(kroute("shadow", "replay", "--json", cwd=repo).stdout)
    assert replay["summary"]["tasks"] == 6
    assert replay["summary"]["mismatched"] == 0  # same catalog, same requests: same routes
    (repo / "docs" / "how-to" / "redeliver-failed-webhook.md").unlink()
    replay = json.loads(kroute("shadow", "replay", "--json", cwd=repo).stdout)
    assert replay["summary"]["mismatched"] >= 1

    page = tmp_path / "report.html"
    assert kroute("shadow", "report", "--html", str(page), cwd=repo).returncode == 0
    html = page.read_text()
    assert "<svg" in html and "9.9.9" in html and "http://" not in html and "https://" not in html

    tail = kroute("shadow", "tail", "-n", "2", cwd=repo)
    assert len(tail.stdout.splitlines()) == 2
    assert (
        kroute("shadow", "path", cwd=repo)
        .stdout.strip()
        .endswith(locate.key(repo, repo / "kroute.toml"))
    )


@pytest.mark.process
def test_after_a_catalog_edit_diff_and_report_compare_the_two_catalogs(
    repo: Path, tmp_path: Path
) -> None:
    tasks = ["retry a failed webhook delivery", "rotate the webhook signing key"]
    for task in tasks:
        assert kroute("route", "--no-daemon", task, cwd=repo).returncode == 0
    (repo / "docs" / "how-to" / "redeliver-failed-webhook.md").unlink()  # the catalog edit
    for task in tasks:
        assert kroute("route", "--no-daemon", task, cwd=repo).returncode == 0
    before, *_, after = shadow_lines(repo, expected=4)
    assert before["catalog_fingerprint"] != after["catalog_fingerprint"]

    shown = kroute("shadow", "diff", cwd=repo)  # no --from, no --to: the last two
    assert shown.returncode == 0, shown.stderr
    head = shown.stdout.splitlines()[0]
    assert head.startswith(
        f"diff {before['catalog_fingerprint']} -> {after['catalog_fingerprint']}"
    )
    assert "1 changed" in head and "vanished" in shown.stdout
    assert "fingerprints with routes, the last routed last:" in shown.stdout
    assert f"  {__version__}  4 routes" in shown.stdout  # the engine version, listed
    as_json = json.loads(kroute("shadow", "diff", "--json", cwd=repo).stdout)
    assert as_json["by"] == "fingerprint" and as_json["summary"]["changed"] == 1
    assert [v["value"] for v in as_json["versions"]["fingerprint"]] == [
        before["catalog_fingerprint"],
        after["catalog_fingerprint"],
    ]
    half = kroute("shadow", "diff", "--from", before["catalog_fingerprint"], cwd=repo)
    assert half.returncode == 2 and "give both --from and --to, or neither" in half.stderr
    one = kroute("shadow", "diff", "--by", "version", cwd=repo)
    assert one.returncode == 1 and "fewer than two versions" in one.stderr

    page = tmp_path / "report.html"
    assert kroute("shadow", "report", "--html", str(page), cwd=repo).returncode == 0
    html = page.read_text()
    assert "nothing to compare" not in html
    assert f'<td class="l">{after["catalog_fingerprint"]}</td>' in html


@pytest.mark.process
def test_review_without_a_log_says_so(repo: Path) -> None:
    result = kroute("shadow", "stats", cwd=repo)
    assert result.returncode == 1 and "no shadow log yet" in result.stderr


@pytest.mark.process
@pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium is installed")
def test_the_html_report_renders_in_a_browser_without_network(repo: Path, tmp_path: Path) -> None:
    engine = Engine.load(config.load(repo / "kroute.toml"))
    service.App(engine, recorder.for_engine(engine, os.environ)).answer(
        "POST", "/v1/route", service.encode({"task": "retry a failed delivery"}), "cli"
    )
    page = tmp_path / "report.html"
    assert kroute("shadow", "report", "--html", str(page), cwd=repo).returncode == 0
    shot = tmp_path / "report.png"
    subprocess.run(
        [
            str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
            "--proxy-server=127.0.0.1:9",  # any network request would fail
            f"--screenshot={shot}", "--window-size=1000,1200", page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )  # fmt: skip
    assert shot.is_file() and shot.stat().st_size > 10_000


def test_a_full_disk_never_fails_a_route_and_is_counted(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = Engine.load(config.load(repo / "kroute.toml"))
    day = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    rec = recorder.Recorder(tmp_path / "state", "abc", now=lambda: day)
    log = shadow.log_path(rec.state, rec.repo_id, "2026-03-01")
    log.parent.mkdir(parents=True)
    log.write_text("{}\n")
    # The log is not followed through a symlink (so not to /dev/full): a file size limit
    # makes every write to it fail instead, as a full disk would.
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    xfsz = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    full = open("/dev/full", "w")  # noqa: SIM115 - stderr on the same full disk
    monkeypatch.setattr(sys, "stderr", full)
    app = service.App(engine, rec)
    resource.setrlimit(resource.RLIMIT_FSIZE, (log.stat().st_size, limit[1]))
    try:
        answer = app.answer("POST", "/v1/route", service.encode({"task": "retry a delivery"}))
        hooked = app.answer(
            "POST",
            "/v1/hook/pipe/route",
            service.encode({"task": "retry a delivery", "cwd": str(repo)}),
        )
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limit)
        signal.signal(signal.SIGXFSZ, xfsz)
    monkeypatch.undo()
    with contextlib.suppress(OSError):  # what it buffered cannot be flushed either
        full.close()
    assert answer.status == 200 and answer.document["pointers"]
    assert hooked.status == 200
    assert rec.losses.unwritten == 2 and "File too large" in (rec.losses.last or "")


@pytest.mark.process
def test_redact_logs_digests_and_replay_skips_them(repo: Path) -> None:
    toml = repo / "kroute.toml"
    toml.write_text(toml.read_text().replace('mode = "live"', 'mode = "live"\nredact = true'))
    task = "retry a failed webhook delivery"
    shown = kroute("route", "--no-daemon", task, cwd=repo)
    assert shown.returncode == 0 and "webhook" in shown.stdout  # the answer keeps its words
    (line,) = shadow_lines(repo, 1)
    assert line["redacted"] is True
    assert line["task"] == shadow.digest(task) and line["task"].startswith("sha256:")
    assert len(line["task"]) == len("sha256:") + shadow.DIGEST_HEX
    assert line["text"] == shadow.digest(shown.stdout.rstrip("\n"))
    # no word of the task is stored, but in the names of the documents offered
    kept = {**line, "pointers": [p["evidence"] for p in line["pointers"]]}
    stored = json.dumps(kept).lower()
    assert not [w for w in ("retry", "failed", "webhook", "delivery") if w in stored]
    assert all(set(p["evidence"]) <= set(shadow.KEPT_EVIDENCE) for p in line["pointers"])
    replayed = kroute("shadow", "replay", "--json", cwd=repo)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["redacted"] == 1
    assert "1 redacted route(s) skipped" in replayed.stderr
    documents = json.loads(kroute("shadow", "documents", "--json", cwd=repo).stdout)
    assert documents["routes"] == 1 and documents["offered"][0]["offered"] == 1
    entries = Engine.load(config.load(toml)).listing()["entries"]
    assert len(documents["offered"]) + len(documents["never"]) == len(entries)
