"""router.integrations.tool: the MCP tools' specs (name, description, JSON schema of the
arguments) and the check of a call's arguments, which refuses an unknown, missing or mistyped
argument with one sentence saying what to send instead."""

from __future__ import annotations

from typing import Any

import pytest

from router.base.errors import RequestError
from router.integrations import tool

ROUTE = tool.SPECS["route"]


def refusal(spec: tool.ToolSpec, arguments: dict[str, Any]) -> str:
    with pytest.raises(RequestError) as caught:
        tool.checked(spec, arguments)
    return str(caught.value)


def test_the_tools_served_and_their_specs_by_name() -> None:
    assert [spec.name for spec in tool.TOOLS] == [
        "route",
        "explain",
        "governing",
        "catalog",
        "why_not",
    ]
    assert {spec.name: spec for spec in tool.TOOLS} == tool.SPECS
    assert all(spec.says.endswith(".") for spec in tool.TOOLS)
    assert all(a.type in ("string", "array", "integer") for s in tool.TOOLS for a in s.arguments)


def test_a_tool_schema_takes_only_its_arguments_and_requires_the_required() -> None:
    assert ROUTE.schema() == {
        "type": "object",
        "properties": {
            "task": {"type": "string", "description": "The task, in the words the user gave it."},
            "paths": {
                "type": "array",
                "description": "Files the task is about, relative to the repository.",
                "items": {"type": "string"},
            },
            "budget": {
                "type": "integer",
                "description": "The most pointers to offer, 5 by default.",
                "minimum": 1,
            },
        },
        "required": ["task"],
        "additionalProperties": False,
    }
    assert tool.SPECS["why_not"].schema()["required"] == ["task", "entry"]
    assert tool.SPECS["catalog"].schema()["required"] == []


def test_arguments_that_fit_are_returned_without_the_none_values() -> None:
    given = {
        "task": "rotate the webhook signing key",
        "paths": ["src/keys/signing.py"],
        "budget": 3,
    }
    assert tool.checked(ROUTE, given) == given
    assert tool.checked(ROUTE, {"task": "rotate keys", "paths": None, "budget": None}) == {
        "task": "rotate keys"
    }
    assert tool.checked(tool.SPECS["catalog"], {}) == {}
    assert tool.checked(ROUTE, {"task": "x", "paths": []}) == {"task": "x", "paths": []}


def test_an_unknown_argument_is_refused_with_the_arguments_there_are() -> None:
    assert refusal(ROUTE, {"task": "x", "query": "y"}) == (
        "`route` takes no argument `query`. Its arguments are `task`, `paths`, `budget`."
    )
    # the name is shown flattened: a newline cannot forge a line of the answer
    assert refusal(tool.SPECS["explain"], {"a\nb": 1}) == (
        "`explain` takes no argument `a b`. Its arguments are `task`."
    )


@pytest.mark.parametrize("arguments", [{}, {"task": None}, {"paths": ["a.py"]}])
def test_a_missing_required_argument_is_refused_saying_what_it_is(
    arguments: dict[str, Any],
) -> None:
    assert refusal(ROUTE, arguments) == (
        "`route` needs `task`: the task, in the words the user gave it. Call it again with `task`."
    )


def test_an_unknown_argument_is_named_before_a_missing_one() -> None:
    assert refusal(ROUTE, {"bogus": 1}).startswith("`route` takes no argument `bogus`")


@pytest.mark.parametrize(
    ("arguments", "refused"),
    [
        (
            {"task": 7},
            "`task` of `route` is 7. Send text: the task, in the words the user gave it.",
        ),
        (
            {"task": "x", "paths": "src/app.py"},
            '`paths` of `route` is "src/app.py". Send a list of text, such as ["src/app.py"]: '
            "files the task is about, relative to the repository.",
        ),
        (
            {"task": "x", "paths": ["a.py", 3]},
            '`paths` of `route` is ["a.py", 3]. Send a list of text, such as ["src/app.py"]: '
            "files the task is about, relative to the repository.",
        ),
        (
            {"task": "x", "budget": 0},
            "`budget` of `route` is 0. Send a whole number of at least 1: "
            "the most pointers to offer, 5 by default.",
        ),
        (
            {"task": "x", "budget": True},
            "`budget` of `route` is true. Send a whole number of at least 1: "
            "the most pointers to offer, 5 by default.",
        ),
        (
            {"task": "x", "budget": "3"},
            '`budget` of `route` is "3". Send a whole number of at least 1: '
            "the most pointers to offer, 5 by default.",
        ),
    ],
)
def test_a_mistyped_argument_is_refused_showing_it_and_what_to_send(
    arguments: dict[str, Any], refused: str
) -> None:
    assert refusal(ROUTE, arguments) == refused


def test_a_long_value_is_shown_clipped_and_flat() -> None:
    said = refusal(tool.SPECS["governing"], {"path": ["x" * 100]})
    shown = said.split(" is ", 1)[1].split(". Send", 1)[0]
    # the clip is marked: three full stops at the end of the value would be lost with the
    # sentence's own
    assert shown == '["' + "x" * 57 + "\u2026"
    said = refusal(tool.SPECS["governing"], {"path": {"k": "line\none"}})
    assert "\n" not in said and '{"k": "line\\none"}' in said
