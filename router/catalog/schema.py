"""The field mapping from each catalog format to entries (DESIGN 4.1): a Markdown file's
front matter, read as its format (Markdown, skill, rule, instruction) says, and a row of a
seed-1 `annexes` catalog.

Builders take an already parsed mapping; reading files is `catalog`'s job. A value of the
wrong type raises `FieldError`, which the catalog turns into a diagnostic for that file.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

from router.catalog.entry import (
    DEFAULT_NOTE_RELEVANCE,
    NOTE_ROUTING_KEYS,
    ROUTING_KEYS,
    Entry,
    Note,
    Routing,
)


class FieldError(ValueError):
    """A front-matter or JSON field holds a value of the wrong type."""


# ----------------------------------------------------------------------------- coercion


def _scalar(value: object, name: str) -> str:
    """Return a scalar front-matter value as text; raise FieldError for lists and maps."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    raise FieldError(f"`{name}` must be text, not {_type_name(value)}")


def _strings(value: object, name: str, *, split_commas: bool = False) -> tuple[str, ...]:
    """Return a list-of-text field as a tuple; one string is one item (or comma-separated
    items when `split_commas`). Raise FieldError for maps or nested non-text items."""
    if value is None:
        return ()
    if isinstance(value, str):
        parts = value.split(",") if split_commas else [value]
        return tuple(p.strip() for p in parts if p.strip())
    if isinstance(value, list | tuple):
        out: list[str] = []
        for item in value:
            if isinstance(item, list | dict):
                raise FieldError(f"`{name}` must be a list of text; it holds {_type_name(item)}")
            text = _scalar(item, name)
            if text:
                out.append(text)
        return tuple(out)
    if isinstance(value, int | float | datetime.date):
        return (_scalar(value, name),)
    raise FieldError(f"`{name}` must be a list of text, not {_type_name(value)}")


def _targets(value: object, name: str, *, split_commas: bool = False) -> tuple[str, ...]:
    """Return relation targets flattened: strings, nested lists (list-anchors `[a, b]`) and
    mappings with a `to` member, in the order written. Raises FieldError for a mapping
    without `to` or a value that is not text.

    Nesting is walked with a stack, not recursion: a JSON list nested a thousand deep costs
    what a flat one does and cannot raise RecursionError."""
    out: list[str] = []
    pending: list[object] = [value]
    while pending:
        item = pending.pop()
        if item is None:
            continue
        if isinstance(item, str):
            parts = item.split(",") if split_commas else [item]
            out.extend(p.strip() for p in parts if p.strip())
        elif isinstance(item, list | tuple):
            pending.extend(reversed(item))
        elif isinstance(item, dict):
            if "to" not in item:
                raise FieldError(f"`{name}` holds a mapping without a `to` member")
            pending.append(item["to"])
        else:
            out.append(_scalar(item, name))
    return tuple(dict.fromkeys(out))


def _mapping(value: object, name: str) -> Mapping[str, object]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise FieldError(f"`{name}` must be a mapping, not {_type_name(value)}")
    return value


def _type_name(value: object) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


def _first(meta: Mapping[str, object], keys: Iterable[str]) -> tuple[str, str]:
    """Return (key, text) of the first key present with a non-empty value, else ("", "")."""
    for key in keys:
        if key in meta:
            text = _scalar(meta[key], key)
            if text:
                return key, text
    return "", ""


# ----------------------------------------------------------------------------- parts


def _routing(block: Mapping[str, object], name: str) -> Routing:
    return Routing(**{key: _strings(block.get(key), f"{name}.{key}") for key in ROUTING_KEYS})


