"""The real hook files run as Claude Code runs them, with recorded payloads."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from router import __version__, client
from router.client import presence
from router.harnesses import printed
from router.logbook import shadow
from router.serve import launcher
from router.serve.server import BODY_CAP
from testing.paths import DEMO, FIXTURES, REPO
from testing.process import heavy_imports, kroute, script_imports
from testing.wait import eventually

EM = "\u2014"
HOOKS = REPO / "hooks"
PAYLOADS = FIXTURES / "hook_payloads"
BIN = Path(sys.executable).parent


@pytest.fixture
def repo(copy_tree: Callable[[Path], Path]) -> Path:
    return copy_tree(DEMO).resolve()


def payload(name: str, repo: Path) -> bytes:
    return (PAYLOADS / name).read_bytes().replace(b"REPO", str(repo).encode())


def run_hook(
    shim: str, data: bytes, repo: Path, **env: str
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    environment = {
        **os.environ,
        "CLAUDE_PROJECT_DIR": str(repo),
        "KROUTE_HOOK_BIN": str(BIN / "kroute-hook"),
        "KROUTE_VERSION": __version__,
        **env,
    }
    began = time.monotonic()
    result = subprocess.run(
        [str(HOOKS / shim)], input=data, capture_output=True, env=environment, cwd=repo, timeout=30
    )
    return result, time.monotonic() - began


def target(repo: Path) -> client.Target:
    return client.target(repo, repo / "kroute.toml", os.environ)


def prompt_hook(repo: Path, **env: str) -> tuple[subprocess.CompletedProcess[bytes], float]:
    """Run Claude Code's prompt shim in `repo` on the recorded prompt (user_prompt_submit.json)."""
    return run_hook(
        "claude/user-prompt-submit", payload("user_prompt_submit.json", repo), repo, **env
    )


def probe_prompt(
    code: str, modules: Iterable[str], repo: Path, **env: str
) -> subprocess.CompletedProcess[bytes]:
    """Run the Python `code` (a probe running the hook in its own process, given `modules` as
    its arguments) in `repo` with the recorded prompt on stdin, as Claude Code runs a hook."""
    return subprocess.run(
        [sys.executable, "-c", code, *modules],
        input=payload("user_prompt_submit.json", repo),
        capture_output=True,
        env={**os.environ, "CLAUDE_PROJECT_DIR": str(repo), **env},
        cwd=repo,
        timeout=60,
    )


def log_lines(repo: Path) -> list[dict[str, Any]]:
    """Return the repository's shadow lines, once there is one: the daemon writes a line
    just after it answers, so a hook can exit before its line lands."""
    directory = shadow.log_dir(Path(os.environ["KROUTE_HOME"]), target(repo).places.key)
    deadline = time.monotonic() + 10
    while True:
        lines = list(shadow.read(directory)) if directory.exists() else []
        if lines or time.monotonic() > deadline:
            return lines
        time.sleep(0.02)


@pytest.fixture
def daemon(repo: Path) -> Path:
    assert kroute("start", cwd=repo).returncode == 0
    return repo


@pytest.mark.process
def test_prompt_gives_pointer_and_evidence_lines_through_the_daemon(daemon: Path) -> None:
    result, _ = prompt_hook(daemon)
    assert result.returncode == 0
    lines = result.stdout.decode().splitlines()
    assert lines[0] == printed.HEADER
    pointer_lines = [i for i, line in enumerate(lines) if EM in line]
    assert pointer_lines
    for i in pointer_lines:
        assert lines[i + 1].startswith("    ") and EM not in lines[i + 1]
    assert "rotate-webhook-signing-key.md" in result.stdout.decode()
    record = log_lines(daemon)[-1]
    assert record["source"] == "claude/UserPromptSubmit"
    assert record["injected"] is True
    assert record["text"] == result.stdout.decode()
    assert record["session"] == "7f3c2a1e-5b0d-4c8e-9a61-2d4f8e0b1c33"
    assert record["intent"]["strategy"]


