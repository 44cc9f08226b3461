"""Skill triggers from `.claude/skills/skill-rules.json`, the "skill activator" hook format.

The file maps each skill name to its triggers:

    {"skills": {"<name>": {"priority": "high", "enforcement": "suggest", "description": "...",
                           "promptTriggers": {"keywords": [...], "intentPatterns": [...]},
                           "fileTriggers": {"pathPatterns": [...], "pathExclusions": [...]}}}}

Other members (`version`, `type`, `blockMessage`, `skipConditions`, `contentPatterns`,
`createOnly`, ...) are ignored. Pure: `parse` reads an already decoded JSON document.

Intent patterns are regexes written by a repository's authors and run on every task, and
Python's `re` has no timeout, so a pattern is only run when its worst case is bounded by
construction (`compile_pattern`): no backreferences or lookarounds, no repeated group that
holds a choice (`(a+)+`, `(a|aa)+`, `(.*a){10}`), and an upper bound on the backtracking
work over the characters it reads. That work grows with the power of the number of
unbounded quantifiers in a row (`\\s*\\s*x` over 4000 spaces takes over a minute), so a
pattern reads the first `MAX_MATCH_CHARS` of a task, fewer when it needs to
(`match_window`), and is refused when it could not read even `MIN_MATCH_CHARS`.
"""

from __future__ import annotations

import functools
import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from router.core.text import holds_phrase, normalize

with warnings.catch_warnings():  # the public names of `re._parser`, deprecated since 3.11
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants as _sre
    import sre_parse as _sre_parse

RULES_FILE_NAME = "skill-rules.json"
ERROR = "error"
WARNING = "warning"
PRIORITIES = ("critical", "high", "medium", "low")
ENFORCEMENTS = ("suggest", "warn", "block")
DEFAULT_PRIORITY = "medium"
DEFAULT_ENFORCEMENT = "suggest"

MAX_PATTERN_CHARS = 500
MAX_MATCH_CHARS = 4000
# Bound on the work of one pattern over one task, in (start position x way to match from
# it). One unbounded quantifier over MAX_MATCH_CHARS is 1.6e7, which CPython's `re` runs in
# 0.05 s (`.*x`) to 0.8 s (`[ab]+[ab]{3}x` over "abab...") on the worst task.
MAX_MATCH_STEPS = 20_000_000
MIN_MATCH_CHARS = 200
_PATTERN_CACHE = 4096
_CHOICES = {
    "priority": (PRIORITIES, DEFAULT_PRIORITY),
    "enforcement": (ENFORCEMENTS, DEFAULT_ENFORCEMENT),
}

