"""Skill triggers from skill-rules.json (router.catalog.formats.trigger): parsing, and phrase and intent
matching."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from router.catalog.entry import Entry
from router.catalog.formats.regex import MAX_MATCH_CHARS, MIN_MATCH_CHARS, match_window
from router.catalog.formats.trigger import (
    DEFAULT_ENFORCEMENT,
    DEFAULT_PRIORITY,
    ERROR,
    WARNING,
    Problem,
    Rule,
    fired,
    intent_matches,
    is_rules_file,
    keyword_matches,
    parse,
)
from router.core import deadline
from router.core.text import normalize
from router.ranking.index import Index
from testing.paths import DEMO
from testing.wait import Countdown

DEMO_RULES = DEMO / ".claude" / "skills" / "skill-rules.json"


def rule(**fields: Any) -> Rule:
    base: dict[str, Any] = {
        "name": "r",
        "description": "",
        "keywords": (),
        "intent_patterns": (),
        "path_patterns": (),
        "path_exclusions": (),
        "priority": DEFAULT_PRIORITY,
        "enforcement": DEFAULT_ENFORCEMENT,
    }
    return Rule(**(base | fields))


def one_skill(skill: object) -> tuple[tuple[Rule, ...], tuple[Problem, ...]]:
    return parse({"skills": {"s": skill}})


def demo() -> dict[str, Rule]:
    rules, problems = parse(json.loads(DEMO_RULES.read_text(encoding="utf-8")))
    assert problems == ()
    return {r.name: r for r in rules}


# --- is_rules_file ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relpath", "expected"),
    [
        (".claude/skills/skill-rules.json", True),
        ("skill-rules.json", True),
        ("packages/api/.claude/skills/skill-rules.json", True),
        (".claude\\skills\\skill-rules.json", True),
        (".claude/skills/skill-rules.json.bak", False),
        (".claude/skills/my-skill-rules.json", False),
        (".claude/skills/Skill-Rules.json", False),
        (".claude/skills/skill-rules/SKILL.md", False),
    ],
)
def test_is_rules_file(relpath: str, expected: bool) -> None:
    assert is_rules_file(relpath) is expected


# --- the demo file ---------------------------------------------------------------------


def test_demo_file_parses_cleanly_into_rules_for_existing_skills() -> None:
    rules = demo()
    assert list(rules) == ["answer-billing-question", "debug-webhook-delivery", "write-migration"]
    for name in rules:  # each rule names a skill of the demo catalog
        skill = DEMO / ".claude" / "skills" / name / "SKILL.md"
        assert f"\nname: {name}\n" in skill.read_text(encoding="utf-8")
    webhooks = rules["debug-webhook-delivery"]
    assert webhooks.priority == "high" and webhooks.enforcement == "suggest"
    assert webhooks.path_patterns == ("src/webhooks/**", "src/keys/signing.py")
    assert webhooks.path_exclusions == ("**/test_*.py",)
    assert webhooks.description.startswith("Diagnose webhook deliveries")
    assert rules["write-migration"].enforcement == "warn"
    assert rules["write-migration"].path_patterns == ("migrations/*.sql",)
    # every demo pattern passed the check and reads the whole window
    for r in rules.values():
        assert r.intent_patterns
        assert all(match_window(p) == MAX_MATCH_CHARS for p in r.intent_patterns)


def test_demo_path_patterns_name_real_files() -> None:
    from router.catalog import pattern

    files = [p.relative_to(DEMO).as_posix() for p in DEMO.rglob("*") if p.is_file()]
    for r in demo().values():
        for glob in r.path_patterns:
            assert any(pattern.covers(glob, f) for f in files), glob


@pytest.mark.parametrize(
    ("task", "skill", "keywords", "intents"),
    [
        (
            "webhooks to acme are failing with 401",
            "debug-webhook-delivery",
            ("webhooks",),
            ("webhook.*?(fail|stuck|retr|timeout|401|403)",),
        ),
        (
            "a delivery is stuck retrying against the tenant endpoint",
            "debug-webhook-delivery",
            (),
            ("deliver.*?(stuck|fail|retr|timeout)",),
        ),
        (
            "why did the signature check fail for tenant 42",
            "debug-webhook-delivery",
            (),
            ("signature.*?(fail|invalid|mismatch|reject)",),
        ),
        (
            "add a column source to the events table",
            "write-migration",
            ("add a column",),
            (r"\b(add|drop|rename|remove|create)\b.*?\b(column|index|table)",),
        ),
        (
            "write a migration that creates an index on tenants",
            "write-migration",
            ("migration",),
            (),
        ),
        (
            "why is the invoice for tenant acme higher than last month",
            "answer-billing-question",
            (),
            ("why (is|was|does|did).*?(invoice|charge|bill|tax)",),
        ),
        (
            "a tenant says they were overcharged in May",
            "answer-billing-question",
            ("overcharged",),
            (),
        ),
        (
            "what Tax-Rate applied to the March invoice",
            "answer-billing-question",
            ("tax rate",),
            (),
        ),
    ],
)
def test_demo_tasks_reach_their_skill(
    task: str, skill: str, keywords: tuple[str, ...], intents: tuple[str, ...]
) -> None:
    rules = demo()
    hits = {
        name: (keyword_matches(r, normalize(task)), intent_matches(r, task))
        for name, r in rules.items()
    }
    assert {name for name, (k, i) in hits.items() if k or i} == {skill}
    assert hits[skill] == (keywords, intents)


@pytest.mark.parametrize(
    "task",
    [
        "cut a release",
        "refactor billing usage rollup",
        "add tests for the token bucket",
        "address the retry storm in ingest",  # "address" is not the verb "add"
        "add an api-endpoint for refunds",
    ],
)
def test_demo_tasks_that_reach_no_skill(task: str) -> None:
    for r in demo().values():
        assert keyword_matches(r, normalize(task)) == ()
        assert intent_matches(r, task) == ()


# --- problems for bad shapes -----------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "where"),
    [
        (None, "document"),
        ([], "document"),
        ("skills", "document"),
        ({}, "skills"),
        ({"version": "1.0"}, "skills"),
        ({"skills": []}, "skills"),
        ({"skills": None}, "skills"),
    ],
)
def test_a_document_of_the_wrong_shape_is_one_error_and_no_rules(
    document: object, where: str
) -> None:
    rules, problems = parse(document)
    assert rules == ()
    assert len(problems) == 1
    assert problems[0].where == where and problems[0].severity == ERROR
    assert problems[0].problem.endswith(".")


def test_a_skill_that_is_not_an_object_is_skipped_and_the_others_kept() -> None:
    rules, problems = parse(
        {"skills": {"b": ["backend"], "a": {"promptTriggers": {"keywords": ["x"]}}, 3: {}}}
    )
    assert [r.name for r in rules] == ["a"]
    assert [(p.where, p.severity) for p in problems] == [
        ("skills[3]", ERROR),
        ("skills.b", ERROR),
    ]
    assert "a list" in problems[1].problem


def test_wrong_member_types_are_warnings_and_only_that_member_is_skipped() -> None:
    rules, problems = one_skill(
        {
            "description": 7,
            "priority": ["high"],
            "enforcement": "Enforce",
            "promptTriggers": {
                "keywords": ["api", 3, None, "queue"],
                "intentPatterns": {"a": "b"},
            },
            "fileTriggers": "src/**",
        }
    )
    (r,) = rules
    assert r.keywords == ("api", "queue")
    assert r.intent_patterns == () and r.path_patterns == ()
    assert r.description == "" and r.priority == DEFAULT_PRIORITY
    assert r.enforcement == DEFAULT_ENFORCEMENT
    assert all(p.severity == WARNING for p in problems)
    assert [p.where for p in problems] == [
        "skills.s.fileTriggers",
        "skills.s.promptTriggers.keywords[1]",
        "skills.s.promptTriggers.keywords[2]",
        "skills.s.promptTriggers.intentPatterns",
        "skills.s.description",
        "skills.s.priority",
        "skills.s.enforcement",
    ]
    assert "a number" in problems[1].problem and "null" in problems[2].problem
    assert "a list" in problems[5].problem
    assert "suggest, warn, block" in problems[6].problem


def test_a_single_string_is_a_one_item_list() -> None:
    (r,), problems = one_skill(
        {
            "promptTriggers": {"keywords": "backend", "intentPatterns": "how to.*?backend"},
            "fileTriggers": {"pathPatterns": "backend/**", "pathExclusions": "**/*.test.ts"},
        }
    )
    assert problems == ()
    assert r.keywords == ("backend",)
    assert r.intent_patterns == ("how to.*?backend",)
    assert r.path_patterns == ("backend/**",)
    assert r.path_exclusions == ("**/*.test.ts",)


def test_empty_keywords_and_paths_are_warnings_and_duplicates_collapse() -> None:
    (r,), problems = one_skill(
        {
            "promptTriggers": {"keywords": ["API endpoint", "api-endpoint", " ", "!!"]},
            "fileTriggers": {"pathPatterns": ["src/**", "", "src/**"]},
        }
    )
    assert r.keywords == ("API endpoint",)
    assert r.path_patterns == ("src/**",)
    assert [p.where for p in problems] == [
        "skills.s.promptTriggers.keywords[2]",
        "skills.s.promptTriggers.keywords[3]",
        "skills.s.fileTriggers.pathPatterns[1]",
    ]


def test_a_skill_without_usable_triggers_is_kept_with_a_warning() -> None:
    rules, problems = one_skill({"fileTriggers": {"contentPatterns": ["router\\."]}})
    assert [r.name for r in rules] == ["s"]
    assert [(p.where, p.severity) for p in problems] == [("skills.s", WARNING)]


def test_unknown_members_are_ignored_and_the_showcase_shape_parses() -> None:
    (r,), problems = parse(
        {
            "version": "1.0",
            "notes": {"anything": True},
            "skills": {
                "backend-dev-guidelines": {
                    "type": "domain",
                    "enforcement": "suggest",
                    "priority": "High",
                    "description": "Backend development patterns for Express services",
                    "promptTriggers": {
                        "keywords": ["backend", "controller", "API endpoint"],
                        "intentPatterns": [
                            "(create|add).*?(route|endpoint|controller)",
                            "how to.*?backend",
                        ],
                    },
                    "fileTriggers": {
                        "pathPatterns": ["backend/src/**/*.ts", "services/**/*.ts"],
                        "pathExclusions": ["**/*.test.ts"],
                        "contentPatterns": ["router\\.", "export.*Controller"],
                        "createOnly": False,
                    },
                    "blockMessage": "Read the guidelines before editing {file_path}.",
                    "skipConditions": {"sessionSkillUsed": True, "envOverride": "SKIP"},
                }
            },
        }
    )
    assert problems == ()
    assert r.priority == "high"
    assert r.intent_patterns == ("(create|add).*?(route|endpoint|controller)", "how to.*?backend")


def test_parse_never_raises_on_odd_values() -> None:
    odd: list[object] = [0, 1.5, True, "x", [], {}, [[]], {"a": {}}, None, object()]
    for value in odd:
        parse(value)
        parse({"skills": value})
        one_skill(value)
        one_skill({"promptTriggers": value, "fileTriggers": value, "priority": value})
        one_skill({"promptTriggers": {"keywords": value, "intentPatterns": value}})
        one_skill({"promptTriggers": {"intentPatterns": [value]}})


# --- keywords --------------------------------------------------------------------------


def test_keywords_match_as_whole_phrases_after_normalization() -> None:
    r = rule(keywords=("API endpoint", "api", "rate-limit", "Dead letter queue"))
    assert keyword_matches(r, normalize("add an api-endpoint for refunds")) == (
        "API endpoint",
        "api",
    )
    assert keyword_matches(r, normalize("RATE_LIMIT the tenant")) == ("rate-limit",)
    assert keyword_matches(r, normalize("replay the dead-letter queue")) == ("Dead letter queue",)


@pytest.mark.parametrize(
    "task",
    ["a rapid fix", "the capital city", "apis are down", "open the apigateway", "dead letters"],
)
def test_keywords_never_match_inside_a_word(task: str) -> None:
    r = rule(keywords=("api", "dead letter", "gateway api"))
    assert keyword_matches(r, normalize(task)) == ()


# --- intent patterns -------------------------------------------------------------------


def test_intent_patterns_match_case_insensitively_in_order() -> None:
    r = rule(
        intent_patterns=(
            "how to.*?backend",
            "(create|add).*?(route|endpoint|controller)",
            "(?i)refund",
        )
    )
    assert intent_matches(r, "Please ADD a new Route for refunds") == (
        "(create|add).*?(route|endpoint|controller)",
        "(?i)refund",
    )
    assert intent_matches(r, "How to structure the BACKEND, and add an endpoint") == (
        "how to.*?backend",
        "(create|add).*?(route|endpoint|controller)",
    )
    assert intent_matches(r, "rename a variable") == ()


def test_intent_patterns_read_only_the_first_max_match_chars() -> None:
    r = rule(intent_patterns=("refund",))
    assert intent_matches(r, "x" * (MAX_MATCH_CHARS - 6) + "refund") == ("refund",)
    assert intent_matches(r, "x" * (MAX_MATCH_CHARS - 5) + "refund") == ()
    # `$` means the end of the window, as if the task were cut there
    assert intent_matches(rule(intent_patterns=("x$",)), "x" * (MAX_MATCH_CHARS + 10)) == ("x$",)


def test_patterns_with_several_unbounded_quantifiers_read_a_shorter_window() -> None:
    two = r"(fix|debug).*?(error|bug).*?(handler|webhook)"
    window = match_window(two)
    assert MIN_MATCH_CHARS <= window < MAX_MATCH_CHARS
    r = rule(intent_patterns=(two,))
    assert intent_matches(r, "fix the error in the " + "x" * (window - 30) + "webhook") == (two,)
    assert intent_matches(r, "fix the error in the " + "x" * window + "webhook") == ()


def test_a_hand_built_rule_never_runs_an_unsafe_pattern() -> None:
    assert intent_matches(rule(intent_patterns=("(a+)+$", "[")), "a" * 40 + "b") == ()


def test_refused_patterns_are_warnings_at_their_place_and_the_rule_keeps_the_rest() -> None:
    (r,), problems = parse(
        {
            "skills": {
                "backend-dev-guidelines": {
                    "promptTriggers": {
                        "keywords": ["backend"],
                        "intentPatterns": [
                            "(create|add).*?(route|endpoint)",
                            "how to.*?backend",
                            "(a+)+$",
                            r"(?<=x)y",
                            "how to.*?backend",
                        ],
                    },
                    "fileTriggers": {"pathPatterns": ["backend/**"]},
                }
            }
        }
    )
    assert r.keywords == ("backend",) and r.path_patterns == ("backend/**",)
    assert r.intent_patterns == ("(create|add).*?(route|endpoint)", "how to.*?backend")
    base = "skills.backend-dev-guidelines.promptTriggers.intentPatterns"
    assert [(p.where, p.severity) for p in problems] == [
        (f"{base}[2]", WARNING),
        (f"{base}[3]", WARNING),
    ]
    assert "nesting" in problems[0].problem and "lookbehind" in problems[1].problem


# --- determinism -----------------------------------------------------------------------


def test_parse_is_deterministic_and_independent_of_member_order() -> None:
    document = json.loads(DEMO_RULES.read_text(encoding="utf-8"))
    shuffled = {"skills": dict(reversed(list(document["skills"].items()))), "version": "1.0"}
    assert parse(document) == parse(document) == parse(shuffled)
    bad = {"skills": {"z": 1, "a": {"priority": 1}, "m": {"promptTriggers": {"keywords": 2}}}}
    assert parse(bad) == parse({"skills": dict(reversed(list(bad["skills"].items())))})
    assert [p.where for p in parse(bad)[1]] == [
        "skills.a",
        "skills.a.priority",
        "skills.m.promptTriggers.keywords",
        "skills.m",
        "skills.z",
    ]


def test_rules_and_problems_are_frozen() -> None:
    (r,), _ = one_skill({"promptTriggers": {"keywords": ["x"]}})
    with pytest.raises(AttributeError):
        r.name = "y"  # type: ignore[misc]  # the assignment under test is refused
    assert not hasattr(r, "__dict__")


def test_fired_names_each_entrys_triggers_and_asks_the_deadline_before_each() -> None:
    entries = [
        Entry(id=f"t{i}", kind="skill", path=f"s/{i}.md", file="s.json", keywords=(f"phrase {i}",))
        for i in range(5)
    ]
    index = Index(entries)
    stop = Countdown(10**6)
    assert fired(index.with_triggers(), "the Phrase 3 here", stop) == {
        index.slot_of("t3"): [("keyword phrase", "phrase 3")]
    }
    assert stop.asked == 5
    with pytest.raises(deadline.AbandonedError):
        fired(index.with_triggers(), "phrase 3 here", Countdown(2))


# --- the two shapes of the file, read from disk ----------------------------------------

TOP_LEVEL_RULES = {
    "_comment": "Rules for the skill activator; see _schema.",
    "_schema": {"promptTriggers": {"keywords": "phrases"}},
    "api-design": {
        "description": "REST API conventions",
        "promptTriggers": {"keywords": ["endpoint"], "intentPatterns": ["(add|create).*route"]},
        "fileTriggers": {"pathPatterns": ["src/api/**"]},
    },
    "testing": {"promptTriggers": {"keywords": ["flaky test"]}},
    "version": "2",
    "broken": ["not", "a", "rule"],
}


def read_rules(tmp_path: Path, document: object) -> tuple[tuple[Rule, ...], tuple[Problem, ...]]:
    file = tmp_path / ".claude" / "skills" / "skill-rules.json"
    file.parent.mkdir(parents=True)
    file.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return parse(json.loads(file.read_text(encoding="utf-8")))


def test_rules_at_the_top_level_are_read_and_notes_ignored(tmp_path: Path) -> None:
    rules, problems = read_rules(tmp_path, TOP_LEVEL_RULES)
    assert [r.name for r in rules] == ["api-design", "testing"]
    api = rules[0]
    assert api.keywords == ("endpoint",) and api.intent_patterns == ("(add|create).*route",)
    assert (api.description, api.path_patterns) == ("REST API conventions", ("src/api/**",))
    # the members that are not objects are named, as warnings; the rest still loads
    assert [(p.where, p.severity) for p in problems] == [("broken", WARNING), ("version", WARNING)]
    assert "a list" in problems[0].problem


def test_rules_under_skills_read_the_same_as_at_the_top_level(tmp_path: Path) -> None:
    nested = {"skills": {k: v for k, v in TOP_LEVEL_RULES.items() if isinstance(v, dict)}}
    nested["skills"].pop("_schema")
    rules, problems = read_rules(tmp_path, nested)
    top, _ = parse(TOP_LEVEL_RULES)
    assert rules == top and problems == ()
