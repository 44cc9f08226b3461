"""Skill triggers from `.claude/skills/skill-rules.json`, the "skill activator" hook format.

The file maps each skill name to its triggers, under a `skills` member:

    {"skills": {"<name>": {"priority": "high", "enforcement": "suggest", "description": "...",
                           "promptTriggers": {"keywords": [...], "intentPatterns": [...]},
                           "fileTriggers": {"pathPatterns": [...], "pathExclusions": [...]}}}}

or at the top level, beside members whose names start with `_` (`_comment`, `_schema`), which
are the authors' notes and are ignored:

    {"_comment": "...", "<name>": {"promptTriggers": {...}, "fileTriggers": {...}}}

Other members (`version`, `type`, `blockMessage`, `skipConditions`, `contentPatterns`,
`createOnly`, ...) are ignored. Pure: `parse` reads an already decoded JSON document.

Intent patterns are regexes written by a repository's authors and run on every task, so a
rule keeps, and `intent_matches` runs, only those that pass `regex`'s safety check. `fired`
tries every entry's triggers on a task.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from router.catalog.formats import regex
from router.core import deadline
from router.core.text import holds_phrase, normalize

RULES_FILE_NAME = "skill-rules.json"
ERROR = "error"
WARNING = "warning"
PRIORITIES = ("critical", "high", "medium", "low")
ENFORCEMENTS = ("suggest", "warn", "block")
DEFAULT_PRIORITY = "medium"
DEFAULT_ENFORCEMENT = "suggest"
_CHOICES = {
    "priority": (PRIORITIES, DEFAULT_PRIORITY),
    "enforcement": (ENFORCEMENTS, DEFAULT_ENFORCEMENT),
}


@dataclass(frozen=True, slots=True)
class Rule:
    """One skill's triggers, as `parse` kept them."""

    name: str
    description: str
    keywords: tuple[str, ...]  # as written, one per normalized phrase
    intent_patterns: tuple[str, ...]  # sources, only the ones that passed the safety check
    path_patterns: tuple[str, ...]
    path_exclusions: tuple[str, ...]
    priority: str
    enforcement: str


