"""Golden files of everything a user or a harness reads, from the real programs.

The demo catalog's routes (the text report, `--json` and `--explain`) come from `kroute route`
answered by a real daemon; each harness's events come from its real shim (hooks/<harness>/)
over curl to a real daemon, the shell pipe from hooks/route, the git hook from a real
`git commit`; the shadow lines are those that daemon wrote. fixtures/golden/ holds them;
`pytest --update-golden` records them again after a change meant to alter them.

Normalised before comparing (in the test, never in the files): the demo's copy's absolute
path becomes `<REPO>` and the temporary KROUTE_HOME `<HOME>`, in every output; in shadow
lines, every time (`at`, a read's offer's too) becomes `<AT>` and the time taken (`elapsed_us`)
0; in a log file's path, the repository's key (a digest of its absolute path) becomes `<KEY>`
and the day `<DAY>`. Sessions are those of the recorded payloads (fixed), so they are kept.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from router import __version__, client
from testing import golden
from testing.paths import DEMO, FIXTURES, REPO
from testing.process import kroute, stop_daemons

# one worker records each module fixture's daemon, hooks and commit once (pyproject: addopts)
pytestmark = [pytest.mark.process, pytest.mark.xdist_group("golden")]

HOOKS = REPO / "hooks"
PAYLOADS = FIXTURES / "hook_payloads"
BIN = Path(sys.executable).parent
DEADLINE = "60"  # seconds: the shims' deadlines (0.4 s for curl) are not under test here
# variables of the developer's shell that would change what the programs print
UNSET = (
    "KROUTE_CONFIG", "KROUTE_MODE", "KROUTE_SKIP", "KROUTE_SOCKET", "NO_COLOR",
    "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE",
)  # fmt: skip


# -- the places: a copy of the demo, its own home, a daemon -----------------------------------


@dataclass(frozen=True, slots=True)
class Place:
    """A copy of the demo catalog with its own KROUTE_HOME and the environment to reach it."""

    repo: Path
    home: Path
    env: dict[str, str]

    def normalised(self, output: str) -> str:
        """Return `output` with this place's absolute paths replaced by `<REPO>` and `<HOME>`."""
        return output.replace(str(self.repo), "<REPO>").replace(str(self.home), "<HOME>")

    def logs(self) -> dict[str, list[str]]:
        """Return every shadow log file under the home (routes and reads), by the path below
        the home with its day normalised, as its lines."""
        found = {}
        for path in sorted((self.home / "shadow").rglob("*.jsonl")):
            _, *rest = path.relative_to(self.home / "shadow").parts
            name = re.sub(r"\d{4}-\d{2}-\d{2}", "<DAY>", "/".join(("shadow", "<KEY>", *rest)))
            found[name] = path.read_text(encoding="utf-8").splitlines()
        return found


def place(tmp_path_factory: pytest.TempPathFactory, name: str) -> Place:
    base = tmp_path_factory.mktemp(name)
    repo = (base / "repo").resolve()
    shutil.copytree(DEMO, repo)
    home = (base / "home").resolve()
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env.update(KROUTE_HOME=str(home), XDG_RUNTIME_DIR=str(home / "run"))
    return Place(repo, home, env)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Place]:
    """A place whose daemon is running."""
    at = place(tmp_path_factory, "served")
    started = kroute("start", cwd=at.repo, env=at.env)
    assert started.returncode == 0, started.stderr
    yield at
    kroute("stop", cwd=at.repo, env=at.env)
    stop_daemons(at.home / "run" / "kroute")


def new_lines(at: Place, before: dict[str, list[str]]) -> str:
    """Return the shadow lines written since `before`, normalised, file by file. A line is
    written before the daemon sends its answer, so none is still on its way."""
    out: list[str] = []
    for name, lines in at.logs().items():
        fresh = lines[len(before.get(name, [])) :]
        out.extend(f"{name}: {shadow_line(at, line)}\n" for line in fresh)
    return "".join(out)