@pytest.mark.process
def test_camel_case_payload_keys_are_read(daemon: Path) -> None:
    result, _ = run_hook(
        "claude/user-prompt-submit", payload("user_prompt_submit_camel.json", daemon), daemon
    )
    assert EM in result.stdout.decode()
    assert log_lines(daemon)[-1]["session"] == "b21e9d40-1f6a-4b7e-8c3d-0a5e7f9c2d18"


@pytest.mark.process
def test_without_a_daemon_the_hook_starts_one_and_answers_from_it(repo: Path) -> None:
    # a budget for the daemon's start and load, on a busy machine
    result, _ = prompt_hook(repo, KROUTE_HOOK_BUDGET="60")
    assert result.returncode == 0
    assert EM in result.stdout.decode()
    deadline = time.monotonic() + 15
    while client.state(target(repo))[0] != "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert client.state(target(repo))[0] == "running"


@pytest.mark.process
def test_session_start_is_valid_hook_json(daemon: Path) -> None:
    result, _ = run_hook("claude/session-start", payload("session_start.json", daemon), daemon)
    document = json.loads(result.stdout)
    output = document["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart"
    assert "52 entries" in output["additionalContext"]
    assert ".cursor/rules/python-style.mdc" in output["additionalContext"]  # always-apply


@pytest.mark.process
def test_editing_a_governed_file_names_the_governing_documents(daemon: Path) -> None:
    result, _ = run_hook("claude/pre-tool-use", payload("pre_tool_use_edit.json", daemon), daemon)
    output = json.loads(result.stdout)["hookSpecificOutput"]
    assert set(output) == {"hookEventName", "additionalContext"}  # advisory: no decision
    assert output["hookEventName"] == "PreToolUse"
    context = output["additionalContext"]
    assert "govern src/billing/invoice.py" in context
    assert "docs/specs/invoice-builder.md" in context
    assert "TaxTable" not in context  # the imported module's document is not offered


@pytest.mark.process
def test_a_non_file_tool_gets_nothing(daemon: Path) -> None:
    result, _ = run_hook("claude/pre-tool-use", payload("pre_tool_use_bash.json", daemon), daemon)
    assert (result.returncode, result.stdout) == (0, b"")


@pytest.mark.process
@pytest.mark.parametrize(
    ("name", "skip"),
    [
        ("user_prompt_empty.json", "empty-prompt"),
        ("user_prompt_task_notification.json", "envelope"),
        ("user_prompt_slash_command.json", "envelope"),
    ],
)
def test_envelopes_and_empty_prompts_print_nothing_and_log_why(
    daemon: Path, name: str, skip: str
) -> None:
    result, _ = run_hook("claude/user-prompt-submit", payload(name, daemon), daemon)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert log_lines(daemon)[-1]["skip"] == skip


@pytest.mark.process
def test_out_of_scope_prompt_is_silent(daemon: Path) -> None:
    result, _ = run_hook(
        "claude/user-prompt-submit", payload("user_prompt_out_of_scope.json", daemon), daemon
    )
    assert (result.returncode, result.stdout) == (0, b"")
    assert log_lines(daemon)[-1]["status"] == "no_match"


@pytest.mark.process
def test_garbage_on_stdin_prints_nothing(daemon: Path) -> None:
    for shim in ("claude/user-prompt-submit", "claude/session-start", "claude/pre-tool-use"):
        result, _ = run_hook(shim, (PAYLOADS / "garbage.bin").read_bytes(), daemon)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.process
def test_shadow_mode_prints_nothing_and_logs_what_would_have_been_injected(daemon: Path) -> None:
    result, _ = prompt_hook(daemon, KROUTE_MODE="shadow")
    assert (result.returncode, result.stdout) == (0, b"")
    record = log_lines(daemon)[-1]
    assert record["mode"] == "shadow" and record["injected"] is False
    assert EM in record["text"] and record["pointers"]


@pytest.mark.process
def test_daemon_down_and_no_slow_path_exits_silently(repo: Path) -> None:
    # a dead daemon's leftovers: a socket nobody listens on, and no kroute-hook to fall to
    t = target(repo)
    t.places.runtime.mkdir(parents=True, exist_ok=True)
    with socket.socket(socket.AF_UNIX) as dead:
        dead.bind(str(t.places.socket))
    result, elapsed = prompt_hook(repo, KROUTE_HOOK_BIN="/nonexistent/kroute-hook")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert elapsed < 5  # it gives up instead of waiting


@pytest.fixture
def hung(repo: Path) -> Iterator[Path]:
    """A 'daemon' that accepts connections and never answers, with a status file that
    makes it look alive and of this version."""
    t = target(repo)
    t.places.runtime.mkdir(parents=True, exist_ok=True)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(t.places.socket))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    status = {
        "pid": os.getpid(),
        "socket": str(t.places.socket),
        "version": __version__,
        "root": str(repo),
        "started_at": "x",
    }
    t.places.status.write_text(json.dumps(status))
    yield repo
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()
    t.places.status.unlink()


