"""The taxonomy of seed 2: purposes, the kinds that serve them, and shelves (DESIGN 4.4)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from router.base.errors import ConfigError
from router.catalog import pattern
from router.core.text import normalize

# Purpose of every entry when no taxonomy declares any (DESIGN 6 step 4).
IMPLICIT_PURPOSE = "any"


@dataclass(frozen=True, slots=True)
class Purpose:
    """What a kind is for: one sentence of intent and the short questions it answers."""

    name: str
    intent: str
    answers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Taxonomy:
    """Purposes, kind -> purpose, and shelves (path glob -> kind, first match wins)."""

    purposes: tuple[Purpose, ...] = ()
    kinds: tuple[tuple[str, str], ...] = ()
    shelves: tuple[tuple[str, str], ...] = ()

    def shelf_kind(self, path: str) -> str | None:
        """Return the kind of the first shelf whose glob covers `path`, or None."""
        for glob, kind in self.shelves:
            if pattern.covers(glob, path):
                return kind
        return None

    def purpose_of(self, kind: str) -> str:
        """Return the purpose a kind serves; the implicit purpose without a taxonomy, and ""
        for a kind the taxonomy does not map."""
        if not self.purposes:
            return IMPLICIT_PURPOSE
        return _kind_map(self.kinds).get(kind, "")


@functools.lru_cache(maxsize=64)
def _kind_map(kinds: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return dict(kinds)


def from_table(
    table: Mapping[str, object], where: str, problems: list[ConfigError] | None = None
) -> Taxonomy:
    """Return the taxonomy declared by a config table's `purposes`, `kinds`, `shelves`.

    Raises ConfigError naming the first bad member; with `problems`, adds each bad member's
    error there instead and leaves it out. `where` names the file in messages."""
    found: list[ConfigError] = []
    purposes = []
    for name, body in _table(table.get("purposes"), "purposes", where, found).items():
        body = _table(body, f"purposes.{name}", where, found)
        found += [
            ConfigError(
                f"{where}: `purposes.{name}.{key}` is not a kroute.toml setting",
                "A purpose takes `intent` and `answers`",
            )
            for key in body
            if key not in ("intent", "answers")
        ]
        intent = body.get("intent", "")
        answers = body.get("answers", [])
        if not isinstance(intent, str):
            found.append(ConfigError(f"{where}: purposes.{name}.intent must be text", _FIX))
        elif not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            found.append(
                ConfigError(f"{where}: purposes.{name}.answers must be a list of text", _FIX)
            )
        else:
            purposes.append(Purpose(name, intent, tuple(answers)))
    kinds = []
    declared = {p.name for p in purposes}
    for kind, value in _table(table.get("kinds"), "kinds", where, found).items():
        purpose: object = value.get("purpose") if isinstance(value, dict) else value
        if not isinstance(purpose, str):
            found.append(ConfigError(f"{where}: kinds.{kind} must name a purpose", _FIX))
        elif declared and purpose not in declared:
            found.append(
                ConfigError(
                    f"{where}: kinds.{kind} names purpose `{purpose}`, which is not declared",
                    "Declare it under [purposes] or map the kind to a declared purpose",
                )
            )
        else:
            kinds.append((kind, purpose))
    shelves = []
    for glob, shelf_kind in _table(table.get("shelves"), "shelves", where, found).items():
        if not isinstance(shelf_kind, str) or not shelf_kind:
            found.append(ConfigError(f'{where}: shelves."{glob}" must name a kind', _FIX))
        else:
            shelves.append((glob, shelf_kind))
    if found and problems is None:
        raise found[0]
    if problems is not None:
        problems += found
    return Taxonomy(tuple(purposes), tuple(kinds), tuple(shelves))


def declaration_tokens(purpose: Purpose) -> frozenset[str]:
    """Return the normalized words of a purpose's intent and answers."""
    return frozenset(normalize(" ".join((purpose.intent, *purpose.answers))).split())


_FIX = "Fix kroute.toml (see `kroute init` for a starter)"


def _table(value: object, name: str, where: str, found: list[ConfigError]) -> Mapping[str, object]:
    """Return a config table (empty when absent); anything but a table is an error added to
    `found`, and read as empty."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        found.append(ConfigError(f"{where}: `{name}` must be a table", _FIX))
        return {}
    return value