def shadow_line(at: Place, line: str) -> str:
    """Return a shadow line with its time and duration normalised (and the place's paths)."""
    record = json.loads(line)  # a line must be one JSON document
    assert isinstance(record, dict)
    line = re.sub(r'"at":"[^"]*"', '"at":"<AT>"', line)  # a read's offer has its route's
    line = re.sub(r'"elapsed_us":\d+', '"elapsed_us":0', line, count=1)
    return at.normalised(line)


# -- routes --------------------------------------------------------------------------------------

# The tasks the README and the tests use, one a route finds nothing for, and two anchored on a
# governed source file (by --path, and by --focus as the PreToolUse hook asks).
ROUTES = {
    "retry-webhook-delivery": ("retry a failed webhook delivery",),
    "retry-delivery": ("retry a failed delivery",),
    "retry-delivery-budget-1": ("--budget", "1", "retry a failed delivery"),
    "retry-delivery-how-to": ("--kind", "how_to", "retry a failed delivery"),
    "rotate-signing-key": ("rotate the webhook signing key",),
    "retry-with-jitter-why": ("why do we retry webhooks with jitter",),
    "add-a-column": ("add a column to the events table",),
    "throttling-at-the-edge": ("why is throttling applied at the edge",),
    "silent": ("sloth molasses glacier",),
    "governed-path": ("--path", "src/billing/invoice.py", "change how invoice totals round"),
    "governed-focus": ("--focus", "src/billing/invoice.py", "change how invoice totals round"),
}
FORMATS = {"text": (), "json": ("--json",), "explain": ("--explain",)}
SUFFIX = {"text": "txt", "json": "json", "explain": "explain.json"}


@dataclass(frozen=True, slots=True)
class Output:
    """What one run printed, normalised, and the shadow lines it wrote."""

    stdout: str
    shadow: str


@pytest.fixture(scope="module")
def routed(served: Place) -> dict[tuple[str, str], Output]:
    """Every route case in every format, asked of the daemon one after another."""
    out = {}
    for case, args in ROUTES.items():
        for fmt, flags in FORMATS.items():
            before = served.logs()
            done = kroute("route", *flags, *args, cwd=served.repo, env=served.env)
            assert done.returncode == 0, (case, fmt, done.stderr)
            assert done.stderr == "", (case, fmt, done.stderr)
            out[case, fmt] = Output(served.normalised(done.stdout), new_lines(served, before))
    return out


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", ROUTES)
def test_a_route_prints_what_was_recorded(
    routed: dict[tuple[str, str], Output], case: str, fmt: str, request: pytest.FixtureRequest
) -> None:
    golden.check(request, f"route/{case}.{SUFFIX[fmt]}", routed[case, fmt].stdout)


@pytest.mark.parametrize("case", ROUTES)
def test_a_route_writes_the_shadow_lines_recorded(
    routed: dict[tuple[str, str], Output], case: str, request: pytest.FixtureRequest
) -> None:
    lines = "".join(routed[case, fmt].shadow for fmt in FORMATS)
    golden.check(request, f"route/{case}.shadow.jsonl", lines)


def test_the_route_json_and_the_text_report_agree(routed: dict[tuple[str, str], Output]) -> None:
    # the golden files are two views of one route: the JSON carries the report it printed
    for case in ROUTES:
        document = json.loads(routed[case, "json"].stdout)
        assert document["text"] + "\n" == routed[case, "text"].stdout, case
    assert json.loads(routed["silent", "json"].stdout)["pointers"] == []


def test_a_route_without_the_daemon_prints_the_same_bytes(
    served: Place, routed: dict[tuple[str, str], Output]
) -> None:
    args = ("route", "--no-daemon", "--json", *ROUTES["governed-path"])
    alone = kroute(*args, cwd=served.repo, env=served.env)
    assert served.normalised(alone.stdout) == routed["governed-path", "json"].stdout


# -- hooks ---------------------------------------------------------------------------------------

