"""The daemon as a real process: socket, HTTP, watching, recovery, version handshake."""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from router import __version__, client
from router.base.errors import DaemonError
from router.client import locate, presence, trust
from router.logbook import shadow
from router.runtime import intake
from router.serve import launcher
from testing.paths import DEMO, FIXTURES, REPO
from testing.process import git, heavy_imports, kroute
from testing.wait import eventually

EM = "\u2014"


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO)


@pytest.fixture
def running(repo: Path) -> client.Target:
    started = kroute("start", cwd=repo)
    assert started.returncode == 0, started.stderr
    return client.target(repo.resolve(), (repo / "kroute.toml").resolve(), os.environ)


def curl(target: client.Target, path: str, *args: str) -> tuple[int, Any]:
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


def pointer_ids(target: client.Target, task: str) -> list[str]:
    return [
        p["id"] for p in client.call(target, "POST", "/v1/route", {"task": task}).json()["pointers"]
    ]


@pytest.mark.process
def test_curl_is_a_client(running: client.Target) -> None:
    code, doc = curl(running, "/v1/route", "-d", '{"task": "rotate the webhook signing key"}')
    assert code == 200
    assert doc["schema"] == "kroute.route/1"
    assert doc["pointers"] and all(
        EM in line for line in doc["text"].splitlines()[::2][: len(doc["pointers"])]
    )
    code, status = curl(running, "/v1/status")
    assert code == 200 and status["entries"] >= 40 and status["pid"] > 0


@pytest.mark.process
def test_socket_and_directory_modes(running: client.Target) -> None:
    assert stat.S_IMODE(running.places.socket.stat().st_mode) == 0o600
    assert stat.S_IMODE(running.places.runtime.stat().st_mode) == 0o700
    status = json.loads(running.places.status.read_text())
    assert set(status) >= {"pid", "socket", "version", "root", "started_at"}


@pytest.mark.process
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


@pytest.mark.process
def test_oversized_body_is_413(running: client.Target, tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"task": "x" * (1024 * 1024 + 10)}))
    got, doc = curl(running, "/v1/route", "--data-binary", f"@{big}")
    assert got == 413 and doc["error"]["code"] == "too_large"
    assert pointer_ids(running, "rotate the webhook signing key")


@pytest.mark.process
def test_an_edit_on_disk_reaches_the_next_route(running: client.Target, repo: Path) -> None:
    new = repo / "docs" / "decisions" / "0100-quokka.md"
    new.write_text("---\nid: TW-DR-0100\ntitle: Quokka\nsummary: zanzibar quokka policy\n---\n")
    assert eventually(lambda: pointer_ids(running, "zanzibar quokka") == ["TW-DR-0100"])
    new.write_text("---\nid: TW-DR-0100\ntitle: Quokka\nsummary: marmot burrow policy\n---\n")
    assert eventually(lambda: pointer_ids(running, "marmot burrow") == ["TW-DR-0100"])
    new.unlink()
    assert eventually(lambda: pointer_ids(running, "marmot burrow") == [])


@pytest.mark.process
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


@pytest.mark.process
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


@pytest.mark.process
def test_a_silent_client_does_not_block_others(running: client.Target) -> None:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as idle:
        idle.connect(str(running.places.socket))
        assert pointer_ids(running, "retry a failed delivery")


@pytest.mark.process
def test_kill_minus_nine_then_route_starts_a_fresh_daemon(
    running: client.Target, repo: Path
) -> None:
    old = json.loads(running.places.status.read_text())["pid"]
    os.kill(old, signal.SIGKILL)
    assert eventually(lambda: not presence.alive(old))
    assert client.state(running)[0] == "died"
    routed = kroute("route", "retry a failed delivery", cwd=repo)
    assert routed.returncode == 0
    assert EM in routed.stdout and "note:" not in routed.stderr
    new = json.loads(running.places.status.read_text())["pid"]
    assert new != old and presence.alive(new)