class Triggers(Protocol):
    """What carries triggers: a parsed `Rule`, or the catalog entry a rule merged into."""

    @property
    def keywords(self) -> tuple[str, ...]: ...

    @property
    def intent_patterns(self) -> tuple[str, ...]: ...


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong in the document, where it is, and whether anything was lost with it:
    an error drops the document or a whole rule, a warning one member or item."""

    where: str
    problem: str
    severity: str


def is_rules_file(relpath: str) -> bool:
    """Return whether `relpath` (in any directory, `/` or `\\` separated) is named
    `skill-rules.json`."""
    return relpath.replace("\\", "/").rsplit("/", 1)[-1] == RULES_FILE_NAME


def parse(document: object) -> tuple[tuple[Rule, ...], tuple[Problem, ...]]:
    """Return the rules of a decoded skill-rules.json document, in name order, and the
    problems found, in the order of the rules they concern.

    Never raises. A document that is neither `{"skills": {...}}` nor a top-level map holding
    at least one rule object is one error and no rules. Under `skills`, a skill that is not an
    object is an error and has no rule; at the top level, where a member may be a note rather
    than a rule, it is a warning. A member or list item of the wrong type, an empty keyword
    and an unsafe intent pattern are warnings and are skipped."""
    if not isinstance(document, dict):
        message = f'The document is {_kind(document)}; write an object: {{"skills": {{...}}}}.'
        return (), (Problem("document", message, ERROR),)
    if "skills" not in document:
        return _top_level(document)
    skills = document["skills"]
    if not isinstance(skills, dict):
        message = f'"skills" is {_kind(skills)}; make it an object from skill name to triggers.'
        return (), (Problem("skills", message, ERROR),)
    problems: list[Problem] = []
    for key in sorted((k for k in skills if not isinstance(k, str)), key=repr):
        problems.append(Problem(f"skills[{key!r}]", "A skill name must be a string.", ERROR))
    rules: list[Rule] = []
    for name in sorted(k for k in skills if isinstance(k, str)):
        rule = _rule(name, skills[name], problems, f"skills.{name}")
        if rule is not None:
            rules.append(rule)
    return tuple(rules), tuple(problems)


NOTE_PREFIX = "_"  # a top-level member named so is the authors' note (`_comment`, `_schema`)


def _top_level(document: dict[object, object]) -> tuple[tuple[Rule, ...], tuple[Problem, ...]]:
    """Return the rules of a document holding them at the top level, and its problems: a
    member that is not an object is a warning naming it (it may be a note, such as a
    `version`), and a document without any rule object is one error."""
    names = sorted(k for k in document if isinstance(k, str) and not k.startswith(NOTE_PREFIX))
    if not any(isinstance(document[name], dict) for name in names):
        message = (
            'The document has no "skills" member and no rule object at the top level; '
            'put each skill\'s triggers under "skills".'
        )
        return (), (Problem("skills", message, ERROR),)
    problems: list[Problem] = []
    rules: list[Rule] = []
    for name in names:
        value = document[name]
        if not isinstance(value, dict):
            message = f"The rule is {_kind(value)}; make it an object of triggers. Skipped."
            problems.append(Problem(name, message, WARNING))
        elif (rule := _rule(name, value, problems, name)) is not None:
            rules.append(rule)
    return tuple(rules), tuple(problems)


def intent_matches(rule: Triggers, task: str) -> tuple[str, ...]:
    """Return the sources of the rule's intent patterns that match somewhere in the task's
    first `match_window` characters, ignoring case, in the rule's order. Patterns that fail
    the safety check are never run. Never raises."""
    return tuple(source for source in rule.intent_patterns if regex.matches(source, task))


def keyword_matches(rule: Triggers, task_normal: str) -> tuple[str, ...]:
    """Return the rule's keywords, as written, whose normalized form occurs in the normalized
    task as a whole phrase (`"api"` is not found in `"rapid"`), in the rule's order."""
    return tuple(k for k in rule.keywords if holds_phrase(task_normal, normalize(k)))


# --- parsing ---------------------------------------------------------------------------


def _rule(name: str, value: object, problems: list[Problem], where: str) -> Rule | None:
    """Return the rule of one skill's triggers, `where` naming it in problems; None (with an
    error) when the name is empty or the value is not an object."""
    if not name.strip():
        problems.append(Problem(where, "A skill name must not be empty.", ERROR))
        return None
    if not isinstance(value, dict):
        message = f"The skill is {_kind(value)}; make it an object of triggers."
        problems.append(Problem(where, message, ERROR))
        return None
    sections = {k: _section(value, k, where, problems) for k in ("promptTriggers", "fileTriggers")}

    def items(section: str, key: str) -> list[tuple[str, str]]:
        return _strings(sections[section], key, f"{where}.{section}", problems)

    def strings(section: str, key: str, clean: Callable[[str], str]) -> tuple[str, ...]:
        return _distinct(items(section, key), clean, problems)

    keywords = strings("promptTriggers", "keywords", normalize)
    intents: dict[str, None] = {}
    for item_where, source in items("promptTriggers", "intentPatterns"):
        refused = regex.compile_pattern(source)
        if isinstance(refused, str):
            problems.append(Problem(item_where, refused, WARNING))
        else:
            intents[source] = None
    paths = strings("fileTriggers", "pathPatterns", str.strip)
    if not (keywords or intents or paths):
        message = (
            "The skill has no keyword, intent pattern or path pattern kroute can use, so no "
            "task reaches it through skill-rules.json; add promptTriggers or pathPatterns."
        )
        problems.append(Problem(where, message, WARNING))
    return Rule(
        name=name,
        description=_text(value, "description", "", where, problems),
        keywords=keywords,
        intent_patterns=tuple(intents),
        path_patterns=paths,
        path_exclusions=strings("fileTriggers", "pathExclusions", str.strip),
        priority=_choice(value, "priority", where, problems),
        enforcement=_choice(value, "enforcement", where, problems),
    )