# (harness, shim, payload): every event each harness's shim handles, with every recorded payload
CLAUDE = [
    ("session-start", "session_start.json"),
    ("user-prompt-submit", "user_prompt_submit.json"),
    ("user-prompt-submit", "user_prompt_submit_camel.json"),
    ("user-prompt-submit", "user_prompt_out_of_scope.json"),
    ("user-prompt-submit", "user_prompt_empty.json"),
    ("user-prompt-submit", "user_prompt_slash_command.json"),
    ("user-prompt-submit", "user_prompt_task_notification.json"),
    ("pre-tool-use", "pre_tool_use_edit.json"),
    ("pre-tool-use", "pre_tool_use_bash.json"),
    ("post-tool-use", "post_tool_use_read.json"),
    ("post-tool-use", "post_tool_use_read_source.json"),
    ("post-tool-use", "post_tool_use_read_unpointed.json"),
]
CODEX = [
    ("session-start", "codex_session_start.json"),
    ("user-prompt-submit", "codex_user_prompt_submit.json"),
    ("pre-tool-use", "codex_pre_tool_use_apply_patch.json"),
    ("pre-tool-use", "codex_pre_tool_use_bash.json"),
    ("post-tool-use", "codex_post_tool_use_bash_read.json"),
]
GEMINI = [
    ("session-start", "gemini_session_start.json"),
    ("before-agent", "gemini_before_agent.json"),
    ("after-tool", "gemini_after_tool_read_file.json"),
    ("after-tool", "gemini_after_tool_write_file.json"),
]
EVENTS = [
    *(("claude", shim, file) for shim, file in CLAUDE),
    *(("codex", shim, file) for shim, file in CODEX),
    *(("gemini", shim, file) for shim, file in GEMINI),
]
PIPED = {"add-a-column": "add a column to the events table", "silent": "sloth molasses glacier"}


def event_name(harness: str, shim: str, file: str) -> str:
    return f"{harness}.{shim}.{file.removesuffix('.json')}"


def run_shim(at: Place, harness: str, shim: str, file: str) -> subprocess.CompletedProcess[bytes]:
    """Run one harness's shim as that harness runs it: Claude Code names the project in
    CLAUDE_PROJECT_DIR, Gemini in GEMINI_PROJECT_DIR, Codex runs it in the session's
    directory (here below the root)."""
    data = (PAYLOADS / file).read_bytes().replace(b"REPO", str(at.repo).encode())
    env = {**at.env, "KROUTE_HOOK_BIN": str(BIN / "kroute-hook"), "KROUTE_VERSION": __version__}
    # a loaded machine must not turn an answer into the silence a missed deadline gives
    env.update(KROUTE_CURL_DEADLINE=DEADLINE, KROUTE_HOOK_DEADLINE=DEADLINE)
    cwd = at.repo
    if harness == "claude":
        env["CLAUDE_PROJECT_DIR"] = str(at.repo)
    elif harness == "gemini":
        env["GEMINI_PROJECT_DIR"] = str(at.repo)
    else:
        cwd = at.repo / "src"
    return subprocess.run(
        [str(HOOKS / harness / shim)], input=data, capture_output=True, env=env, cwd=cwd, timeout=60
    )


@pytest.fixture(scope="module")
def hooked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Output]]:
    """Every harness event, then the shell pipe, in the order listed, through one daemon of
    its own (a session's events may depend on those before them)."""
    at = place(tmp_path_factory, "hooked")
    started = kroute("start", cwd=at.repo, env=at.env)
    assert started.returncode == 0, started.stderr
    out = {}
    try:
        # the fast path (curl to the daemon) is the one a harness takes with a daemon running
        assert client.state(client.target(at.repo, at.repo / "kroute.toml", at.env))[0] == (
            "running"
        )
        for harness, shim, file in EVENTS:
            before = at.logs()
            done = run_shim(at, harness, shim, file)
            # a hook never fails or talks on stderr: the agent would show it
            assert (done.returncode, done.stderr) == (0, b""), (harness, shim, file)
            stdout = at.normalised(done.stdout.decode())
            out[event_name(harness, shim, file)] = Output(stdout, new_lines(at, before))
        for case, task in PIPED.items():
            before = at.logs()
            done = subprocess.run(
                [str(HOOKS / "route")],
                input=task.encode(),
                capture_output=True,
                cwd=at.repo,
                env={**at.env, "KROUTE_BIN": str(BIN / "kroute")},
                timeout=60,
            )
            assert (done.returncode, done.stderr) == (0, b""), case
            out[f"pipe.{case}"] = Output(at.normalised(done.stdout.decode()), new_lines(at, before))
        yield out
    finally:
        kroute("stop", cwd=at.repo, env=at.env)
        stop_daemons(at.home / "run" / "kroute")