_LEAVES = frozenset({_sre.LITERAL, _sre.NOT_LITERAL, _sre.ANY, _sre.IN, _sre.AT})
_REPEATS = frozenset({_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT})
_GROUP_REFERENCES = frozenset({_sre.GROUPREF, _sre.GROUPREF_EXISTS})
_ASSERTIONS = frozenset({_sre.ASSERT, _sre.ASSERT_NOT})


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

    Never raises. A document that is not `{"skills": {...}}` is one error and no rules; a
    skill that is not an object is an error and has no rule; a member or list item of the
    wrong type, an empty keyword and an unsafe intent pattern are warnings and are skipped."""
    if not isinstance(document, dict):
        message = f'The document is {_kind(document)}; write an object: {{"skills": {{...}}}}.'
        return (), (Problem("document", message, ERROR),)
    if "skills" not in document:
        message = 'The document has no "skills" member; put each skill\'s triggers under it.'
        return (), (Problem("skills", message, ERROR),)
    skills = document["skills"]
    if not isinstance(skills, dict):
        message = f'"skills" is {_kind(skills)}; make it an object from skill name to triggers.'
        return (), (Problem("skills", message, ERROR),)
    problems: list[Problem] = []
    for key in sorted((k for k in skills if not isinstance(k, str)), key=repr):
        problems.append(Problem(f"skills[{key!r}]", "A skill name must be a string.", ERROR))
    rules: list[Rule] = []
    for name in sorted(k for k in skills if isinstance(k, str)):
        rule = _rule(name, skills[name], problems)
        if rule is not None:
            rules.append(rule)
    return tuple(rules), tuple(problems)


def compile_pattern(source: str) -> re.Pattern[str] | str:
    """Return `source` compiled case-insensitively when it is safe to run on any task, or a
    sentence saying why it is refused and what to do instead. Never raises."""
    checked = _check(source)
    return checked if isinstance(checked, str) else checked[0]


def match_window(source: str) -> int:
    """Return how many leading characters of a task the pattern is run over: at most
    `MAX_MATCH_CHARS`, fewer for patterns with several unbounded quantifiers in a row; 0 for
    a refused pattern. Never raises."""
    checked = _check(source)
    return 0 if isinstance(checked, str) else checked[1]


def intent_matches(rule: Triggers, task: str) -> tuple[str, ...]:
    """Return the sources of the rule's intent patterns that match somewhere in the task's
    first `match_window` characters, ignoring case, in the rule's order. Patterns that fail
    the safety check are never run. Never raises."""
    found: list[str] = []
    for source in rule.intent_patterns:
        checked = _check(source)
        if not isinstance(checked, str) and checked[0].search(task, 0, checked[1]):
            found.append(source)
    return tuple(found)


def keyword_matches(rule: Triggers, task_normal: str) -> tuple[str, ...]:
    """Return the rule's keywords, as written, whose normalized form occurs in the normalized
    task as a whole phrase (`"api"` is not found in `"rapid"`), in the rule's order."""
    return tuple(k for k in rule.keywords if holds_phrase(task_normal, normalize(k)))


# --- parsing ---------------------------------------------------------------------------


def _rule(name: str, value: object, problems: list[Problem]) -> Rule | None:
    where = f"skills.{name}"
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
        refused = compile_pattern(source)
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


# --- pattern safety --------------------------------------------------------------------


class _Refused(Exception):
    """A pattern failed the safety check; the argument is the sentence to report."""


@dataclass(frozen=True, slots=True)
class _Ways:
    """How many ways a piece of pattern can match from one position, as a function of the
    number of characters read: `seq` multiplies its parts, `alt` adds them, `opt` is its
    part or nothing, and `rep` repeats a choice-free body `lo` to `hi` times."""

    kind: str
    parts: tuple[_Ways, ...] = ()
    lo: int = 0
    hi: int = 0

    def count(self, n: int) -> int:
        if self.kind == "rep":
            return max(1, min(self.hi, n) - min(self.lo, n) + 1)
        counts = [part.count(n) for part in self.parts]
        if self.kind == "alt":
            return sum(counts)
        if self.kind == "opt":
            return counts[0] + 1
        return math.prod(counts)

    def choice_free(self) -> bool:
        if self.kind in ("alt", "opt") or (self.kind == "rep" and self.lo != self.hi):
            return False
        return all(part.choice_free() for part in self.parts)


_ONE = _Ways("seq")
_ASCII_MAX = 0x7F
_UNKNOWN = "The pattern uses a construct the safety check does not know; simplify it."
_NESTED = (
    "It repeats a group that holds a quantifier or an alternation (like `(a+)+` or "
    "`(a|aa)+`), which can take exponential time; rewrite it without the nesting."
)


@functools.lru_cache(maxsize=_PATTERN_CACHE)
def _check(source: str) -> tuple[re.Pattern[str], int] | str:
    """Return the compiled pattern and its match window, or the reason it is refused."""
    if len(source) > MAX_PATTERN_CHARS:
        return f"The pattern is {len(source)} characters long; keep it to {MAX_PATTERN_CHARS}."
    try:
        compiled = re.compile(source, re.IGNORECASE)
        parsed = _sre_parse.parse(source, re.IGNORECASE)
        ways = _ways(parsed)
        if parsed.getwidth()[0] == 0:
            return "The pattern can match zero characters, so it fires on nearly every task."
    except _Refused as refused:
        return str(refused)
    except (re.error, OverflowError, RecursionError, ValueError) as e:
        return f"The pattern does not compile as a Python regex ({e}); fix its syntax."
    window = _window(ways)
    if window < MIN_MATCH_CHARS:
        return (
            f"The pattern could backtrack for too long even on a {MIN_MATCH_CHARS}-character "
            "task; use fewer unbounded quantifiers or overlapping alternatives in a row."
        )
    return compiled, window


