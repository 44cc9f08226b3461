"""Session memory (router.serve.session): a pointer is injected once per agent session."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest

from router.catalog import config
from router.harnesses import printed, registry
from router.logbook import shadow
from router.logbook.recorder import Recorder
from router.runtime.engine import Engine
from router.serve import service, session
from testing.paths import DEMO

EM = "\u2014"
# Five prompts of one session that reach the same five documents of the demo catalog.
PROMPTS = [
    "the webhook signing key showed up in a screenshot, rotate it today",
    "rotate the webhook signing key",
    "after we rotate the signing key, check webhook signatures still verify",
    "the webhook signing key rotation: what are the steps",
    "webhook signatures and the signing key, once more",
]


class Log:
    """A recorder double: keeps what would have been written."""

    def __init__(self) -> None:
        self.lines: list[shadow.Emitted] = []

    def write(self, emitted: shadow.Emitted, *, redact: bool = False) -> None:
        self.lines.append(emitted)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load(config.load(DEMO / "kroute.toml"))


def app_with_log(engine: Engine) -> tuple[service.App, Log]:
    log = Log()
    return service.App(engine, cast(Recorder, log)), log


def prompt(app: service.App, text: str, session_id: str = "s1") -> str:
    raw = json.dumps({"session_id": session_id, "cwd": str(DEMO), "prompt": text}).encode()
    return str(app.answer("POST", "/v1/hook/claude/UserPromptSubmit", raw).document)


def session_start(app: service.App, source: str, session_id: str = "s1") -> str:
    raw = json.dumps({"session_id": session_id, "cwd": str(DEMO), "source": source}).encode()
    return str(app.answer("POST", "/v1/hook/claude/SessionStart", raw).document)


def pointer_lines(printed: str) -> list[str]:
    return [line for line in printed.splitlines() if EM in line]


def test_five_prompts_of_one_session_inject_each_pointer_once(engine: Engine) -> None:
    app, log = app_with_log(engine)
    printed = [prompt(app, text) for text in PROMPTS]
    injected = [line for text in printed for line in pointer_lines(text)]
    assert injected and len(injected) == len(set(injected))
    assert prompt(app, PROMPTS[0]) == ""  # all shown already: nothing printed ...
    assert len(log.lines) == len(PROMPTS) + 1  # ... but the route is still logged
    last = log.lines[-1]
    assert last.document is not None
    assert last.document["pointers"] and last.injected is False
    assert printed[1:] == [""] * 4  # the same five documents every time


def test_a_route_with_some_pointers_already_shown_says_how_many(engine: Engine) -> None:
    app, _ = app_with_log(engine)
    prompt(app, PROMPTS[0])
    said = prompt(app, "retry a failed webhook delivery signed with the old signing key")
    lines = said.splitlines()
    assert lines[0] == printed.HEADER
    assert [line.split()[0] for line in pointer_lines(said)] == [
        "docs/how-to/redeliver-failed-webhook.md",
        "docs/specs/webhook-delivery.md",
    ]
    assert lines[-1] == "  3 more already shown in this session"


def test_a_new_session_gets_the_pointers_again(engine: Engine) -> None:
    app, _ = app_with_log(engine)
    first = prompt(app, PROMPTS[1], "s1")
    assert pointer_lines(first)
    assert prompt(app, PROMPTS[1], "s1") == ""
    assert pointer_lines(prompt(app, PROMPTS[1], "s2")) == pointer_lines(first)


def test_compact_and_clear_reset_what_the_session_was_shown(engine: Engine) -> None:
    app, _ = app_with_log(engine)
    first = prompt(app, PROMPTS[1])
    assert prompt(app, PROMPTS[1]) == ""
    assert session_start(app, "resume") == ""  # a resumed session keeps its memory
    assert prompt(app, PROMPTS[1]) == ""
    compacted = session_start(app, "compact")  # a brief orientation after a compaction ...
    assert "once per session" not in compacted and "entries" in compacted
    assert prompt(app, PROMPTS[1]) == first  # ... and the pointers may come again
    assert "entries" in session_start(app, "clear")
    assert prompt(app, PROMPTS[1]) == first


def test_session_start_orients_on_startup_clear_and_compact_only(engine: Engine) -> None:
    app, _ = app_with_log(engine)
    for source, oriented in [
        ("startup", True),
        ("clear", True),
        ("resume", False),
        ("compact", True),
    ]:
        printed = session_start(app, source)
        assert bool(printed) is oriented, source
        if oriented:
            assert json.loads(printed)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    plan = registry.plan("claude", "SessionStart", {"session_id": "s", "source": "resume"})
    assert (plan.kind, plan.skip, plan.reset) == ("skip", "session-resume", False)
    assert registry.plan("claude", "SessionStart", {"session_id": "s"}).kind == "orientation"


def test_a_changed_entry_is_injected_again(copy_tree: Callable[[Path], Path]) -> None:
    repo = copy_tree(DEMO)
    engine = Engine.load(config.load(repo / "kroute.toml"))
    app, _ = app_with_log(engine)
    first = pointer_lines(prompt(app, PROMPTS[1]))
    assert any("rotate-webhook-signing-key.md" in line for line in first)
    doc = repo / "docs/how-to/rotate-webhook-signing-key.md"
    doc.write_text(doc.read_text().replace("summary: ", "summary: Revised. ", 1))
    engine.update(["docs/how-to/rotate-webhook-signing-key.md"])
    again = pointer_lines(prompt(app, PROMPTS[1]))
    assert len(again) == 1 and "Revised." in again[0]


def test_the_memory_keeps_only_the_most_recently_used_sessions() -> None:
    sessions = session.Sessions(limit=2)
    assert sessions.claim("a", {"x": "1"}) == {"x"}
    assert sessions.claim("b", {"x": "1"}) == {"x"}
    assert sessions.claim("a", {"x": "1"}) == set()  # `a` is now the most recently used
    sessions.claim("c", {"x": "1"})  # forgets `b`
    assert len(sessions) == 2
    assert sessions.claim("b", {"x": "1"}) == {"x"}
    assert sessions.claim("a", {"x": "2"}) == {"x"}  # the entry changed


def test_the_slow_path_remembers_nothing(copy_tree: Callable[[Path], Path]) -> None:
    repo = copy_tree(DEMO).resolve()
    raw = json.dumps({"session_id": "s1", "cwd": str(repo), "prompt": PROMPTS[1]}).encode()
    env = {**os.environ, "KROUTE_MODE": "live"}
    toml = repo / "kroute.toml"
    once = service.hook_in_process(repo, toml, "claude", "UserPromptSubmit", raw, env)
    twice = service.hook_in_process(repo, toml, "claude", "UserPromptSubmit", raw, env)
    assert pointer_lines(once) and once == twice