@pytest.mark.process
def test_status_stop_and_precise_messages(repo: Path) -> None:
    assert kroute("status", cwd=repo).stdout.startswith("not-running: no daemon is running for")
    assert kroute("start", cwd=repo).returncode == 0
    status = kroute("status", "--json", cwd=repo)
    assert json.loads(status.stdout)["state"] == "running"
    said = kroute("status", cwd=repo).stdout
    assert said.startswith("running: pid ") and "entries (loaded from cold in " in said
    assert kroute("stop", cwd=repo).stdout.strip() == "stopped"
    assert kroute("status", cwd=repo).returncode == 1


@pytest.mark.process
def test_a_daemon_of_another_version_is_replaced(repo: Path) -> None:
    code = (
        "import os, sys; from pathlib import Path; from router.catalog import config; from router.serve import foreground; "
        "sys.exit(foreground.serve(config.load(Path('kroute.toml').resolve()), os.environ, version='0.0.0-old'))"
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


@pytest.mark.process
def test_an_old_client_is_told_to_restart(running: client.Target) -> None:
    reply = client.call(running, "POST", "/v1/route", {"task": "x"}, version="0.0.0-old")
    assert reply.status == 409
    assert reply.json()["error"]["code"] == "restart"


@pytest.mark.process
def test_no_daemon_routes_in_process(repo: Path) -> None:
    routed = kroute("route", "--no-daemon", "--json", "retry a failed delivery", cwd=repo)
    assert routed.returncode == 0
    assert json.loads(routed.stdout)["pointers"]
    assert not list((Path(os.environ["XDG_RUNTIME_DIR"]) / "kroute").glob("*.sock"))


@pytest.mark.process
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


@pytest.mark.process
def test_client_module_imports_only_the_standard_library() -> None:
    assert heavy_imports("router.client") == []


HEADLINE = FIXTURES / "relevance" / "headline.json"


@pytest.mark.process
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


@pytest.mark.process
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


@pytest.mark.process
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


@pytest.mark.process
def test_intent_endpoint(running: client.Target) -> None:
    code, doc = curl(running, "/v1/intent", "-d", '{"text": "grep for `parse_config` under src/"}')
    assert code == 200
    assert doc["strategy"] == "lexical" and doc["skip"] == "scoped-lexical"
    code, doc = curl(running, "/v1/intent", "-d", '{"nothing": 1}')
    assert code == 400


@pytest.mark.process
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


@pytest.mark.process
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
    assert eventually(lambda: not presence.alive(old))
    assert client.state(running)[0] == "running"


@pytest.mark.process
def test_a_stale_status_file_is_cleaned(repo: Path) -> None:
    target = client.target(repo.resolve(), (repo / "kroute.toml").resolve(), os.environ)
    target.places.runtime.mkdir(parents=True, exist_ok=True)
    target.places.status.write_text(json.dumps({"pid": 2**22 + 12345, "version": "x"}))
    assert client.state(target)[0] == "died"
    status = kroute("status", cwd=repo)
    assert status.returncode == 1 and status.stdout.startswith("died: the daemon (pid")
    assert kroute("stop", cwd=repo).stdout.startswith("not running")
    assert not target.places.status.exists()


@pytest.mark.process
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


@pytest.mark.process
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


# -- the watcher against the moves git and editors make (defects 10, 11, 12) --------------------

# Generous: a loaded machine may take seconds to settle; a daemon that never converges fails.
CONVERGE_SECONDS = 30.0
ROUNDS = 5  # each move is repeated: a watch that survives one move may not survive the next
NEW_DOC = "---\nid: TW-NEW-{n}\ntitle: New {n}\nsummary: {words}\n---\n"


def cold_fingerprint(repo: Path) -> str:
    """Return the fingerprint a cold load of the repository's catalog gives."""
    from router.catalog import config
    from router.runtime.engine import Engine

    return Engine.load(config.load((repo / "kroute.toml").resolve())).catalog.fingerprint


def daemon_status(target: client.Target) -> dict[str, Any]:
    document = client.call(target, "GET", "/v1/status").json()
    assert isinstance(document, dict)
    return document


def converges(target: client.Target, repo: Path) -> None:
    """Wait until the daemon's index fingerprint equals a cold load's (not a timing check)."""
    want = cold_fingerprint(repo)
    assert eventually(lambda: daemon_status(target)["fingerprint"] == want, CONVERGE_SECONDS), (
        f"daemon {daemon_status(target)['fingerprint']} != cold load {want}"
    )


def atomic_write(path: Path, text: str) -> None:
    """Save as editors do: write a temporary file beside it, then rename it over."""
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text)
    os.replace(temp, path)


