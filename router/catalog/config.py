"""kroute.toml: discovery and loading (DESIGN 4.1, 4.4). Environment is read by the caller."""

from __future__ import annotations

import difflib
import hashlib
import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar

from router.base.errors import ConfigError
from router.catalog import taxonomy
from router.client import locate

FILE_NAME = locate.CONFIG_NAME
DEFAULT_ROOTS = (
    "docs",
    ".claude/skills",
    ".claude/rules",
    ".cursor/rules",
    ".github/instructions",
    # the common homes of decision records outside docs/ (docs/adr, docs/decisions and
    # docs/architecture/decisions are under docs already)
    "doc/adr",
    "architecture/decisions",
    "adr",
    "decisions",
)


def present_roots(root: Path) -> tuple[str, ...]:
    """Return the default roots that exist under `root`, in DEFAULT_ROOTS' order."""
    return tuple(r for r in DEFAULT_ROOTS if (root / r).exists())


DEFAULT_BUDGET = 5
# The judged sets chose it: turns by purpose cost first places, and mixing kinds (diverse)
# cost hits at 5 on headwater (0.886 against 0.943).
DEFAULT_ORDER = "score"
ORDERS = ("diverse", "turns", "score")
SHADOW_MODES = ("live", "shadow", "off")
MEANING_MODES = ("off", "shadow", "live")
# A daemon nobody asked for half an hour is likely left over from a finished session, and
# the next route starts a fresh one, so exiting costs one cold load.
DEFAULT_IDLE_MINUTES = 30.0
# What kroute.toml may hold: each top-level key, with the keys of its table (None: a table
# whose keys are the user's own names, checked where it is read). `route.gate_terms` is an
# old setting still accepted and ignored: silence is decided for the route as a whole now.
SECTIONS = ("route", "shadow", "daemon", "meaning", "intent", "purposes", "kinds", "shelves")
KNOWN: dict[str, tuple[str, ...] | None] = {
    "roots": None,
    "exclude": None,
    "route": ("budget", "order", "gate_terms"),
    "shadow": ("mode", "redact"),
    "daemon": ("idle_minutes",),
    "meaning": ("mode", "model"),
    "intent": ("strategies",),
    "purposes": None,
    "kinds": None,
    "shelves": None,
}
# How alike an unknown name must be to a known one to be offered as what was meant
# (difflib's ratio: `root` and `roots` 0.89, `rout` and `route` 0.89, `buget` and `budget` 0.91).
NEAREST_CUTOFF = 0.6
T = TypeVar("T")
# What a bad member reads as while the rest of the file is checked (typed for `take`).
NO_TABLE: Mapping[str, object] = MappingProxyType({})
NO_TEXTS: tuple[str, ...] = ()


class ConfigProblemsError(ConfigError):
    """Several problems in one kroute.toml, each a ConfigError of its own (`problems`)."""

    def __init__(self, where: str, problems: list[ConfigError]) -> None:
        listed = " ".join(f"({n}) {problem}" for n, problem in enumerate(problems, 1))
        super().__init__(
            f"{where} has {len(problems)} problems: {listed}",
            "Fix each of them, then run kroute check",
        )
        self.problems = tuple(problems)


@dataclass(frozen=True, slots=True)
class Config:
    """Where the catalog is and how to route over it."""

    root: Path  # the repository root: paths in entries are relative to it
    roots: tuple[str, ...] = (".",)
    exclude: tuple[str, ...] = ()
    taxonomy: taxonomy.Taxonomy = field(default_factory=taxonomy.Taxonomy)
    budget: int = DEFAULT_BUDGET
    order: str = DEFAULT_ORDER
    shadow_mode: str = "live"
    shadow_redact: bool = False  # log a digest of each task and text, never the words
    intent: Mapping[str, object] = field(default_factory=dict)
    # A daemon that has answered no request for this long exits; 0 keeps it forever.
    idle_minutes: float = DEFAULT_IDLE_MINUTES
    # the meaning extra (embeddings): off, or neighbours logged beside routes (shadow), or
    # fused into them (live); the model is a path, None for the packaged default
    meaning_mode: str = "off"
    meaning_model: str | None = None
    file: Path | None = None
    digest: str = "none"