@pytest.mark.process
def test_a_hung_daemon_costs_at_most_the_deadline(hung: Path) -> None:
    result, elapsed = prompt_hook(hung)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert elapsed < 5  # curl's 0.4 s and kroute-hook's 0.5 s, plus process start


@pytest.mark.process
def test_kroute_hook_without_arguments_or_with_skip_does_nothing(repo: Path) -> None:
    plain = subprocess.run([str(BIN / "kroute-hook")], input=b"{}", capture_output=True, cwd=repo)
    assert (plain.returncode, plain.stdout) == (0, b"")
    skipped = subprocess.run(
        [str(BIN / "kroute-hook"), "claude", "UserPromptSubmit"],
        input=payload("user_prompt_submit.json", repo),
        capture_output=True,
        cwd=repo,
        env={**os.environ, "KROUTE_SKIP": "1", "CLAUDE_PROJECT_DIR": str(repo)},
    )
    assert (skipped.returncode, skipped.stdout) == (0, b"")


@pytest.mark.process
def test_pipe_hook(daemon: Path) -> None:
    result = subprocess.run(
        [str(HOOKS / "route")],
        input=b"add a column to the events table",
        capture_output=True,
        cwd=daemon,
        env={**os.environ, "KROUTE_BIN": str(BIN / "kroute")},
        timeout=30,
    )
    assert result.returncode == 0
    assert EM in result.stdout.decode()
    assert log_lines(daemon)[-1]["source"] == "cli"


@pytest.mark.process
def test_hook_module_imports_only_the_standard_library() -> None:
    assert heavy_imports("router.integrations.hook") == []


@pytest.mark.process
def test_a_socket_named_by_the_install_is_used_as_it_is(daemon: Path) -> None:
    socket_path = str(target(daemon).places.socket)
    elsewhere = daemon.parent  # no kroute.toml to find from here: only the named socket works
    result, _ = prompt_hook(
        daemon,
        KROUTE_SOCKET=socket_path,
        CLAUDE_PROJECT_DIR=str(elsewhere),
        KROUTE_HOOK_BIN="/nonexistent/kroute-hook",
    )
    assert EM in result.stdout.decode()


EVENT_OF = {
    "session-start": "SessionStart",
    "user-prompt-submit": "UserPromptSubmit",
    "pre-tool-use": "PreToolUse",
    "before-agent": "BeforeAgent",
    "after-tool": "AfterTool",
}


