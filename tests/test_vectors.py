"""The daemon's neighbours by meaning, with the real packaged model: made in the background,
logged beside routes in shadow mode (routes unchanged), fused into them in live mode."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from router.serve import client

from conftest import DEMO, kroute

pytest.importorskip("onnxruntime", reason="the meaning extra is not installed")

# The words reach one billing decision; the metering spec and the billing skill share none
# of them ("charge", "use" against "usage", "metering", "billing").
PARAPHRASE = "charge customers for what they use"


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO)


def with_meaning(repo: Path, mode: str) -> client.Target:
    toml = repo / "kroute.toml"
    toml.write_text(toml.read_text() + f'\n[meaning]\nmode = "{mode}"\n')
    started = kroute("start", cwd=repo)
    assert started.returncode == 0, started.stderr
    target = client.target(repo.resolve(), toml.resolve(), os.environ)
    deadline = time.monotonic() + 120  # the demo embeds in seconds; a loaded machine is slow
    while time.monotonic() < deadline:
        status = client.call(target, "GET", "/v1/status").json()
        if status["meaning"]["ready"] or status["meaning"]["error"]:
            break
        time.sleep(0.1)
    assert status["meaning"]["ready"], status["meaning"]
    return target


def route(target: client.Target, task: str, **body: Any) -> dict[str, Any]:
    reply = client.call(target, "POST", "/v1/route", {"task": task, **body})
    assert reply.status == 200
    document: dict[str, Any] = reply.json()
    return document


TASKS = [
    "retry a failed webhook delivery",
    "rotate the webhook signing key",
    "why do we store money as integer cents",
    "how are usage metering events counted",
    "tenant quotas and limits",
] * 4  # twenty routes


def test_shadow_mode_logs_neighbours_beside_unchanged_routes(repo: Path, tmp_path: Path) -> None:
    target = with_meaning(repo, "shadow")
    for task in TASKS:
        shadowed = route(target, task)
        plain = route(target, task, meaning="off")
        assert shadowed["pointers"] == plain["pointers"]
        assert shadowed["meaning"]["mode"] == "shadow" and shadowed["meaning"]["neighbours"]
        assert "meaning" not in plain
    stats = kroute("shadow", "stats", "--json", cwd=repo)
    assert stats.returncode == 0, stats.stderr
    meaning = json.loads(stats.stdout)["all"]["meaning"]
    assert meaning["routes"] >= len(TASKS) and 0 <= meaning["agreement"] <= 1
    page = tmp_path / "report.html"
    reported = kroute("shadow", "report", "--html", str(page), cwd=repo)
    assert reported.returncode == 0, reported.stderr
    html = page.read_text()
    assert "Neighbours by meaning" in html and "the nearest was among the pointers" in html


def test_live_mode_offers_what_only_meaning_finds_with_evidence_in_words(repo: Path) -> None:
    target = with_meaning(repo, "live")
    lexical = route(target, PARAPHRASE, meaning="off")
    live = route(target, PARAPHRASE)
    words = [p["id"] for p in lexical["pointers"]]
    by_meaning = [p for p in live["pointers"] if p["evidence"]["by"] == "meaning"]
    assert words and live["pointers"][0]["id"] == words[0]
    found = {p["id"] for p in by_meaning}
    assert found & {"TW-SPEC-usage-metering", "answer-billing-question"}, live["text"]
    assert not found & set(words)
    evidence = by_meaning[0]["evidence"]
    assert set(evidence) == {"by", "near", "rank", "of"} and evidence["near"]
    assert "no task word reached it; near the task in meaning" in live["text"]


def test_the_words_silence_is_kept_in_live_mode(repo: Path) -> None:
    target = with_meaning(repo, "live")
    quiet = route(target, "add a CITATION.cff so people can cite the engine")
    assert quiet["pointers"] == [] and quiet["silence"] is not None
