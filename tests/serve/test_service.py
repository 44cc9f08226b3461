"""The service layer (router.serve.service): every endpoint and status code, in process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router.base import errors
from router.base.errors import KrouteError, RequestError
from router.catalog import config
from router.client import locate
from router.harnesses import printed
from router.logbook import shadow
from router.runtime.engine import Engine
from router.serve import grant, service
from testing.paths import DEMO, FIXTURES

PAYLOADS = FIXTURES / "hook_payloads"


class Log:
    """A recorder double: keeps what would have been written."""

    def __init__(self) -> None:
        self.lines: list[shadow.Emitted] = []

    def write(self, emitted: shadow.Emitted, *, redact: bool = False) -> None:
        self.lines.append(emitted)


class Daemon:
    """A control double: what a running daemon would answer."""

    def status(self) -> dict[str, Any]:
        return {"pid": 1}

    def diagnostics(self) -> dict[str, Any]:
        return {"diagnostics": []}

    def reload(self) -> dict[str, Any]:
        return {"entries": 0}

    def shutdown(self) -> dict[str, Any]:
        return {"stopping": True}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load(config.load(DEMO / "kroute.toml"))


def app_of(engine: Engine, control: Any = None) -> tuple[service.App, Log]:
    log = Log()
    return service.App(engine, log, control), log  # type: ignore[arg-type]


def body(document: Any) -> bytes:
    return json.dumps(document).encode()


def test_a_route_is_answered_and_logged_once(engine: Engine) -> None:
    app, log = app_of(engine)
    answer = app.answer("POST", "/v1/route", body({"task": "rotate the webhook signing key"}), "t")
    assert answer.status == 200 and answer.document["pointers"]
    assert [line.source for line in log.lines] == ["t"]
    assert log.lines[0].task == "rotate the webhook signing key"
    assert app.routes == 1


@pytest.mark.parametrize(
    ("method", "endpoint", "sent", "status", "code"),
    [
        ("POST", "/v1/route", b"{not json", 400, "bad_json"),
        ("POST", "/v1/route", body([1, 2]), 400, "bad_request"),
        ("POST", "/v1/route", body({"task": 3}), 400, "bad_request"),
        ("POST", "/v1/route", body({"task": "x", "budget": 1.5}), 400, "bad_request"),
        ("POST", "/v1/route", body({"task": "x", "strategy": "psychic"}), 400, "bad_request"),
        ("POST", "/v1/explain", body({"limit": 2}), 400, "bad_request"),
        ("POST", "/v1/intent", body({"text": 7}), 400, "bad_request"),
        ("POST", "/v1/matrix/relevance", body({"chunks": []}), 400, "bad_request"),
        ("GET", "/v1/route", b"", 405, "method_not_allowed"),
        ("POST", "/v1/nowhere", b"", 404, "not_found"),
        ("POST", "/v1/hook/claude/Nothing", b"{}", 404, "not_found"),
        ("GET", "/v1/status", b"", 404, "not_found"),  # no daemon behind this app
    ],
)
def test_every_failure_has_its_status_and_code(
    engine: Engine, method: str, endpoint: str, sent: bytes, status: int, code: str
) -> None:
    app, log = app_of(engine)
    answer = app.answer(method, endpoint, sent)
    assert (answer.status, answer.document["error"]["code"]) == (status, code)
    assert answer.document["error"]["message"]
    assert log.lines == []


def test_explain_intent_and_relevance_answer(engine: Engine) -> None:
    app, _ = app_of(engine)
    explained = app.answer("POST", "/v1/explain", body({"task": "retry a failed delivery"}))
    assert explained.status == 200 and "rows" in explained.document
    classified = app.answer("POST", "/v1/intent", body({"text": "why do we retry webhooks?"}))
    assert classified.status == 200 and classified.document["strategy"]
    relevance = app.answer(
        "POST",
        "/v1/matrix/relevance",
        body({"focus": {"path": "src/a.py"}, "chunks": [{"text": "x", "source": "src/a.py"}]}),
    )
    assert relevance.status == 200 and set(relevance.document) == {"kept", "dropped", "threshold"}


def test_daemon_endpoints_ask_the_control(engine: Engine) -> None:
    app, _ = app_of(engine, Daemon())
    assert app.answer("GET", "/v1/status", b"").document == {"pid": 1}
    assert app.answer("GET", "/v1/diagnostics", b"").document == {"diagnostics": []}
    assert app.answer("POST", "/v1/reload", b"").document == {"entries": 0}
    assert app.answer("POST", "/v1/shutdown", b"").document == {"stopping": True}


def test_a_hook_event_prints_what_the_harness_shows_and_is_logged(
    engine: Engine, tmp_path: Path
) -> None:
    app, log = app_of(engine)
    raw = (PAYLOADS / "user_prompt_submit.json").read_bytes().replace(b"REPO", str(DEMO).encode())
    answer = app.answer("POST", "/v1/hook/claude/UserPromptSubmit", raw, "claude/UserPromptSubmit")
    assert answer.status == 200 and answer.document.startswith(printed.HEADER)
    assert log.lines[0].injected is True and log.lines[0].text == answer.document
    quiet = app.answer("POST", "/v1/hook/claude/UserPromptSubmit?mode=shadow", raw)
    assert quiet.document == "" and log.lines[1].mode == "shadow"


def test_a_hook_payload_it_cannot_use_prints_nothing(engine: Engine) -> None:
    app, _ = app_of(engine)
    for raw in (b"", b"\xff\xfe", (PAYLOADS / "garbage.bin").read_bytes()):
        answer = app.answer("POST", "/v1/hook/claude/UserPromptSubmit", raw)
        assert (answer.status, answer.document) == (200, "")


def test_a_bug_in_one_request_is_a_500_and_the_app_keeps_answering(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = app_of(engine)

    def broken(*_: Any) -> None:
        raise ZeroDivisionError

    monkeypatch.setattr(engine, "explain", broken)
    answer = app.answer("POST", "/v1/explain", body({"task": "x"}))
    assert (answer.status, answer.document["error"]["code"]) == (500, "internal")
    assert app.answer("POST", "/v1/route", body({"task": "retry"})).status == 200


def test_document_raises_what_an_error_answer_says() -> None:
    assert service.document(service.Answer(200, {"a": 1})) == {"a": 1}
    with pytest.raises(RequestError, match="bad"):
        service.document(service.Answer(400, errors.document("bad_request", "bad")))
    with pytest.raises(KrouteError):
        service.document(service.Answer(500, errors.document("failed", "broke")))


def test_the_daemon_and_the_slow_path_call_the_same_answer(
    monkeypatch: pytest.MonkeyPatch, copy_tree: Any
) -> None:
    """One UserPromptSubmit through the daemon's dispatch and one through the hook's slow
    path both reach App.answer with the same endpoint."""

    from router.serve import daemon

    repo = copy_tree(DEMO).resolve()
    seen: list[tuple[str, str]] = []
    real = service.App.answer

    def spy(self: service.App, method: str, endpoint: str, raw: bytes, source: str = "") -> Any:
        seen.append((method, endpoint.partition("?")[0]))
        return real(self, method, endpoint, raw, source)

    monkeypatch.setattr(service.App, "answer", spy)
    raw = (PAYLOADS / "user_prompt_submit.json").read_bytes().replace(b"REPO", str(repo).encode())
    cfg = config.load(repo / "kroute.toml")
    places = locate.places(repo, repo / "kroute.toml", {"KROUTE_HOME": str(repo / ".home")}, 0)
    served = daemon.Daemon(cfg, places)
    served.prepare()
    status, text = served.dispatch("POST", "/v1/hook/claude/UserPromptSubmit", raw)
    env = {"KROUTE_HOME": str(repo / ".home"), "KROUTE_MODE": "live"}
    slow = service.hook_in_process(
        repo, repo / "kroute.toml", "claude", "UserPromptSubmit", raw, env
    )
    assert status == 200 and text == slow and text.startswith(printed.HEADER)
    assert seen == [("POST", "/v1/hook/claude/UserPromptSubmit")] * 2


def test_a_route_or_hook_whose_time_ran_out_answers_deadline_and_is_logged(
    engine: Engine,
) -> None:
    app, log = app_of(engine)
    raw = (PAYLOADS / "user_prompt_submit.json").read_bytes().replace(b"REPO", str(DEMO).encode())
    task = body({"task": "rotate the webhook signing key"})
    with grant.answering(lambda: True):  # what the server holds for a request out of time
        routed = app.answer("POST", "/v1/route", task)
        hooked = app.answer("POST", "/v1/hook/claude/UserPromptSubmit", raw)
    assert routed.status == 200 and routed.document["silence"]["reason"] == "deadline"
    assert (hooked.status, hooked.document) == (200, "")  # a hook out of time prints nothing
    documents = [line.document for line in log.lines]
    assert [d is not None and d["silence"]["reason"] for d in documents] == ["deadline"] * 2
    assert log.lines[1].injected is False
    with grant.answering(lambda: False):
        assert app.answer("POST", "/v1/route", task).document["pointers"]