def _notes(value: object) -> tuple[Note, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise FieldError(f"`notes` must be a list, not {_type_name(value)}")
    notes: list[Note] = []
    for place, raw in enumerate(value, start=1):
        if isinstance(raw, str):
            notes.append(Note(id=f"note-{place}", text=raw))
            continue
        item = _mapping(raw, f"notes[{place}]")
        routing = _mapping(item.get("routing"), f"notes[{place}].routing")
        relevance = item.get("relevance", DEFAULT_NOTE_RELEVANCE)
        if (
            isinstance(relevance, bool)
            or not isinstance(relevance, int | float)
            or not 0 <= relevance <= 100
        ):
            raise FieldError(f"`notes[{place}].relevance` must be a number from 0 to 100")
        notes.append(
            Note(
                id=_scalar(item.get("id"), f"notes[{place}].id") or f"note-{place}",
                text=_first(item, ("note", "text", "summary"))[1],
                relevance=float(relevance),
                **{
                    key: _strings(routing.get(key, item.get(key)), f"notes[{place}].routing.{key}")
                    for key in NOTE_ROUTING_KEYS
                },
            )
        )
    return tuple(sorted(notes, key=lambda n: (-n.relevance, n.id)))


def _open_first(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value.strip(),) if value.strip() else ()
    if not isinstance(value, list):
        raise FieldError(f"`open_first` must be a list, not {_type_name(value)}")
    out: list[str] = []
    for place, item in enumerate(value, start=1):
        if isinstance(item, dict):
            text = _scalar(item.get("summary"), f"open_first[{place}].summary")
        else:
            text = _scalar(item, f"open_first[{place}]")
        if text:
            out.append(text)
    return tuple(out)


def routing_summary(own: Routing, notes: Iterable[Note]) -> Routing:
    """Return seed 1's derived routing summary: the entry's routing block plus its notes'
    problem_spaces and capabilities, deduplicated in order."""
    notes = list(notes)
    merged = {key: list(getattr(own, key)) for key in ROUTING_KEYS}
    for note in notes:
        for key in NOTE_ROUTING_KEYS:
            merged[key].extend(getattr(note, key))
    return Routing(**{key: tuple(dict.fromkeys(values)) for key, values in merged.items()})


_KNOWN_KEYS = frozenset(
    (
        "id slug name title display_name summary description tags kind doc_type status "
        "warrant provenance routing routing_summary open_first notes relations "
        "when_to_use paths globs alwaysApply applyTo source_kind"
    ).split()
)


def _facets(meta: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    """Return the scalar members not otherwise mapped, sorted by name."""
    out = []
    for key, value in meta.items():
        if key in _KNOWN_KEYS or isinstance(value, dict | list) or value is None:
            continue
        out.append((str(key), _scalar(value, str(key))))
    return tuple(sorted(out))


# ----------------------------------------------------------------------------- builders


def from_front_matter(
    meta: Mapping[str, object], path: str, fmt: str, shelf_kind: str | None
) -> Entry:
    """Return the entry of a Markdown file's front matter.

    `fmt` is one of "markdown", "skill", "rule", "instruction" (which decides the default
    kind and the format's own fields). Raises FieldError on a value of the wrong type."""
    # The stem stands in for a missing id; an instruction keeps `.instructions` so that
    # `rust.instructions.md` and a Cursor rule `rust.mdc` do not collide.
    name = PurePosixPath(path).name
    stem = name.removesuffix(".md") if fmt == "instruction" else name.split(".", 1)[0]
    if fmt == "skill":
        stem = PurePosixPath(path).parent.name or stem
    authored = _first(meta, ("id", "slug", "name"))[1]
    kind = _first(meta, ("kind", "doc_type"))[1] or shelf_kind or _DEFAULT_KIND[fmt]
    provenance = _mapping(meta.get("provenance"), "provenance")
    warrant = _scalar(meta.get("warrant", provenance.get("warrant")), "warrant")
    routing_block = _mapping(meta.get("routing"), "routing")
    relations = _mapping(meta.get("relations"), "relations")
    notes = _notes(meta.get("notes"))
    written_notes = _notes_in_written_order(meta.get("notes"), notes)
    if "routing_summary" in meta:
        summary_routing = _routing(
            _mapping(meta["routing_summary"], "routing_summary"), "routing_summary"
        )
    else:
        summary_routing = routing_summary(_routing(routing_block, "routing"), written_notes)

    governs = _targets(relations.get("governs"), "relations.governs")
    open_first = _open_first(meta.get("open_first"))
    always_apply = False
    if fmt == "skill":
        open_first += _strings(meta.get("when_to_use"), "when_to_use")
        governs += _targets(meta.get("paths"), "paths", split_commas=True)
    elif fmt == "rule":
        governs += _targets(meta.get("globs"), "globs", split_commas=True)
        always_apply = _flag(meta.get("alwaysApply"), "alwaysApply")
    elif fmt == "instruction":
        governs += _targets(meta.get("applyTo"), "applyTo", split_commas=True)

    return Entry(
        id=authored or stem,
        stem="" if authored else stem,
        kind=kind,
        path=path,
        file=path,
        title=_first(meta, ("title", "name", "display_name"))[1],
        summary=_first(meta, ("summary", "description"))[1],
        tags=_strings(meta.get("tags"), "tags", split_commas=True),
        status=_scalar(meta.get("status", routing_block.get("status")), "status"),
        warrant=warrant,
        routing=summary_routing,
        open_first=open_first,
        notes=notes,
        governs=tuple(dict.fromkeys(governs)),
        supersedes=_targets(relations.get("supersedes"), "relations.supersedes"),
        superseded_by=_targets(relations.get("superseded_by"), "relations.superseded_by"),
        always_apply=always_apply,
        source_kind=_scalar(meta.get("source_kind"), "source_kind"),
        facets=_facets(meta),
    )


def from_annex(row: Mapping[str, object], file: str, place: int) -> Entry:
    """Return the entry of one row of a seed-1 `annexes` catalog. Raises FieldError."""
    slug = _first(row, ("slug", "id"))[1]
    if not slug:
        raise FieldError(f"annexes[{place}] has no `slug`")
    notes = _notes(row.get("notes"))
    if "routing_summary" in row:
        routing = _routing(_mapping(row["routing_summary"], "routing_summary"), "routing_summary")
    else:
        own = _routing(_mapping(row.get("routing"), "routing"), "routing")
        routing = routing_summary(own, _notes_in_written_order(row.get("notes"), notes))
    relations = _mapping(row.get("relations"), "relations")
    return Entry(
        id=slug,
        kind=_first(row, ("kind",))[1] or "annex",
        path=f"{file}#{slug}",
        file=file,
        title=_first(row, ("display_name", "title", "name"))[1],
        summary=_first(row, ("description", "summary"))[1],
        tags=_strings(row.get("tags"), "tags", split_commas=True),
        status=_scalar(row.get("status"), "status"),
        warrant=_scalar(row.get("warrant"), "warrant"),
        routing=routing,
        open_first=_open_first(row.get("open_first")),
        notes=notes,
        governs=_targets(relations.get("governs"), "relations.governs"),
        supersedes=_targets(relations.get("supersedes"), "relations.supersedes"),
        superseded_by=_targets(relations.get("superseded_by"), "relations.superseded_by"),
        source_kind=_scalar(row.get("source_kind"), "source_kind"),
        is_row=True,
    )


_DEFAULT_KIND = {"markdown": "doc", "skill": "skill", "rule": "rule", "instruction": "instruction"}


def _flag(value: object, name: str) -> bool:
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", ""):
        return value.strip().lower() == "true"
    raise FieldError(f"`{name}` must be true or false")


def _notes_in_written_order(raw: object, notes: tuple[Note, ...]) -> list[Note]:
    """Return `notes` back in the order the file wrote them (the routing summary keeps it)."""
    if not isinstance(raw, list):
        return list(notes)
    order: dict[str, int] = {}
    for place, item in enumerate(raw, start=1):
        ident = item.get("id") if isinstance(item, dict) else None
        order.setdefault(str(ident) if ident else f"note-{place}", place)
    return sorted(notes, key=lambda n: order.get(n.id, 0))