def bare(root: Path) -> Config:
    """Return the configuration of a catalog directory without a config file: it is the only
    root and has no taxonomy."""
    return Config(root=root)


def load(file: Path, root: Path | None = None) -> Config:
    """Return the configuration in `file`. Its `roots` are relative to `root` when given (a
    catalog directory named on the command line), else to the file's directory.

    Raises ConfigError naming the file and the bad member: every problem the file has in
    one error (an unknown key or section named with the nearest known one), so that one
    run of `kroute check` shows them all; a file that is not TOML at all is one error."""
    try:
        raw = file.read_bytes()
    except OSError as error:
        raise ConfigError(
            f"cannot read {file}: {error.strerror}", "Check the path given with --config"
        ) from None
    try:
        table = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{file} is not valid TOML: {error}", "Fix the file") from None
    where = file.name
    problems: list[ConfigError] = list(unknown_keys(table, where))

    def take(read: Callable[[], T], default: T) -> T:
        # Reading goes on past a bad member, so that every problem is reported at once.
        try:
            return read()
        except ConfigError as error:
            problems.append(error)
            return default

    route = take(lambda: _table(table, "route", where), NO_TABLE)
    shadow = take(lambda: _table(table, "shadow", where), NO_TABLE)
    daemon = take(lambda: _table(table, "daemon", where), NO_TABLE)
    meaning = take(lambda: _table(table, "meaning", where), NO_TABLE)
    intent_table = take(lambda: _table(table, "intent", where), NO_TABLE)
    order = take(lambda: _choice(route, "order", ORDERS, DEFAULT_ORDER, "route", where), "")
    mode = take(lambda: _choice(shadow, "mode", SHADOW_MODES, "live", "shadow", where), "")
    meaning_mode = take(
        lambda: _choice(meaning, "mode", MEANING_MODES, "off", "meaning", where), ""
    )
    meaning_model = take(lambda: _model(meaning.get("model"), where), None)
    roots = take(lambda: _roots(table.get("roots", list(DEFAULT_ROOTS)), where), NO_TEXTS)
    exclude = take(lambda: _strings(table.get("exclude", []), "exclude", where), NO_TEXTS)
    tax = taxonomy.from_table(table, where, problems)
    budget = take(
        lambda: _count(route.get("budget", DEFAULT_BUDGET), "route.budget", where, minimum=0),
        DEFAULT_BUDGET,
    )
    redact = take(lambda: _flag(shadow.get("redact", False), "shadow.redact", where), False)
    idle = take(
        lambda: _minutes(
            daemon.get("idle_minutes", DEFAULT_IDLE_MINUTES), "daemon.idle_minutes", where
        ),
        DEFAULT_IDLE_MINUTES,
    )
    take(lambda: _strategies(intent_table, where), None)
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise ConfigProblemsError(where, problems)
    return Config(
        root=(root or file.parent).resolve(),
        roots=roots,
        exclude=exclude,
        taxonomy=tax,
        budget=budget,
        order=str(order),
        shadow_mode=str(mode),
        shadow_redact=redact,
        intent=intent_table,
        idle_minutes=idle,
        meaning_mode=str(meaning_mode),
        meaning_model=meaning_model,
        file=file.resolve(),
        digest=hashlib.sha256(raw).hexdigest()[:16],
    )


