"""The safety check on regexes a repository's authors write and kroute runs on every task
(skill-rules.json intent patterns, read by `trigger`).

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
from dataclasses import dataclass

with warnings.catch_warnings():  # the public names of `re._parser`, deprecated since 3.11
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants as _sre
    import sre_parse as _sre_parse

MAX_PATTERN_CHARS = 500
MAX_MATCH_CHARS = 4000
# Bound on the work of one pattern over one task, in (start position x way to match from
# it). One unbounded quantifier over MAX_MATCH_CHARS is 1.6e7, which CPython's `re` runs in
# 0.05 s (`.*x`) to 0.8 s (`[ab]+[ab]{3}x` over "abab...") on the worst task.
MAX_MATCH_STEPS = 20_000_000
MIN_MATCH_CHARS = 200
_PATTERN_CACHE = 4096

_LEAVES = frozenset({_sre.LITERAL, _sre.NOT_LITERAL, _sre.ANY, _sre.IN, _sre.AT})
_REPEATS = frozenset({_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT})
_GROUP_REFERENCES = frozenset({_sre.GROUPREF, _sre.GROUPREF_EXISTS})
_ASSERTIONS = frozenset({_sre.ASSERT, _sre.ASSERT_NOT})


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


def matches(source: str, task: str) -> bool:
    """Return whether the pattern matches somewhere in the task's first `match_window`
    characters, ignoring case. A refused pattern is never run and matches nothing, so a
    pattern that did not pass the check cannot hang the caller. Never raises."""
    checked = _check(source)
    return not isinstance(checked, str) and checked[0].search(task, 0, checked[1]) is not None


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
