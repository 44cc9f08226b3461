"""Harness adapters (router.core.harness): what a hook event asks and what it prints."""

from __future__ import annotations

from router.core import harness

EM = "\u2014"


def test_plan_reads_snake_and_camel_case() -> None:
    snake = harness.plan(
        "claude",
        "PreToolUse",
        {"tool_name": "Write", "tool_input": {"file_path": "a.py"}, "session_id": "s"},
    )
    camel = harness.plan(
        "claude",
        "PreToolUse",
        {"toolName": "Write", "toolInput": {"filePath": "a.py"}, "sessionId": "s"},
    )
    assert snake == camel
    assert snake.body["paths"] == ["a.py"] and snake.session == "s"


def test_output_is_kept_under_the_harness_cap() -> None:
    long_text = "\n".join(f"  docs/{i}.md {EM} summary\n    governs x" for i in range(2000))
    plan_ = harness.Plan("route", {"task": "x"})
    out = harness.render("claude", "UserPromptSubmit", plan_, {"pointers": [1], "text": long_text})
    assert len(out) < 10_000