BRANCH_CHANGES = 100


@pytest.fixture
def git_repo(repo: Path) -> Path:
    """The demo as a git repository with a branch `other` that changes 100 catalog files:
    10 documents deleted, 90 added in 10 new directories."""
    git(repo, "init", "-q")
    git(repo, "checkout", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "main")
    git(repo, "checkout", "-q", "-b", "other")
    gone = sorted((repo / "docs").rglob("*.md"))[:10]
    for path in gone:
        path.unlink()
    for n in range(BRANCH_CHANGES - len(gone)):
        new = repo / "docs" / "generated" / f"group-{n % 10}" / f"doc-{n}.md"
        new.parent.mkdir(parents=True, exist_ok=True)
        new.write_text(NEW_DOC.format(n=n, words=f"generated branch document {n}"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "other")
    git(repo, "checkout", "-q", "main")
    return repo


def started(repo: Path, **env: str) -> client.Target:
    result = kroute("start", cwd=repo, env=env)
    assert result.returncode == 0, result.stderr
    return client.target(repo.resolve(), (repo / "kroute.toml").resolve(), os.environ)


def delete_and_recreate_root(repo: Path, n: int, settle: Callable[[], None]) -> None:
    saved = repo.parent / f"saved-docs-{n}"
    shutil.copytree(repo / "docs", saved)
    shutil.rmtree(repo / "docs")
    settle()
    shutil.copytree(saved, repo / "docs")
    settle()
    (repo / "docs" / f"after-{n}.md").write_text(NEW_DOC.format(n=n, words=f"recreated {n}"))


def rm_rf_and_git_checkout_root(repo: Path, n: int, settle: Callable[[], None]) -> None:
    subprocess.run("rm -rf docs && git checkout docs", shell=True, cwd=repo, check=True)
    settle()
    atomic_write(repo / "docs" / "how-to" / "late.md", NEW_DOC.format(n=n, words=f"late {n}"))


def rename_root_away_and_back(repo: Path, n: int, settle: Callable[[], None]) -> None:
    (repo / "docs").rename(repo / "docs.away")
    settle()
    (repo / "docs.away" / f"while-away-{n}.md").write_text(NEW_DOC.format(n=n, words="away"))
    (repo / "docs.away").rename(repo / "docs")
    settle()
    (repo / "docs" / f"back-{n}.md").write_text(NEW_DOC.format(n=n, words=f"back {n}"))


def checkout_other_branch_and_back(repo: Path, n: int, settle: Callable[[], None]) -> None:
    git(repo, "checkout", "-q", "-f", "other")
    settle()
    git(repo, "checkout", "-q", "-f", "main")


def atomic_save_of_a_document(repo: Path, n: int, settle: Callable[[], None]) -> None:
    path = repo / "docs" / "how-to" / "rotate-webhook-signing-key.md"
    text = path.read_text()
    atomic_write(path, text.replace("summary: ", f"summary: saved {n} ", 1))


def atomic_save_of_the_config(repo: Path, n: int, settle: Callable[[], None]) -> None:
    path = repo / "kroute.toml"
    text = path.read_text()
    atomic_write(path, text.replace("exclude = []", 'exclude = ["docs/how-to/**"]'))
    settle()
    atomic_write(path, text)


MOVES = {
    "delete and recreate a root": delete_and_recreate_root,
    "rm -rf and git checkout a root": rm_rf_and_git_checkout_root,
    "rename a root away and back": rename_root_away_and_back,
    "git checkout of a branch changing 100 files": checkout_other_branch_and_back,
    "atomic save of a document": atomic_save_of_a_document,
    "atomic save of the config": atomic_save_of_the_config,
}


@pytest.mark.process
@pytest.mark.parametrize("move", MOVES.values(), ids=list(MOVES))
def test_the_index_converges_to_a_cold_load_after_each_move(
    git_repo: Path, move: Callable[[Path, int, Callable[[], None]], None]
) -> None:
    """Defect 12 (covering 10 and 11): after each move, five times over, the daemon's index
    is the one a cold load gives."""
    target = started(git_repo)
    converges(target, git_repo)
    for n in range(ROUNDS):
        move(git_repo, n, lambda: converges(target, git_repo))
        converges(target, git_repo)
    assert daemon_status(target)["config_error"] is None


@pytest.mark.process
def test_a_root_deleted_and_recreated_is_watched_again(running: client.Target, repo: Path) -> None:
    """Defect 10: entries come back, and new documents are seen, also after a reload."""
    entries = daemon_status(running)["entries"]
    saved = repo.parent / "saved-docs"
    shutil.copytree(repo / "docs", saved)
    shutil.rmtree(repo / "docs")
    shutil.copytree(saved, repo / "docs")
    assert eventually(lambda: daemon_status(running)["entries"] == entries, CONVERGE_SECONDS)
    (repo / "docs" / "otter.md").write_text(NEW_DOC.format(n=1, words="otter raft kelp"))
    assert eventually(lambda: pointer_ids(running, "otter raft kelp") == ["TW-NEW-1"])
    assert client.call(running, "POST", "/v1/reload").status == 200
    (repo / "docs" / "heron.md").write_text(NEW_DOC.format(n=2, words="heron wading marsh"))
    assert eventually(lambda: pointer_ids(running, "heron wading marsh") == ["TW-NEW-2"])


@pytest.mark.process
def test_every_atomic_save_of_the_config_is_applied(git_repo: Path) -> None:
    """Defect 11: a first and a second `sed -i`, then a `git checkout kroute.toml`."""
    target = started(git_repo)
    entries = daemon_status(target)["entries"]
    sed = ["sed", "-i", r's|^exclude = \[\]|exclude = ["docs/how-to/**"]|', "kroute.toml"]
    subprocess.run(sed, cwd=git_repo, check=True)
    assert eventually(lambda: daemon_status(target)["entries"] < entries, CONVERGE_SECONDS)
    excluded = daemon_status(target)["entries"]
    unsed = ["sed", "-i", r"s|^exclude = .*|exclude = []|", "kroute.toml"]
    subprocess.run(unsed, cwd=git_repo, check=True)
    assert eventually(lambda: daemon_status(target)["entries"] == entries, CONVERGE_SECONDS)
    subprocess.run(sed, cwd=git_repo, check=True)
    assert eventually(lambda: daemon_status(target)["entries"] == excluded, CONVERGE_SECONDS)
    git(git_repo, "checkout", "kroute.toml")
    assert eventually(lambda: daemon_status(target)["entries"] == entries, CONVERGE_SECONDS)
    converges(target, git_repo)


@pytest.mark.process
def test_an_invalid_config_shows_in_status_and_diagnostics(
    running: client.Target, repo: Path
) -> None:
    """Defect 11: invalid TOML is reported by /v1/status and /v1/diagnostics, the last good
    config stays in force, and a fixed file clears the error."""
    before = daemon_status(running)
    assert before["config_error"] is None
    config_file = repo / "kroute.toml"
    good = config_file.read_text()
    atomic_write(config_file, good.replace("exclude = []", "exclude = [", 1))
    assert eventually(lambda: daemon_status(running)["config_error"] is not None)
    status = daemon_status(running)
    assert "not valid TOML" in status["config_error"]
    assert status["errors"] == before["errors"] + 1
    assert status["fingerprint"] == before["fingerprint"]
    found = client.call(running, "GET", "/v1/diagnostics").json()["diagnostics"]
    assert [d["severity"] for d in found if d["path"] == "kroute.toml"] == ["error"]
    assert pointer_ids(running, "rotate the webhook signing key")
    atomic_write(config_file, good.replace("exclude = []", 'exclude = ["docs/how-to/**"]', 1))
    assert eventually(lambda: daemon_status(running)["config_error"] is None)
    converges(running, repo)


# -- parsing outside the lock (defect 5b) -----------------------------------------------------


def test_a_slow_file_does_not_hold_routes(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Defect 5b: while a changed file is being read and parsed, routes are answered."""

    from router.catalog import config, reader
    from router.serve import daemon

    cfg = config.load((repo / "kroute.toml").resolve())
    running = daemon.Daemon(cfg, locate.places(cfg.root, cfg.file, os.environ, os.getuid()))
    running.prepare()
    slow = repo / "docs" / "how-to" / "slow.md"
    slow.write_text(NEW_DOC.format(n=9, words="sloth molasses glacier"))
    reading, release = threading.Event(), threading.Event()
    read = reader.read

    def stalled(config: config.Config, relpath: str) -> object:
        if relpath.endswith("slow.md"):
            reading.set()
            release.wait(30)
        return read(config, relpath)

    monkeypatch.setattr(reader, "read", stalled)
    change = threading.Thread(target=running.apply, args=({slow},))
    change.start()
    try:
        assert reading.wait(10)
        answered: list[int] = []
        body = b'{"task": "rotate the webhook signing key"}'
        route = threading.Thread(
            target=lambda: answered.append(running.dispatch("POST", "/v1/route", body)[0])
        )
        route.start()
        route.join(10)
        assert answered == [200], "a route waited for a file being parsed"
    finally:
        release.set()
        change.join(30)
    assert running.dispatch("GET", "/v1/status", b"")[1]["updates"] == 1
    routed = running.dispatch("POST", "/v1/route", b'{"task": "sloth molasses glacier"}')[1]
    assert [p["id"] for p in routed["pointers"]] == ["TW-NEW-9"]


# -- exiting on its own (defect 17) -----------------------------------------------------------


@pytest.mark.process
def test_an_idle_daemon_exits(repo: Path) -> None:
    """Defect 17: `[daemon] idle_minutes` in kroute.toml; no request for that long, it exits."""
    config_file = repo / "kroute.toml"
    config_file.write_text(config_file.read_text() + "\n[daemon]\nidle_minutes = 0.02\n")
    target = started(repo)
    pid = json.loads(target.places.status.read_text())["pid"]
    assert daemon_status(target)["idle_exit_s"] == pytest.approx(1.2)
    assert eventually(lambda: not presence.alive(pid), CONVERGE_SECONDS)
    assert not target.places.status.exists() and not target.places.socket.exists()
    assert "idle" in target.places.log.read_text()


@pytest.mark.process
def test_requests_keep_a_daemon_alive_until_it_idles(repo: Path) -> None:
    """Defect 17: KROUTE_IDLE_SECONDS (for tests) overrides the config; each request restarts
    the idle clock."""
    target = started(repo, KROUTE_IDLE_SECONDS="2")
    pid = json.loads(target.places.status.read_text())["pid"]
    assert daemon_status(target)["idle_exit_s"] == 2
    until = time.monotonic() + 5
    while time.monotonic() < until:
        assert pointer_ids(target, "retry a failed delivery")
        time.sleep(0.2)
    assert presence.alive(pid)
    assert eventually(lambda: not presence.alive(pid), CONVERGE_SECONDS)


@pytest.mark.process
def test_a_daemon_exits_when_its_root_disappears(repo: Path) -> None:
    """Defect 17: the repository directory removed, the daemon has nothing to serve."""
    target = started(repo)
    pid = json.loads(target.places.status.read_text())["pid"]
    shutil.rmtree(repo)
    assert eventually(lambda: not presence.alive(pid), CONVERGE_SECONDS)
    assert "root directory is gone" in target.places.log.read_text()


@pytest.mark.parametrize("value", ["soon", "-1", "inf", "nan"])
def test_a_bad_idle_override_is_refused(repo: Path, value: str) -> None:
    """Defect 17: KROUTE_IDLE_SECONDS must be a number of seconds; serve refuses to start."""
    from router.base.errors import ConfigError
    from router.catalog import config
    from router.serve import foreground

    cfg = config.load((repo / "kroute.toml").resolve())
    with pytest.raises(ConfigError, match="KROUTE_IDLE_SECONDS"):
        foreground.serve(cfg, {**os.environ, "KROUTE_IDLE_SECONDS": value})


@pytest.mark.process
def test_a_full_disk_under_the_shadow_log_never_fails_a_route(running: client.Target) -> None:
    """Issue 13, defect 8: with the day's log on a full disk, routes and hooks still answer,
    and the daemon counts what it could not write."""
    import datetime

    directory = shadow.log_dir(Path(os.environ["KROUTE_HOME"]), running.places.key)
    directory.mkdir(parents=True, exist_ok=True)
    for offset in (0, 1):  # today, and tomorrow should the day turn during the test
        day = datetime.datetime.now(datetime.UTC).date() + datetime.timedelta(days=offset)
        (directory / f"{day.isoformat()}.jsonl").symlink_to("/dev/full")
    code, doc = curl(running, "/v1/route", "-d", '{"task": "rotate the webhook signing key"}')
    assert code == 200 and doc["pointers"]
    assert pointer_ids(running, "retry a failed delivery")
    status = client.call(running, "GET", "/v1/status").json()
    assert eventually(
        lambda: client.call(running, "GET", "/v1/status").json()["shadow"]["unwritten"] >= 2
    )
    assert status["entries"] > 0


def backdated(repo: Path, seconds: float = 3600) -> Path:
    """Return the repository with every file's times set `seconds` back (a tree at rest)."""
    past = time.time() - seconds
    for path in repo.rglob("*"):
        os.utime(path, (past, past))
    return repo


@pytest.mark.process
def test_a_restart_reads_only_what_changed_since_its_snapshot(repo: Path) -> None:
    backdated(repo)
    first = started(repo, KROUTE_SNAPSHOT_AFTER="0")  # a snapshot however fast the load
    assert eventually(lambda: str(daemon_status(first)["snapshot"]).startswith("snapshot written"))
    assert daemon_status(first)["load"]["from"] == "cold"
    assert kroute("stop", cwd=repo).returncode == 0

    doc = repo / "docs" / "how-to" / "rotate-webhook-signing-key.md"
    doc.write_text(doc.read_text() + "\nWatch for the sloth molasses glacier.\n")
    again = started(repo)
    status = daemon_status(again)
    assert status["phase"] == "ready"
    assert (status["load"]["from"], status["load"]["reread"]) == ("snapshot", 1)
    assert status["fingerprint"] == cold_fingerprint(repo)
    assert pointer_ids(again, "sloth molasses glacier")[:1] == ["TW-HOW-rotate-keys"]


@pytest.mark.process
def test_a_route_without_a_daemon_reads_its_snapshot_and_what_changed_since(
    repo: Path,
) -> None:
    backdated(repo)
    first = started(repo, KROUTE_SNAPSHOT_AFTER="0")
    assert eventually(lambda: str(daemon_status(first)["snapshot"]).startswith("snapshot written"))
    assert kroute("stop", cwd=repo).returncode == 0
    doc = repo / "docs" / "how-to" / "rotate-webhook-signing-key.md"
    doc.write_text(doc.read_text() + "\nWatch for the sloth molasses glacier.\n")
    # tests/test_loader.py shows the snapshot is what is read; here, that the answer is
    # that of the catalog on disk, the edit made after the snapshot included
    routed = kroute("route", "--no-daemon", "--json", "sloth molasses glacier", cwd=repo)
    assert routed.returncode == 0, routed.stderr
    assert [p["id"] for p in json.loads(routed.stdout)["pointers"]][:1] == ["TW-HOW-rotate-keys"]


@pytest.mark.process
def test_a_snapshot_of_another_version_is_not_used(repo: Path) -> None:
    backdated(repo)
    first = started(repo, KROUTE_SNAPSHOT_AFTER="0")
    assert eventually(lambda: str(daemon_status(first)["snapshot"]).startswith("snapshot written"))
    assert kroute("stop", cwd=repo).returncode == 0
    snap = next((Path(os.environ["KROUTE_HOME"]) / "snapshots").glob("*.pickle"))
    with snap.open("rb") as source:
        header, body = pickle.load(source), source.read()
    with snap.open("wb") as out:
        pickle.dump(header | {"version": "0.0.0"}, out)
        out.write(body)
    again = started(repo)
    load = daemon_status(again)["load"]
    assert load["from"] == "cold" and "another kroute version" in load["snapshot_unused"]


@contextlib.contextmanager
def serving(running: Any) -> Iterator[client.Target]:
    """Serve the in-process daemon `running` on its socket, its status file naming this
    process at this version, as `prepare` runs on a thread of its own; yield its target."""
    from router.serve import server

    places = running.places
    trust.private_dir(places.runtime)
    served = server.Server(str(places.socket), running)
    threading.Thread(target=served.serve_forever, daemon=True).start()
    presence.write_status(
        places.status, {"pid": os.getpid(), "socket": str(places.socket), "version": __version__}
    )
    threading.Thread(target=running.prepare, daemon=True).start()
    try:
        yield client.target(running.config.root, running.config.file, os.environ)
    finally:
        served.shutdown()
        served.server_close()
        places.status.unlink(missing_ok=True)


@pytest.mark.process
def test_a_loading_daemon_answers_its_status_and_refuses_routes_at_once(repo: Path) -> None:
    """While the catalog loads, /v1/status says `loading` and a route gets 503 `loading`
    without waiting; a client asking waits for the load within its timeout."""
    from router.catalog import config
    from router.runtime.engine import Engine
    from router.serve import daemon

    cfg = config.load((repo / "kroute.toml").resolve())
    places = locate.places(cfg.root, cfg.file, os.environ, os.getuid())
    release = threading.Event()

    def slow(config: config.Config, version: str) -> Engine:
        release.wait(30)
        return Engine.load(config, version)

    running = daemon.Daemon(cfg, places, load=slow)
    with serving(running) as target:
        try:
            code, report = curl(target, "/v1/status")
            assert (code, report["phase"], report["entries"]) == (200, "loading", 0)
            code, refused = curl(target, "/v1/route", "-d", '{"task": "rotate the webhook key"}')
            assert (code, refused["error"]["code"]) == (503, "loading")
            assert "still loading the catalog" in refused["error"]["message"]
            with pytest.raises(DaemonError, match="still loading the catalog"):
                launcher.ask(target, os.environ, "/v1/route", {"task": "rotate"}, timeout=0.3)
            # a hook fails open: nothing printed and exit 0 (an answer in process would have
            # printed this prompt's pointers)
            presence.write_root(places, cfg.root, cfg.file)
            prompt = (FIXTURES / "hook_payloads" / "user_prompt_submit.json").read_bytes()
            hooked = subprocess.run(
                [str(REPO / "hooks" / "claude" / "user-prompt-submit")],
                input=prompt.replace(b"REPO", str(cfg.root).encode()),
                capture_output=True,
                env={
                    **os.environ,
                    "CLAUDE_PROJECT_DIR": str(cfg.root),
                    "KROUTE_HOOK_BIN": str(Path(sys.executable).with_name("kroute-hook")),
                },
                timeout=30,
            )
            assert (hooked.returncode, hooked.stdout) == (0, b"")
            release.set()
            answer = launcher.ask(
                target, os.environ, "/v1/route", {"task": "rotate the webhook key"}
            )
            assert answer["pointers"]
            assert curl(target, "/v1/status")[1]["phase"] == "ready"
        finally:
            release.set()


@pytest.mark.process
def test_a_cold_engine_is_let_go_before_its_snapshot_is_read_back_and_requests_wait(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loaded cold, the daemon serves the engine its snapshot holds: the cold engine is gone
    before the snapshot is read back (the engine read back takes the memory it held), and a
    route asked meanwhile waits, then is answered as the cold engine would have."""
    import weakref

    from router.catalog import config
    from router.runtime.engine import Engine
    from router.serve import daemon, loader

    cfg = config.load((repo / "kroute.toml").resolve())
    places = locate.places(cfg.root, cfg.file, os.environ, os.getuid())
    loaded: list[weakref.ref[Engine]] = []

    def cold(config: config.Config, version: str) -> Engine:
        engine = Engine.load(config, version)
        loaded.append(weakref.ref(engine))
        return engine

    reading, release = threading.Event(), threading.Event()
    read_back = loader.read_back
    cold_was_gone: list[bool] = []

    def held(config: config.Config, path: Path, version: str) -> Engine | None:
        cold_was_gone.append(loaded[0]() is None)
        reading.set()
        release.wait(30)
        return read_back(config, path, version)

    monkeypatch.setattr(loader, "read_back", held)
    running = daemon.Daemon(cfg, places, load=cold, snapshot_after=0.0)
    task = {"task": "rotate the webhook key"}
    answers: list[dict[str, Any]] = []
    with serving(running) as target:
        try:
            assert reading.wait(60)
            asking = threading.Thread(
                target=lambda: answers.append(launcher.ask(target, os.environ, "/v1/route", task))
            )
            asking.start()
            asking.join(0.5)
            assert asking.is_alive() and not answers  # it waits for the engine read back
            release.set()
            asking.join(60)
            assert cold_was_gone == [True]
            expected = Engine.load(cfg).route(intake.route(task, cfg))
            assert answers[0]["pointers"] == expected["pointers"] != []
            status = curl(target, "/v1/status")[1]
            assert status["load"]["mapped"] and status["entries"] == len(running.engine.index)
        finally:
            release.set()


@pytest.mark.process
def test_a_snapshot_that_cannot_be_read_back_costs_a_second_read_not_the_index(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from router.catalog import config
    from router.runtime import snapshot
    from router.runtime.engine import Engine
    from router.serve import daemon, loader

    def unusable(config: config.Config, path: Path, version: str) -> Engine | None:
        raise snapshot.UnusableError("its body cannot be read (EOFError)")

    monkeypatch.setattr(loader, "read_back", unusable)
    cfg = config.load((repo / "kroute.toml").resolve())
    running = daemon.Daemon(
        cfg, locate.places(cfg.root, cfg.file, os.environ, os.getuid()), snapshot_after=0.0
    )
    running.prepare()
    assert running.loaded is not None and not running.loaded.mapped
    assert len(running.engine.index) == len(Engine.load(cfg).index) > 0
    assert running.serving.is_set()
    assert (
        "cannot be read back (its body cannot be read (EOFError)): reading the catalog again"
        in (capsys.readouterr().err)
    )
