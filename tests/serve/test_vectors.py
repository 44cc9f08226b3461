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

from router import client
from testing.model import held_model
from testing.paths import DEMO
from testing.process import kroute

pytestmark = pytest.mark.process

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


def test_routes_and_hooks_are_answered_by_words_while_the_vectors_are_not_ready(
    repo: Path, tmp_path: Path
) -> None:
    # The model is a named pipe: the daemon's meaning process waits at it until the test
    # writes the model in, so every answer before that is given without vectors, whatever
    # the machine's speed.
    from router.meaning import model

    held, packaged = held_model(tmp_path)
    toml = repo / "kroute.toml"
    toml.write_text(toml.read_text() + f'\n[meaning]\nmode = "live"\nmodel = "{held}"\n')
    started = kroute("start", cwd=repo)
    assert started.returncode == 0, started.stderr
    target = client.target(repo.resolve(), toml.resolve(), os.environ)
    try:
        status = client.call(target, "GET", "/v1/status").json()
        assert status["phase"] != "loading" and not status["meaning"]["ready"]
        early = route(target, PARAPHRASE)
        assert early["meaning"] == {"mode": "live", "ready": False, "neighbours": []}
        assert early["pointers"] == route(target, PARAPHRASE, meaning="off")["pointers"]
        assert all(
            p["evidence"]["by"] != "meaning" and "meaning" not in p["evidence"]
            for p in early["pointers"]
        )
        payload = json.dumps({"session_id": "s", "cwd": str(repo), "prompt": PARAPHRASE})
        hooked = client.call(target, "POST", "/v1/hook/claude/UserPromptSubmit", payload.encode())
        assert hooked.status == 200 and b"near the task in meaning" not in hooked.body
        assert hooked.body.strip(), "the hook printed nothing"
    finally:
        with open(held / model.MODEL_NAME, "wb") as pipe:  # let the process read the model
            pipe.write(packaged.read_bytes())
    deadline = time.monotonic() + 120
    while not status["meaning"]["ready"] and time.monotonic() < deadline:
        time.sleep(0.1)
        status = client.call(target, "GET", "/v1/status").json()
    assert status["meaning"]["ready"], status["meaning"]
    fused = route(target, PARAPHRASE)
    assert fused["meaning"]["ready"] and fused["meaning"]["neighbours"]
    assert any(
        "meaning" in p["evidence"] or p["evidence"]["by"] == "meaning" for p in fused["pointers"]
    )


def fused_bytes(target: client.Target, task: str) -> bytes:
    """Return a live route's answer once it is fused: a route whose task vector came past
    its wait (a loaded machine) is answered by words alone, and is asked again."""
    for _ in range(20):
        reply = client.call(target, "POST", "/v1/route", {"task": task})
        if reply.json()["meaning"]["ready"]:
            return reply.body
    raise AssertionError(f"no fused answer to {task!r}: {reply.body!r}")


def test_a_live_route_gives_the_same_bytes_across_a_daemon_restart(repo: Path) -> None:
    # the first daemon's meaning process embeds every entry; the second's reads the cache
    tasks = [PARAPHRASE, "retry a failed webhook delivery", "why do we store money as cents"]
    target = with_meaning(repo, "live")
    before = [fused_bytes(target, t) for t in tasks]
    assert kroute("stop", cwd=repo).returncode == 0
    started = kroute("start", cwd=repo)
    assert started.returncode == 0, started.stderr
    deadline = time.monotonic() + 120
    status = client.call(target, "GET", "/v1/status").json()
    while not status["meaning"]["ready"] and time.monotonic() < deadline:
        time.sleep(0.1)
        status = client.call(target, "GET", "/v1/status").json()
    assert status["meaning"]["ready"], status["meaning"]
    assert status["meaning"]["embedded"] == 0  # every vector came from the cache
    after = [fused_bytes(target, t) for t in tasks]
    assert after == before
    assert all(b'"meaning"' in body for body in after)
