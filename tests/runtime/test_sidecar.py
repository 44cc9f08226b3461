"""The daemon's meaning process, with real processes and the real packaged model: started
only when meaning is on, the daemon free of the model's runtime and answering while the
process loads it, a killed process started again, and no process left behind by a daemon
that stops or is killed."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from router import client
from testing.model import held_model
from testing.paths import DEMO
from testing.process import kroute

pytest.importorskip("onnxruntime", reason="the meaning extra is not installed")
pytestmark = pytest.mark.process

PARAPHRASE = "charge customers for what they use"  # reached by meaning, not by words
WAIT_S = 120  # the longest a loaded machine is given to load the model and embed the demo


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO)


def start(repo: Path, meaning: str) -> client.Target:
    toml = repo / "kroute.toml"
    toml.write_text(toml.read_text() + meaning)
    started = kroute("start", cwd=repo)
    assert started.returncode == 0, started.stderr
    return client.target(repo.resolve(), toml.resolve(), os.environ)


def status(target: client.Target) -> dict[str, Any]:
    reply = client.call(target, "GET", "/v1/status")
    assert reply.status == 200
    document: dict[str, Any] = reply.json()
    return document


def until(target: client.Target, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_S
    found = status(target)
    while not test(found) and time.monotonic() < deadline:
        time.sleep(0.1)
        found = status(target)
    assert test(found), found["meaning"]
    return found


def route(target: client.Target, task: str) -> dict[str, Any]:
    reply = client.call(target, "POST", "/v1/route", {"task": task})
    assert reply.status == 200, reply.body
    document: dict[str, Any] = reply.json()
    return document


def maps(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


def gone(pid: int) -> bool:
    """Return whether the process has exited (a zombie not yet reaped has)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.update(int(c) for c in (task / "children").read_text().split())
    return {c for c in found if not gone(c)}


def wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + 30
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return gone(pid)


needs_proc = pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")


@needs_proc
def test_status_answers_and_routes_use_words_while_the_process_loads_the_model(
    repo: Path, tmp_path: Path
) -> None:
    held, packaged = held_model(tmp_path)
    target = start(repo, f'\n[meaning]\nmode = "live"\nmodel = "{held}"\n')
    # the process has started and waits at the pipe for its model
    loading = until(target, lambda s: s["meaning"]["process"]["pid"] is not None)
    meaning = loading["meaning"]
    assert meaning["process"]["phase"] == "loading the model" and not meaning["ready"]
    child = meaning["process"]["pid"]
    assert parent_of(child) == loading["pid"]
    for _ in range(5):
        assert status(target)["meaning"]["process"]["phase"] == "loading the model"
        early = route(target, PARAPHRASE)
        assert early["meaning"] == {"mode": "live", "ready": False, "neighbours": []}
        assert all(p["evidence"]["by"] != "meaning" for p in early["pointers"])
    with open(held / "model.onnx", "wb") as pipe:
        pipe.write(packaged.read_bytes())
    ready = until(target, lambda s: s["meaning"]["ready"])
    assert ready["meaning"]["process"]["pid"] == child and ready["meaning"]["entries"] > 0
    fused = route(target, PARAPHRASE)
    assert fused["meaning"]["ready"] and fused["meaning"]["neighbours"]
    assert any(p["evidence"]["by"] == "meaning" for p in fused["pointers"])
    # the model's runtime is mapped in the meaning process, never in the daemon
    assert "onnxruntime" in maps(child)
    daemon = maps(ready["pid"])
    assert "onnxruntime" not in daemon and "tokenizers" not in daemon


@needs_proc
def test_a_killed_meaning_process_is_started_again_and_routes_answer_throughout(
    repo: Path,
) -> None:
    target = start(repo, '\n[meaning]\nmode = "live"\n')
    first = until(target, lambda s: s["meaning"]["ready"])["meaning"]["process"]["pid"]
    os.kill(first, signal.SIGKILL)
    assert wait_gone(first)
    routed = [route(target, PARAPHRASE) for _ in range(5)]  # answered, by words or fused
    assert all(r["pointers"] for r in routed)
    again = until(
        target,
        lambda s: s["meaning"]["ready"] and s["meaning"]["process"]["pid"] not in (None, first),
    )
    process = again["meaning"]["process"]
    assert process["restarts"] == 1 and "signal 9" in process["last_failure"]
    assert again["meaning"]["error"] is None
    assert again["meaning"]["embedded"] == 0  # the new process read every vector it cached
    fused = route(target, PARAPHRASE)
    assert fused["meaning"]["ready"] and fused["meaning"]["neighbours"]


@needs_proc
def test_a_daemon_killed_with_9_leaves_no_meaning_process(repo: Path, tmp_path: Path) -> None:
    # the hardest moment: the process is blocked loading its model, not reading its pipe
    held, _ = held_model(tmp_path)
    target = start(repo, f'\n[meaning]\nmode = "live"\nmodel = "{held}"\n')
    found = until(target, lambda s: s["meaning"]["process"]["pid"] is not None)
    child = found["meaning"]["process"]["pid"]
    assert not gone(child)
    os.kill(found["pid"], signal.SIGKILL)
    assert wait_gone(found["pid"])
    assert wait_gone(child), f"the meaning process {child} outlived its daemon"


@needs_proc
def test_a_stopped_daemon_ends_its_meaning_process(repo: Path) -> None:
    target = start(repo, '\n[meaning]\nmode = "live"\n')
    child = until(target, lambda s: s["meaning"]["ready"])["meaning"]["process"]["pid"]
    assert kroute("stop", cwd=repo).returncode == 0
    assert wait_gone(child)


@needs_proc
def test_no_meaning_process_is_started_with_meaning_off(repo: Path) -> None:
    target = start(repo, '\n[meaning]\nmode = "off"\n')
    found = until(target, lambda s: s["phase"] == "ready")
    route(target, PARAPHRASE)
    found = status(target)
    assert found["meaning"]["process"] == {
        "pid": None,
        "phase": "stopped",
        "restarts": 0,
        "last_failure": None,
    }
    assert children(found["pid"]) == set()


def test_a_model_that_cannot_load_is_shown_logged_once_and_routes_use_words(
    repo: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-model.onnx"
    target = start(repo, f'\n[meaning]\nmode = "live"\nmodel = "{missing}"\n')
    # the first process refuses its model; one more after the first backoff refuses it too
    found = until(target, lambda s: s["meaning"]["process"]["restarts"] >= 1)
    found = until(target, lambda s: s["meaning"]["process"]["phase"] == "waiting to start again")
    meaning = found["meaning"]
    assert not meaning["ready"] and str(missing) in meaning["error"]
    assert meaning["error"] == meaning["process"]["last_failure"]
    answer = route(target, PARAPHRASE)
    assert answer["pointers"] and answer["meaning"]["ready"] is False
    logged = target.places.log.read_text()
    assert logged.count(f"neighbours by meaning unavailable: {meaning['error']}") == 1