def unknown_keys(table: Mapping[str, object], where: str) -> list[ConfigError]:
    """Return an error for each key or section of a config table that kroute does not read
    (a typo such as `root =` or `[rout]` would otherwise be ignored without a word), each
    naming the nearest known name. Free-form tables (kinds, shelves, each purpose's name,
    intent strategies) are checked where they are read."""
    found = []
    for name, value in table.items():
        if name not in KNOWN:
            found.append(_unknown(name, tuple(KNOWN), "", where, isinstance(value, dict)))
            continue
        keys = KNOWN[name]
        if keys is None or not isinstance(value, dict):
            continue
        found += [_unknown(key, keys, name, where) for key in value if key not in keys]
    return found


def _unknown(
    name: str, known: tuple[str, ...], section: str, where: str, table: bool = False
) -> ConfigError:
    """Return the error of a key (or section) kroute does not know, naming the nearest one."""
    shown = f"[{name}]" if table else f"`{section + '.' if section else ''}{name}`"
    close = difflib.get_close_matches(name, known, n=1, cutoff=NEAREST_CUTOFF) or [
        k for k in known if k.startswith(name) or name.startswith(k)
    ]
    if close:
        nearest = f"[{close[0]}]" if table and close[0] in SECTIONS else f"`{close[0]}`"
        todo = f"Did you mean {nearest}? Rename it"
    else:
        todo = f"Use one of {', '.join(known)}"
    return ConfigError(f"{where}: {shown} is not a kroute.toml setting", todo)


def _choice(
    section: Mapping[str, object],
    key: str,
    choices: tuple[str, ...],
    default: str,
    name: str,
    where: str,
) -> str:
    """Return a setting that must be one of `choices`. Raises ConfigError naming them."""
    value = section.get(key, default)
    if value not in choices:
        raise ConfigError(f"{where}: {name}.{key} is {value!r}", f"Use one of {', '.join(choices)}")
    return str(value)


def _model(value: object, where: str) -> str | None:
    """Return `meaning.model` (None: the packaged model). Raises ConfigError for anything
    but a non-empty text."""
    if value is not None and (not isinstance(value, str) or not value):
        raise ConfigError(
            f"{where}: meaning.model is {value!r}",
            "Name a model file or directory, or leave it out for the packaged model",
        )
    return value


def _roots(value: object, where: str) -> tuple[str, ...]:
    """Return the roots, each relative to the repository. Raises ConfigError for a root
    that leaves it."""
    roots = _strings(value, "roots", where)
    for entry in roots:
        if entry.startswith("/") or ".." in entry.split("/"):
            raise ConfigError(
                f"{where}: root {entry!r} leaves the repository",
                "Write roots relative to the repository root",
            )
    return roots


def _strategies(intent_table: Mapping[str, object], where: str) -> None:
    """Check `[intent.strategies]` as the engine will read it. Raises ConfigError."""
    strategies = intent_table.get("strategies", {})
    if not isinstance(strategies, dict):
        raise ConfigError(
            f"{where}: `intent.strategies` must be a table", "Write [intent.strategies.NAME]"
        )
    if not strategies:
        return
    from router.filters import intent  # the classifier's tables, only when they are set

    try:
        intent.defaults_from_config(strategies)
    except ConfigError as error:
        raise ConfigError(f"{where}: {error.what}", error.todo) from None


def _table(table: Mapping[str, object], name: str, where: str) -> Mapping[str, object]:
    value = table.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `{name}` must be a table", "Write it as [" + name + "]")
    return value


def _strings(value: object, name: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{name}` must be a list of text", f'Write {name} = ["..."]')
    return tuple(value)


def _flag(value: object, name: str, where: str) -> bool:
    """Return a TOML boolean. Raises ConfigError for anything else."""
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: {name} is {value!r}", "Use true or false")
    return value


def _count(value: object, name: str, where: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(
            f"{where}: {name} is {value!r}", f"Use a whole number of at least {minimum}"
        )
    return value


def _minutes(value: object, name: str, where: str) -> float:
    """Return a finite, non-negative number of minutes. Raises ConfigError for anything else."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
    ):
        raise ConfigError(f"{where}: {name} is {value!r}", "Use a number of minutes, 0 for never")
    return float(value)
