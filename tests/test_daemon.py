"""The daemon as a real process: socket, HTTP, watching, recovery, version handshake."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from router.logbook import shadow
from router.serve import client

from conftest import DEMO, heavy_imports, kroute

EM = "\u2014"


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO)


@pytest.fixture
def running(repo: Path) -> client.Target:
    started = kroute("start", cwd=repo)
    assert started.returncode == 0, started.stderr
    return client.target(repo.resolve(), (repo / "kroute.toml").resolve(), os.environ)


def curl(target: client.Target, path: str, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    result = subprocess.run(
        [
            "curl",
            "-s",
            "-w",
            "\n%{http_code}",
            "--unix-socket",
            str(target.places.socket),
            f"http://kroute{path}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    body, _, code = result.stdout.rpartition("\n")
    return int(code), json.loads(body)


def eventually(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Wait for a condition the daemon reaches asynchronously (not a timing assertion)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()


def pointer_ids(target: client.Target, task: str) -> list[str]:
    return [
        p["id"] for p in client.call(target, "POST", "/v1/route", {"task": task}).json()["pointers"]
    ]


def test_curl_is_a_client(running: client.Target) -> None:
    code, doc = curl(running, "/v1/route", "-d", '{"task": "rotate the webhook signing key"}')
    assert code == 200
    assert doc["schema"] == "kroute.route/1"
    assert doc["pointers"] and all(
        EM in line for line in doc["text"].splitlines()[::2][: len(doc["pointers"])]
    )
    code, status = curl(running, "/v1/status")
    assert code == 200 and status["entries"] >= 40 and status["pid"] > 0


def test_socket_and_directory_modes(running: client.Target) -> None:
    assert stat.S_IMODE(running.places.socket.stat().st_mode) == 0o600
    assert stat.S_IMODE(running.places.runtime.stat().st_mode) == 0o700
    status = json.loads(running.places.status.read_text())
    assert set(status) >= {"pid", "socket", "version", "root", "started_at"}


@pytest.mark.parametrize(
    ("args", "code", "error"),
    [
        (("/v1/route", "-d", "{not json"), 400, "bad_json"),
        (("/v1/route", "-d", "[1, 2]"), 400, "bad_request"),
        (("/v1/route", "-d", '{"task": 5}'), 400, "bad_request"),
        (("/v1/nowhere", "-d", "{}"), 404, "not_found"),
        (("/v1/route", "-X", "GET"), 405, "method_not_allowed"),
        (("/v1/status", "-X", "DELETE"), 405, "method_not_allowed"),
    ],
)
def test_bad_requests_get_their_status_and_the_daemon_keeps_serving(
    running: client.Target, args: tuple[str, ...], code: int, error: str
) -> None:
    got, doc = curl(running, *args)
    assert (got, doc["error"]["code"]) == (code, error)
    assert doc["error"]["message"]
    assert pointer_ids(running, "rotate the webhook signing key")


def test_oversized_body_is_413(running: client.Target, tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"task": "x" * (1024 * 1024 + 10)}))
    got, doc = curl(running, "/v1/route", "--data-binary", f"@{big}")
    assert got == 413 and doc["error"]["code"] == "too_large"
    assert pointer_ids(running, "rotate the webhook signing key")


def test_an_edit_on_disk_reaches_the_next_route(running: client.Target, repo: Path) -> None:
    new = repo / "docs" / "decisions" / "0100-quokka.md"
    new.write_text("---\nid: TW-DR-0100\ntitle: Quokka\nsummary: zanzibar quokka policy\n---\n")
    assert eventually(lambda: pointer_ids(running, "zanzibar quokka") == ["TW-DR-0100"])
    new.write_text("---\nid: TW-DR-0100\ntitle: Quokka\nsummary: marmot burrow policy\n---\n")
    assert eventually(lambda: pointer_ids(running, "marmot burrow") == ["TW-DR-0100"])
    new.unlink()
    assert eventually(lambda: pointer_ids(running, "marmot burrow") == [])


def test_a_malformed_edit_keeps_the_old_entry_and_shows_a_diagnostic(
    running: client.Target, repo: Path
) -> None:
    target = repo / "docs" / "how-to" / "rotate-webhook-signing-key.md"
    assert target.exists(), "the demo's key rotation how-to moved"
    before = pointer_ids(running, "rotate the webhook signing key")
    target.write_text("---\nid: [broken\n---\n")

    def diagnosed() -> bool:
        found = client.call(running, "GET", "/v1/diagnostics").json()
        return any(
            d["path"] == "docs/how-to/rotate-webhook-signing-key.md" for d in found["diagnostics"]
        )

    assert eventually(diagnosed)
    assert pointer_ids(running, "rotate the webhook signing key") == before
    assert client.call(running, "GET", "/v1/status").json()["stale"] == 1


def test_fifty_concurrent_clients_are_all_answered(running: client.Target) -> None:
    tasks = [
        "rotate the webhook signing key",
        "retry a failed delivery",
        "add a column to the events table",
    ]
    expected = {task: pointer_ids(running, task) for task in tasks}
    results: list[bool] = []

    def one(n: int) -> None:
        task = tasks[n % len(tasks)]
        results.append(pointer_ids(running, task) == expected[task])

    threads = [threading.Thread(target=one, args=(n,)) for n in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results == [True] * 50


def test_a_silent_client_does_not_block_others(running: client.Target) -> None:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as idle:
        idle.connect(str(running.places.socket))
        assert pointer_ids(running, "retry a failed delivery")


def test_kill_minus_nine_then_route_starts_a_fresh_daemon(
    running: client.Target, repo: Path
) -> None:
    old = json.loads(running.places.status.read_text())["pid"]
    os.kill(old, signal.SIGKILL)
    assert eventually(lambda: not client.alive(old))
    assert client.state(running)[0] == "died"
    routed = kroute("route", "retry a failed delivery", cwd=repo)
    assert routed.returncode == 0
    assert EM in routed.stdout and "note:" not in routed.stderr
    new = json.loads(running.places.status.read_text())["pid"]
    assert new != old and client.alive(new)


def test_status_stop_and_precise_messages(repo: Path) -> None:
    assert kroute("status", cwd=repo).stdout.startswith("not-running: no daemon is running for")
    assert kroute("start", cwd=repo).returncode == 0
    status = kroute("status", "--json", cwd=repo)
    assert json.loads(status.stdout)["state"] == "running"
    assert kroute("stop", cwd=repo).stdout.strip() == "stopped"
    assert kroute("status", cwd=repo).returncode == 1


def test_a_daemon_of_another_version_is_replaced(repo: Path) -> None:
    code = (
        "import os, sys; from pathlib import Path; from router.core import config; from router.serve import daemon; "
        "sys.exit(daemon.serve(config.load(Path('kroute.toml').resolve()), os.environ, version='0.0.0-old'))"
    )
    old = subprocess.Popen(
        [sys.executable, "-c", code], cwd=repo, stderr=subprocess.DEVNULL, start_new_session=True
    )
    target = client.target(repo.resolve(), (repo / "kroute.toml").resolve(), os.environ)
    try:
        assert eventually(lambda: client.state(target)[0] == "other-version")
        routed = kroute("route", "retry a failed delivery", cwd=repo)
        assert routed.returncode == 0 and EM in routed.stdout
        assert old.wait(timeout=10) == 0  # asked to shut down, it left cleanly
        status = json.loads(target.places.status.read_text())
        assert status["version"] != "0.0.0-old" and status["pid"] != old.pid
    finally:
        if old.poll() is None:
            old.kill()


def test_an_old_client_is_told_to_restart(running: client.Target) -> None:
    reply = client.call(running, "POST", "/v1/route", {"task": "x"}, version="0.0.0-old")
    assert reply.status == 409
    assert reply.json()["error"]["code"] == "restart"


def test_no_daemon_routes_in_process(repo: Path) -> None:
    routed = kroute("route", "--no-daemon", "--json", "retry a failed delivery", cwd=repo)
    assert routed.returncode == 0
    assert json.loads(routed.stdout)["pointers"]
    assert not list((Path(os.environ["XDG_RUNTIME_DIR"]) / "kroute").glob("*.sock"))


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to act as another user")
def test_connections_from_another_user_are_refused(running: client.Target) -> None:
    # Open the socket's permissions so only the peer-credential check stands in the way.
    os.chmod(running.places.runtime, 0o755)
    os.chmod(running.places.socket, 0o777)
    probe = (
        "import os, socket, sys; os.setuid(65534); s = socket.socket(socket.AF_UNIX); "
        f"s.connect({str(running.places.socket)!r}); "
        "s.sendall(b'GET /v1/status HTTP/1.1\\r\\nHost: k\\r\\n\\r\\n'); s.settimeout(5); "
        "sys.stdout.write(repr(s.recv(100)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=30
    )
    assert result.stdout in ("b''", "") or "ConnectionResetError" in result.stderr
    assert pointer_ids(running, "retry a failed delivery")


def test_client_module_imports_only_the_standard_library() -> None:
    assert heavy_imports("router.serve.client") == []


HEADLINE = Path(__file__).parents[1] / "fixtures" / "relevance" / "headline.json"


def test_relevance_endpoint_gives_the_headline(running: client.Target) -> None:
    code, doc = curl(running, "/v1/matrix/relevance", "--data-binary", f"@{HEADLINE}")
    assert code == 200
    assert [(c["doc_id"], c["relevance"]) for c in doc["kept"]] == [("sym:connector", 0.68)]
    assert [(c["doc_id"], c["relevance"]) for c in doc["dropped"]] == [
        ("sym:registry", -0.46),
        ("junk:1", 0.0),
    ]
    assert doc["threshold"] == 0.3
    alias = json.loads(HEADLINE.read_text())
    alias["focus_file"] = alias.pop("focus")
    code, doc = curl(running, "/v1/matrix/relevance", "-d", json.dumps(alias))
    assert code == 200 and doc["kept"][0]["doc_id"] == "sym:connector"


@pytest.mark.parametrize(
    "body",
    [
        '{"focus": {"path": "a.go"}, "chunks": []}',
        "{not json",
        '{"focus": {}, "chunks": [{"text": "x"}]}',
        '{"focus": {"path": "a.go"}, "chunks": [{"text": "x"}], "threshold": 1e999}',
        '{"focus": {"path": "a.go"}, "chunks": [{"text": "x"}], "threshold": "high"}',
        '{"focus": {"path": "a.go"}, "chunks": [{"text": 5}]}',
        "[1]",
    ],
)
def test_relevance_endpoint_rejects_bad_requests_with_400(
    running: client.Target, body: str
) -> None:
    code, doc = curl(running, "/v1/matrix/relevance", "-d", body)
    assert code == 400 and doc["error"]["message"]
    assert pointer_ids(running, "retry a failed delivery")


def test_relevance_body_cap_is_four_mebibytes(running: client.Target, tmp_path: Path) -> None:
    under = json.loads(HEADLINE.read_text())
    under["chunks"][2]["text"] = "w " * (
        1024 * 1024
    )  # about 2 MiB: over the route cap, under this one
    small = tmp_path / "under.json"
    small.write_text(json.dumps(under))
    code, _ = curl(running, "/v1/matrix/relevance", "--data-binary", f"@{small}")
    assert code == 200
    under["chunks"][2]["text"] = "w " * (2 * 1024 * 1024 + 10)
    big = tmp_path / "over.json"
    big.write_text(json.dumps(under))
    code, doc = curl(running, "/v1/matrix/relevance", "--data-binary", f"@{big}")
    assert code == 413 and doc["error"]["code"] == "too_large"
    assert pointer_ids(running, "retry a failed delivery")


def test_intent_endpoint(running: client.Target) -> None:
    code, doc = curl(running, "/v1/intent", "-d", '{"text": "grep for `parse_config` under src/"}')
    assert code == 200
    assert doc["strategy"] == "lexical" and doc["skip"] == "scoped-lexical"
    code, doc = curl(running, "/v1/intent", "-d", '{"nothing": 1}')
    assert code == 400


def test_a_directory_moved_in_and_out_is_indexed_and_forgotten(
    running: client.Target, repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "incoming"
    outside.mkdir()
    (outside / "walrus.md").write_text("---\nid: TW-WALRUS\nsummary: walrus tusk narwhal\n---\n")
    moved = repo / "docs" / "incoming"
    outside.rename(moved)
    assert eventually(lambda: pointer_ids(running, "walrus tusk narwhal") == ["TW-WALRUS"])
    moved.rename(tmp_path / "gone")
    assert eventually(lambda: pointer_ids(running, "walrus tusk narwhal") == [])


def test_a_missing_socket_is_named_and_the_daemon_replaced(
    running: client.Target, repo: Path
) -> None:
    old = json.loads(running.places.status.read_text())["pid"]
    running.places.socket.unlink()
    current, sentence = client.state(running)
    assert (
        current == "socket-missing" and f"pid {old}" in sentence and "socket is missing" in sentence
    )
    routed = kroute("route", "retry a failed delivery", cwd=repo)
    assert routed.returncode == 0 and EM in routed.stdout
    assert eventually(lambda: not client.alive(old))
    assert client.state(running)[0] == "running"


def test_a_stale_status_file_is_cleaned(repo: Path) -> None:
    target = client.target(repo.resolve(), (repo / "kroute.toml").resolve(), os.environ)
    target.places.runtime.mkdir(parents=True, exist_ok=True)
    target.places.status.write_text(json.dumps({"pid": 2**22 + 12345, "version": "x"}))
    assert client.state(target)[0] == "died"
    status = kroute("status", cwd=repo)
    assert status.returncode == 1 and status.stdout.startswith("died: the daemon (pid")
    assert kroute("stop", cwd=repo).stdout.startswith("not running")
    assert not target.places.status.exists()


def test_a_root_created_after_start_is_watched(tmp_path: Path) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    assert kroute("init", cwd=repo).returncode == 0
    assert kroute("start", cwd=repo).returncode == 0
    target = client.target(repo.resolve(), (repo / "kroute.toml").resolve(), os.environ)
    (repo / "docs" / "decisions").mkdir(parents=True)
    (repo / "docs" / "decisions" / "0001-cache.md").write_text(
        "---\nid: DR-1\nsummary: responses are cached for five minutes\n---\n"
    )
    assert eventually(lambda: pointer_ids(target, "cached five minutes") == ["DR-1"])


def test_a_route_is_logged_after_its_answer_even_when_the_client_hangs_up(
    running: client.Target,
) -> None:
    directory = shadow.log_dir(Path(os.environ["KROUTE_HOME"]), running.places.key)

    def logged() -> list[str]:
        return [r["task"] for r in shadow.read(directory)] if directory.exists() else []

    assert curl(running, "/v1/route", "-d", '{"task": "rotate the webhook signing key"}')[0] == 200
    assert eventually(lambda: logged() == ["rotate the webhook signing key"])
    # a client that sends its request and closes without reading the answer
    body = b'{"task": "retry a failed delivery"}'
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(running.places.socket))
        sock.sendall(
            b"POST /v1/route HTTP/1.1\r\nHost: kroute\r\nContent-Length: %d\r\n\r\n%s"
            % (len(body), body)
        )
    assert eventually(lambda: logged()[-1:] == ["retry a failed delivery"])
    assert pointer_ids(running, "rotate the webhook signing key")  # still serving