HOOKED = [event_name(*event) for event in EVENTS] + [f"pipe.{case}" for case in PIPED]


@pytest.mark.parametrize("name", HOOKED)
def test_a_shim_prints_what_was_recorded(
    hooked: dict[str, Output], name: str, request: pytest.FixtureRequest
) -> None:
    golden.check(request, f"hook/{name}.out", hooked[name].stdout)


@pytest.mark.parametrize("name", HOOKED)
def test_a_hook_event_writes_the_shadow_lines_recorded(
    hooked: dict[str, Output], name: str, request: pytest.FixtureRequest
) -> None:
    golden.check(request, f"hook/{name}.shadow.jsonl", hooked[name].shadow)


def test_the_pipe_prints_the_routes_text_report(
    hooked: dict[str, Output], routed: dict[tuple[str, str], Output]
) -> None:
    for case in PIPED:
        assert hooked[f"pipe.{case}"].stdout == routed[case, "text"].stdout


# -- git pre-commit ------------------------------------------------------------------------------


def git(at: Place, *args: str) -> subprocess.CompletedProcess[str]:
    """Run git in the place, with no user or system configuration (that would add hints)."""
    env = {
        **at.env,
        "PATH": f"{BIN}{os.pathsep}{at.env['PATH']}",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Dev",
        "GIT_AUTHOR_EMAIL": "dev@example.invalid",
        "GIT_COMMITTER_NAME": "Dev",
        "GIT_COMMITTER_EMAIL": "dev@example.invalid",
    }
    return subprocess.run(
        ["git", *args], cwd=at.repo, capture_output=True, text=True, env=env, timeout=120
    )


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """What the installed pre-commit hook told a real `git commit`: advice on a governed
    source file, then the block on a broken catalog file (stderr, then the exit status)."""
    at = place(tmp_path_factory, "committed")
    for args in (("init", "-q", "-b", "main"), ("add", "-A"), ("commit", "-qm", "demo")):
        assert git(at, *args).returncode == 0
    assert kroute("install", "git", cwd=at.repo, env=at.env).returncode == 0
    out = {}
    source = at.repo / "src" / "billing" / "invoice.py"
    source.write_text(source.read_text() + "\n# rounding note\n")
    git(at, "add", "src/billing/invoice.py")
    done = git(at, "commit", "-qm", "touch invoice")
    out["advice"] = at.normalised(f"{done.stdout}{done.stderr}exit {done.returncode}\n")
    broken = at.repo / "docs" / "decisions" / "0012-broken.md"
    broken.write_text("---\nid: TW-DR-0012\nsummary: [unclosed\n---\n")
    git(at, "add", str(broken))
    done = git(at, "commit", "-qm", "broken doc")
    out["blocked"] = at.normalised(f"{done.stdout}{done.stderr}exit {done.returncode}\n")
    stop_daemons(at.home / "run" / "kroute")
    return out


@pytest.mark.parametrize("case", ["advice", "blocked"])
def test_the_pre_commit_hook_prints_what_was_recorded(
    committed: dict[str, str], case: str, request: pytest.FixtureRequest
) -> None:
    golden.check(request, f"hook/git.pre-commit.{case}.out", committed[case])