@pytest.mark.process
@pytest.mark.parametrize(
    ("shim", "file", "project_dir", "names"),
    [
        ("codex/user-prompt-submit", "codex_user_prompt_submit.json", None, "rotate-"),
        ("codex/session-start", "codex_session_start.json", None, "52 entries"),
        ("codex/pre-tool-use", "codex_pre_tool_use_apply_patch.json", None, "invoice-builder"),
        ("gemini/before-agent", "gemini_before_agent.json", "GEMINI_PROJECT_DIR", "rotate-"),
        ("gemini/session-start", "gemini_session_start.json", "GEMINI_PROJECT_DIR", "entries"),
        ("gemini/after-tool", "gemini_after_tool_write_file.json", "GEMINI_PROJECT_DIR", "invoice"),
    ],
)
def test_codex_and_gemini_shims_print_one_json_document(
    daemon: Path, shim: str, file: str, project_dir: str | None, names: str
) -> None:
    environment = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    environment["KROUTE_HOOK_BIN"] = str(BIN / "kroute-hook")
    if project_dir is not None:
        environment[project_dir] = str(daemon)
    sub = daemon / "src"  # Codex runs hooks in the session directory, maybe below the root
    result = subprocess.run(
        [str(HOOKS / shim)],
        input=payload(file, daemon),
        capture_output=True,
        env=environment,
        cwd=sub if project_dir is None else daemon,
        timeout=30,
    )
    assert result.returncode == 0
    output = json.loads(result.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == EVENT_OF[shim.split("/")[1]]
    assert names in output["additionalContext"]
    if not shim.endswith("session-start"):  # an orientation is not a route: not logged
        assert log_lines(daemon)[-1]["source"] == f"{shim.split('/')[0]}/{output['hookEventName']}"


@pytest.mark.process
@pytest.mark.parametrize(
    "outside", ["/etc/x.go", "/etc/billing/invoice.py", "../x/invoice.py", "src/../../invoice.py"]
)
def test_a_file_outside_the_repository_gets_nothing(daemon: Path, outside: str) -> None:
    edit = json.loads(payload("pre_tool_use_edit.json", daemon))
    inside, _ = run_hook("claude/pre-tool-use", json.dumps(edit).encode(), daemon)
    assert "governs" in inside.stdout.decode()  # the payload as recorded, for contrast
    edit["tool_input"]["file_path"] = outside if outside.startswith("/") else str(daemon / outside)
    result, _ = run_hook("claude/pre-tool-use", json.dumps(edit).encode(), daemon)
    assert (result.returncode, result.stdout) == (0, b"")


@pytest.mark.process
def test_a_codex_shell_command_gets_nothing_through_the_shim(daemon: Path) -> None:
    result, _ = run_hook(
        "codex/pre-tool-use", payload("codex_pre_tool_use_bash.json", daemon), daemon
    )
    assert (result.returncode, result.stdout) == (0, b"")


# What the hook's fast path (a daemon answers) must not import: each costs milliseconds of
# every prompt, and none is needed to ask the daemon and print its answer.
FAST_PATH_UNNEEDED = (
    "dataclasses",
    "inspect",
    "typing",
    "subprocess",
    "router.harnesses",
    "hashlib",  # OpenSSL: the socket's name is hashed without it
    "pathlib",  # and the regular expressions it brings: paths are strings here
    "re",
    "socket",  # enum and selectors: `_socket` does
    "json",  # the payload goes to the daemon as it came
    "threading",  # `_thread` keeps the deadline
    "router.serve",
    "__future__",  # annotations the fast path's modules do not need at run time are quoted
)
# Only what the hook itself imports counts: an editable install's import finder brings
# pathlib and re into every process before the hook runs (a regular install does not).
FAST_PATH_PROBE = """
import sys
before = set(sys.modules)
from router.integrations import hook
hook.main(["claude", "UserPromptSubmit"])
print(*[m for m in sys.argv[1:] if m in set(sys.modules) - before], file=sys.stderr)
"""


@pytest.mark.process
def test_the_fast_path_imports_nothing_it_does_not_need(daemon: Path) -> None:
    result = probe_prompt(FAST_PATH_PROBE, FAST_PATH_UNNEEDED, daemon)
    assert result.returncode == 0, result.stderr
    assert EM in result.stdout.decode()  # the daemon answered
    assert result.stderr.decode().split() == []


def test_the_hook_script_imports_the_hook_alone() -> None:
    """`kroute-hook` is installed as a script, not as an entry point whose wrapper would
    import `re` before the hook runs."""
    assert script_imports(REPO / "bin" / "kroute-hook") == {"os", "router.integrations.hook"}
    assert (BIN / "kroute-hook").read_text(encoding="utf-8").splitlines()[1:] == (
        (REPO / "bin" / "kroute-hook").read_text(encoding="utf-8").splitlines()[1:]
    )


# -- long prompts and deadlines ---------------------------------------------------------------

ASKED = "the webhook signing key leaked: rotate it. The log I pasted:\n"


def pasted(words: int) -> str:
    """Return `words` words of a pasted log: lines of a deploy's output."""
    line = "deploy step finished ok on worker node with exit status zero after retry".split()
    lines = [line] * (words // len(line)) + [line[: words % len(line)]]
    return "\n".join(" ".join(words) for words in lines) + "\n"


def prompt_payload(prompt: str, repo: Path) -> bytes:
    return json.dumps({"session_id": "long", "cwd": str(repo), "prompt": prompt}).encode()


@pytest.mark.process
@pytest.mark.parametrize("words", [5_000, 150_000])
def test_a_long_prompt_injects_pointers_through_the_daemon(daemon: Path, words: int) -> None:
    prompt = ASKED + pasted(words)
    raw = prompt_payload(prompt, daemon)
    assert len(prompt.split()) > words and len(raw) < BODY_CAP  # no refusal below the cap
    result, _ = run_hook("claude/user-prompt-submit", raw, daemon, KROUTE_HOOK_BIN="/nonexistent")
    assert "rotate-webhook-signing-key.md" in result.stdout.decode()  # the fast path answered
    assert log_lines(daemon)[-1]["injected"] is True


class Canned:
    """A 'daemon' at a repository's socket, found as a daemon is (status file, root file):
    it keeps the request line of every request it gets and answers each with `reply`, or
    never (None), once it has answered the `first` replies in turn."""

    def __init__(self, repo: Path, reply: bytes | None, *first: bytes) -> None:
        self.target = target(repo)
        self.reply = reply
        self.first = list(first)  # answered before `reply`, one request each
        self.requests: list[bytes] = []
        self.held: list[socket.socket] = []
        places = self.target.places
        places.runtime.mkdir(parents=True, exist_ok=True)
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(str(places.socket))
        self.server.listen(16)
        self.server.settimeout(0.05)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()
        status = {"pid": os.getpid(), "socket": str(places.socket), "version": __version__}
        places.status.write_text(json.dumps({**status, "root": str(repo), "started_at": "x"}))
        presence.write_root(places, repo, repo / "kroute.toml")

    def serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            conn.settimeout(1.0)
            try:
                head = conn.recv(65536)
            except OSError:
                head = b""
            if head:
                self.requests.append(head.split(b"\r\n", 1)[0])
            reply = self.first.pop(0) if head and self.first else self.reply
            if head and reply is not None:
                with contextlib.suppress(OSError):
                    conn.sendall(reply)
                conn.close()
            else:
                self.held.append(conn)

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        for conn in self.held:
            conn.close()
        self.server.close()
        places = self.target.places
        for leftover in (places.status, presence.root_file(places)):
            leftover.unlink(missing_ok=True)


@pytest.mark.process
def test_a_request_curl_gave_up_on_is_not_sent_again(repo: Path) -> None:
    silent = Canned(repo, None)  # takes every request, answers none
    try:
        result, _ = prompt_hook(repo)
    finally:
        silent.close()
    assert (result.returncode, result.stdout) == (0, b"")
    # curl's request alone: kroute-hook was not run to send the same work again
    assert silent.requests == [b"POST /v1/hook/claude/UserPromptSubmit?mode=live HTTP/1.1"]


@pytest.mark.process
def test_kroute_hook_takes_the_daemons_answer_as_final(repo: Path) -> None:
    refused = b"HTTP/1.1 413 Payload Too Large\r\nContent-Length: 2\r\n\r\n{}"
    busy = Canned(repo, refused)
    try:
        result = subprocess.run(
            [str(BIN / "kroute-hook"), "claude", "UserPromptSubmit"],
            input=payload("user_prompt_submit.json", repo),
            capture_output=True,
            env={
                **os.environ,
                "CLAUDE_PROJECT_DIR": str(repo),
                "KROUTE_HOOK_DEADLINE": "20",
                "KROUTE_HOOK_BUDGET": "20",
            },
            cwd=repo,
            timeout=60,
        )
    finally:
        busy.close()
    # asked once, and not answered in process instead (which would print the pointers)
    assert (result.returncode, result.stdout) == (0, b"")
    assert len(busy.requests) == 1


# -- the first prompts of a session --------------------------------------------------------------

# What answering in process loads: a hook that starts a daemon needs none of it.
ENGINE_MODULES = (
    "router.serve.service",
    "router.serve.daemon",
    "router.runtime.engine",
    "router.catalog.reader",
    "router.route.assembly",
)
SPAWN_PROBE = """
import os, sys, time
from router.integrations import hook
hook.answer("claude", "UserPromptSubmit", sys.stdin.buffer.read(), os.environ)
print(*[m for m in sys.argv[1:] if m in sys.modules], file=sys.stderr)
"""


def daemon_process(repo: Path) -> bool:
    """Return whether a daemon process of `repo` lives: serving, or spawned and starting."""
    t = target(repo)
    status = client.read_status(t) or {}
    return presence.alive(int(status.get("pid", 0))) or bool(
        t.places.runtime.is_dir() and launcher.starting(t)
    )


@pytest.mark.process
def test_a_hook_without_a_daemon_starts_one_first_and_loads_no_engine(repo: Path) -> None:
    result = probe_prompt(SPAWN_PROBE, ENGINE_MODULES, repo, KROUTE_HOOK_BUDGET="")
    assert result.returncode == 0, result.stderr
    assert result.stderr.decode().split() == []  # no engine: the answer is the daemon's
    assert daemon_process(repo)  # it outlived the hook
    assert eventually(lambda: client.state(target(repo))[0] == "running", 60)


@pytest.mark.process
def test_session_start_starts_the_daemon_past_a_deadline_a_busy_machine_misses(
    repo: Path,
) -> None:
    result, _ = run_hook(
        "claude/session-start",
        payload("session_start.json", repo),
        repo,
        KROUTE_HOOK_DEADLINE="0.1",  # over before the engine could be imported
    )
    assert result.returncode == 0
    assert eventually(lambda: client.state(target(repo))[0] == "running", 60)


OK_TEXT = b"pointers, once loaded\n"
LOADING_REPLY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 2\r\n\r\n{}"
LOADED_REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(OK_TEXT), OK_TEXT)


@pytest.mark.process
def test_a_prompt_while_the_daemon_loads_waits_for_it_within_the_budget(repo: Path) -> None:
    loading = Canned(repo, LOADED_REPLY, LOADING_REPLY, LOADING_REPLY)
    try:
        result, _ = prompt_hook(repo, KROUTE_HOOK_BUDGET="60")
    finally:
        loading.close()
    assert (result.returncode, result.stdout) == (0, OK_TEXT)
    # curl's request and kroute-hook's first both found it loading; the third was answered
    assert len(loading.requests) == 3


@pytest.mark.process
def test_a_prompt_right_after_the_spawn_gets_the_real_daemons_pointers(repo: Path) -> None:
    launcher.spawn(target(repo), os.environ)  # still starting or loading when the hook runs
    result, _ = prompt_hook(repo, KROUTE_HOOK_BUDGET="60")
    assert "rotate-webhook-signing-key.md" in result.stdout.decode()
    assert log_lines(repo)[-1]["source"] == "claude/UserPromptSubmit"  # the daemon answered