def _section(
    skill: dict[object, object], key: str, where: str, problems: list[Problem]
) -> dict[object, object]:
    value = skill.get(key)
    if value is None or isinstance(value, dict):
        return value or {}
    message = f'"{key}" is {_kind(value)}; make it an object, or leave it out.'
    problems.append(Problem(f"{where}.{key}", message, WARNING))
    return {}


def _strings(
    section: dict[object, object], key: str, where: str, problems: list[Problem]
) -> list[tuple[str, str]]:
    """Return (where, text) of each string item of a list member (a string is one item)."""
    where = f"{where}.{key}"
    value = section.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        return [(where, value)]
    if not isinstance(value, list):
        message = f'"{key}" is {_kind(value)}; make it a list of strings. Skipped.'
        problems.append(Problem(where, message, WARNING))
        return []
    items: list[tuple[str, str]] = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            items.append((f"{where}[{i}]", item))
        else:
            message = f"The item is {_kind(item)}; write it as a string. Skipped."
            problems.append(Problem(f"{where}[{i}]", message, WARNING))
    return items


def _distinct(
    items: list[tuple[str, str]], clean: Callable[[str], str], problems: list[Problem]
) -> tuple[str, ...]:
    """Return the items, stripped, one per cleaned form (the first); an item that cleans to
    nothing is a warning."""
    kept: dict[str, str] = {}
    for where, text in items:
        if clean(text):
            kept.setdefault(clean(text), text.strip())
        else:
            message = f"{text!r} has nothing to match; write a word, or remove it. Skipped."
            problems.append(Problem(where, message, WARNING))
    return tuple(kept.values())


def _text(
    skill: dict[object, object], key: str, default: str, where: str, problems: list[Problem]
) -> str:
    value = skill.get(key, default)
    if isinstance(value, str):
        return value.strip()
    message = f'"{key}" is {_kind(value)}; make it a string.'
    problems.append(Problem(f"{where}.{key}", message, WARNING))
    return default


def _choice(skill: dict[object, object], key: str, where: str, problems: list[Problem]) -> str:
    known, default = _CHOICES[key]
    value = _text(skill, key, default, where, problems).lower()
    if value in known:
        return value
    message = f'"{key}" is {value!r}; use one of {", ".join(known)}. Read as {default!r}.'
    problems.append(Problem(f"{where}.{key}", message, WARNING))
    return default


def _kind(value: object) -> str:
    """Return the JSON name of a value's type, with its article."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return _KINDS.get(type(value), f"a {type(value).__name__}")


_KINDS = {str: "a string", int: "a number", float: "a number", list: "a list", dict: "an object"}


def fired(
    carriers: Iterable[tuple[int, Triggers]], task: str, stop: deadline.Stop | None = None
) -> dict[int, list[tuple[str, str]]]:
    """Return slot -> (field, trigger) of the skill-rules.json keywords (as phrases) and
    intent patterns that fire on the task, of each (slot, entry) carrying triggers
    (`Index.with_triggers`). Patterns are compiled timeout-safe (`regex`): one that cannot
    be is never run. Raises deadline.AbandonedError when `stop`, asked before each entry's
    triggers are tried, says to stop."""
    normal = normalize(task)
    out: dict[int, list[tuple[str, str]]] = {}
    for slot, carrier in carriers:
        deadline.check(stop)
        hits = [("keyword phrase", k) for k in keyword_matches(carrier, normal)]
        hits += [("intent pattern", p) for p in intent_matches(carrier, task)]
        if hits:
            out[slot] = hits
    return out