def _window(ways: _Ways) -> int:
    """Return the largest n <= MAX_MATCH_CHARS whose work bound fits MAX_MATCH_STEPS."""
    lo, hi = 0, MAX_MATCH_CHARS
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if (mid + 1) * ways.count(mid) <= MAX_MATCH_STEPS:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _ways(sub: object) -> _Ways:
    """Return the ways of a parsed (sub)pattern; raise `_Refused` for an unsafe construct,
    including any the check does not know (it fails closed on other Python versions)."""
    parts: list[_Ways] = []
    for op, av in _items(sub):
        if op in _LEAVES:
            continue
        if op == _sre.SUBPATTERN:
            parts.append(_ways(_member(av, 3, 4)))
        elif op == _sre.ATOMIC_GROUP:
            parts.append(_ways(av))
        elif op == _sre.BRANCH:
            alternatives = _member(av, 1, 2)
            if not isinstance(alternatives, list):
                raise _Refused(_UNKNOWN)
            if not _exclusive_literals(alternatives):
                parts.append(_Ways("alt", tuple(_ways(a) for a in alternatives)))
        elif op in _REPEATS:
            lo, hi, body = _int(_member(av, 0, 3)), _int(_member(av, 1, 3)), _member(av, 2, 3)
            ways = _ways(body)
            if hi <= 1:
                parts.append(_Ways("opt", (ways,)) if lo == 0 else ways)
            elif not ways.choice_free():
                raise _Refused(_NESTED)
            elif lo != hi:
                parts.append(_Ways("rep", lo=lo, hi=hi))
        elif op in _GROUP_REFERENCES:
            raise _Refused("The pattern uses a backreference; match the text itself instead.")
        elif op in _ASSERTIONS:
            side = "lookbehind" if _int(_member(av, 0, 2)) < 0 else "lookahead"
            raise _Refused(f"The pattern uses a {side}; match the text itself instead.")
        else:
            raise _Refused(_UNKNOWN)
    return _Ways("seq", tuple(parts)) if parts else _ONE


def _items(sub: object) -> list[tuple[object, object]]:
    """Return the (opcode, argument) items of a parsed subpattern."""
    data = sub.data if isinstance(sub, _sre_parse.SubPattern) else None
    if not isinstance(data, list):
        raise _Refused(_UNKNOWN)
    items: list[tuple[object, object]] = []
    for item in data:
        if not (isinstance(item, tuple) and len(item) == 2):
            raise _Refused(_UNKNOWN)
        items.append((item[0], item[1]))
    return items


def _member(av: object, index: int, size: int) -> object:
    if isinstance(av, tuple) and len(av) == size:
        return av[index]
    raise _Refused(_UNKNOWN)


def _int(value: object) -> int:
    if isinstance(value, int):
        return value
    raise _Refused(_UNKNOWN)


def _exclusive_literals(alternatives: list[object]) -> bool:
    """Return whether the alternatives are distinct plain ASCII strings none of which starts
    another (ignoring case), so that at most one of them matches at any position."""
    words: list[str] = []
    for alternative in alternatives:
        chars: list[str] = []
        for op, av in _items(alternative):
            if op != _sre.LITERAL or not isinstance(av, int) or av > _ASCII_MAX:
                return False
            chars.append(chr(av))
        words.append("".join(chars).lower())
    if len(set(words)) != len(words):
        return False
    return not any(a != b and b.startswith(a) for a in words for b in words)
