"""kroute.toml: discovery and loading (DESIGN 4.1, 4.4). Environment is read by the caller."""

from __future__ import annotations

import hashlib
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from router.base import protocol
from router.base.errors import ConfigError
from router.core import taxonomy

FILE_NAME = protocol.CONFIG_NAME
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

    Raises ConfigError naming the file and the bad member."""
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
    route = _table(table, "route", where)
    shadow = _table(table, "shadow", where)
    daemon = _table(table, "daemon", where)
    order = route.get("order", DEFAULT_ORDER)
    if order not in ORDERS:
        raise ConfigError(f"{where}: route.order is {order!r}", f"Use one of {', '.join(ORDERS)}")
    mode = shadow.get("mode", "live")
    if mode not in SHADOW_MODES:
        raise ConfigError(
            f"{where}: shadow.mode is {mode!r}", f"Use one of {', '.join(SHADOW_MODES)}"
        )
    meaning = _table(table, "meaning", where)
    meaning_mode = meaning.get("mode", "off")
    if meaning_mode not in MEANING_MODES:
        raise ConfigError(
            f"{where}: meaning.mode is {meaning_mode!r}", f"Use one of {', '.join(MEANING_MODES)}"
        )
    meaning_model = meaning.get("model")
    if meaning_model is not None and (not isinstance(meaning_model, str) or not meaning_model):
        raise ConfigError(
            f"{where}: meaning.model is {meaning_model!r}",
            "Name a model file or directory, or leave it out for the packaged model",
        )
    roots = _strings(table.get("roots", list(DEFAULT_ROOTS)), "roots", where)
    for entry in roots:
        if entry.startswith("/") or ".." in entry.split("/"):
            raise ConfigError(
                f"{where}: root {entry!r} leaves the repository",
                "Write roots relative to the repository root",
            )
    return Config(
        root=(root or file.parent).resolve(),
        roots=roots,
        exclude=_strings(table.get("exclude", []), "exclude", where),
        taxonomy=taxonomy.from_table(table, where),
        budget=_count(route.get("budget", DEFAULT_BUDGET), "route.budget", where, minimum=0),
        order=str(order),
        shadow_mode=str(mode),
        shadow_redact=_flag(shadow.get("redact", False), "shadow.redact", where),
        intent=_table(table, "intent", where),
        idle_minutes=_minutes(
            daemon.get("idle_minutes", DEFAULT_IDLE_MINUTES), "daemon.idle_minutes", where
        ),
        meaning_mode=str(meaning_mode),
        meaning_model=meaning_model,
        file=file.resolve(),
        digest=hashlib.sha256(raw).hexdigest()[:16],
    )


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
