"""The safety check on user regexes (router.catalog.formats.regex): what it refuses and why, how much of
a task an accepted pattern reads, and that it keeps user regexes from hanging the daemon."""

from __future__ import annotations

import re

import pytest

from router.catalog.formats.regex import (
    MAX_MATCH_CHARS,
    MAX_PATTERN_CHARS,
    MIN_MATCH_CHARS,
    compile_pattern,
    match_window,
    matches,
)

# --- refused patterns ------------------------------------------------------------------

CATASTROPHIC = [
    r"(a+)+$",
    r"(a*)*$",
    r"(a|aa)+$",
    r"(a|a?)+$",
    r"(.*a){10}",
    r"(x+x+)+y",
    r"(\w+\s?)+$",
    r"^(([a-z])+.)+[A-Z]([a-z])+$",
    r"(\d+|\d+\.\d+)*x",
    r"(?:a+){2,}",
    r"(ab*)+c",
]


@pytest.mark.parametrize("source", CATASTROPHIC)
def test_classic_catastrophic_patterns_are_refused(source: str) -> None:
    refused = compile_pattern(source)
    assert isinstance(refused, str)
    assert "nesting" in refused
    assert match_window(source) == 0


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (r"(\w+) \1", "backreference"),
        (r"(?P<w>\w+) (?P=w)", "backreference"),
        (r"(a)?(?(1)b|c)", "backreference"),
        (r"(?<=api )endpoint", "lookbehind"),
        (r"(?<!api )endpoint", "lookbehind"),
        (r"api(?= endpoint)", "lookahead"),
        (r"api(?! endpoint)", "lookahead"),
        ("(create|add", "does not compile"),
        ("[", "does not compile"),
        ("a{99999999999}", "does not compile"),
        ("x" * (MAX_PATTERN_CHARS + 1), f"keep it to {MAX_PATTERN_CHARS}"),
        ("", "zero characters"),
        ("a*", "zero characters"),
        ("(refund)?", "zero characters"),
        (r"\s*\s*\s*x", "backtrack for too long"),
        (r"\w+\s+\w+", "backtrack for too long"),
        ("a?" * 20 + "a" * 20, "backtrack for too long"),
    ],
)
def test_unsafe_patterns_are_refused_with_a_reason(source: str, reason: str) -> None:
    refused = compile_pattern(source)
    assert isinstance(refused, str) and reason in refused


# --- accepted patterns -----------------------------------------------------------------

ACCEPTED = [
    "(create|add).*?(route|endpoint|controller)",
    "how to.*?backend",
    "(?i)reset.*password",
    "(fix|handle|debug).*?(error|exception|backend)",
    "(add|implement).*?(middleware|validation|error.*?handling)",
    r"\b(add|drop|rename|remove|create)\b.*?\b(column|index|table)",
    r"(?:create|add)?\s*route",
    r"(ab|cd)+x",
    r"(a+)?b",
    r"a++b",
    r"(?>a+)b",
    r"x{2,}y{3,}z",
    r".*a.*b",
    r"\s*\s*x",
    r"webhooks?.*?(fail|stuck)",
    "a?" * 16 + "a" * 16,
]
ADVERSARIAL = [
    "a" * MAX_MATCH_CHARS,
    " " * MAX_MATCH_CHARS,
    "ab" * (MAX_MATCH_CHARS // 2),
    ("a" * 31 + "b") * (MAX_MATCH_CHARS // 32),
    "create add error fix how to " * (MAX_MATCH_CHARS // 28 + 1),
    "x" * (MAX_MATCH_CHARS // 2) + "y" * (MAX_MATCH_CHARS // 2),
    "webhooks " * (MAX_MATCH_CHARS // 9 + 1),
]


@pytest.mark.parametrize("source", ACCEPTED)
def test_accepted_patterns_pass(source: str) -> None:
    assert isinstance(compile_pattern(source), re.Pattern)
    assert MIN_MATCH_CHARS <= match_window(source) <= MAX_MATCH_CHARS


def test_every_accepted_pattern_finishes_on_adversarial_tasks() -> None:
    """Times nothing: each run finishes because the check bounds its backtracking. A pattern
    that could run away would hang this test rather than fail it."""
    for task in ADVERSARIAL:
        for source in ACCEPTED:
            matches(source, task + "!" * 5000)  # longer than the window: the rest is never read


def test_the_common_shape_keeps_the_whole_window() -> None:
    assert match_window("(create|add).*?(route|endpoint)") == MAX_MATCH_CHARS
    assert match_window("how to.*?backend") == MAX_MATCH_CHARS


# --- matching --------------------------------------------------------------------------


def test_matches_ignores_case_and_reads_only_the_window() -> None:
    assert matches("how to.*?backend", "How to split the BACKEND")
    assert not matches("how to.*?backend", "rename a variable")
    assert matches("refund", "x" * (MAX_MATCH_CHARS - 6) + "refund")
    assert not matches("refund", "x" * (MAX_MATCH_CHARS - 5) + "refund")


def test_a_refused_pattern_is_never_run_and_matches_nothing() -> None:
    assert not matches("(a+)+$", "a" * 40 + "b")
    assert not matches("[", "[")
