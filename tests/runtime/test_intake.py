"""Requests as they arrive -> typed records (router.runtime.intake): every member checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.base.errors import MalformedJsonError, RequestError
from router.catalog import config
from router.runtime import intake
from testing.paths import DEMO


@pytest.fixture
def demo() -> Path:
    return DEMO


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "JSON object"),
        ({}, "`task` is missing"),
        ({"task": 3}, "`task` is missing or not text"),
        ({"task": "x", "budget": "five"}, "`budget` must be a whole number"),
        ({"task": "x", "budget": 2.5}, "whole number"),
        ({"task": "x", "budget": True}, "whole number"),
        ({"task": "x", "budget": 0}, "budget is 0"),
        ({"task": "x", "order": "sideways"}, "order is 'sideways'"),
        ({"task": "x", "paths": [1]}, "`paths` must be a list"),
        ({"task": "x", "kind": ["a"]}, "`kind` must be text"),
    ],
)
def test_bad_requests_name_the_member(demo: Path, body: object, message: str) -> None:
    with pytest.raises(RequestError, match=message):
        intake.route(body, config.load(demo / "kroute.toml"))


def test_unknown_strategy_is_refused(demo: Path) -> None:
    with pytest.raises(RequestError, match="strategy is 'psychic'"):
        intake.route({"task": "x", "strategy": "psychic"}, config.load(demo / "kroute.toml"))


def test_a_route_request_takes_the_config_defaults_and_reads_auto() -> None:
    cfg = config.load(DEMO / "kroute.toml")
    ask = intake.route({"task": "x", "strategy": "auto", "focus": "src/a.py"}, cfg)
    assert (ask.request.budget, ask.request.order) == (cfg.budget, cfg.order)
    assert ask.auto and not ask.budget_given and ask.focus == intake.FocusAsk("src/a.py")
    assert intake.route({"task": "x", "budget": 2}, cfg).budget_given


def test_a_body_that_is_not_json_is_malformed() -> None:
    with pytest.raises(MalformedJsonError, match="not valid JSON"):
        intake.decode(b"{")
    assert intake.decode(b"") is None


def test_logged_keeps_the_members_worth_logging() -> None:
    body = {"task": "t", "budget": 2, "focus": {"path": "a.py", "content": "x"}, "junk": 1}
    assert intake.logged(body) == {"budget": 2, "focus": "a.py"}
