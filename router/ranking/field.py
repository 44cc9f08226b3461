"""An entry's scored fields (DESIGN 5): seed 1's tiers (structured, family_text, open_first,
notes, and the body sections read on demand) with their exact tokens, for the explain record,
and the words of each tier the ranker's postings are made from (DESIGN 5.1)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from router.catalog.entry import ROUTING_KEYS, Entry, Section
from router.catalog.formats import markup, record
from router.core import text
from router.ranking import bm25f, codeword, term

STRUCTURED, FAMILY_TEXT, OPEN_FIRST, NOTES, BODY = range(5)
TIER_NAMES = ("structured", "family_text", "open_first", "notes", "body")


@dataclass(frozen=True, slots=True)
class Field:
    """One scored field of an entry."""

    tier: int
    name: str
    normal: str
    tokens: tuple[str, ...]  # a tuple, not a set: a field holds a few words, and sets are big
    note: str | None = None  # the note id, for fields of a note
    section: str | None = None  # the heading, for a body section
    # the words inside the field's code identifiers (`codeword.parts`): the ranker's, not seed 1's
    parts: str = ""

    @property
    def label(self) -> str:
        """Return how evidence names the field: `title`, `body (Decision)`, ..."""
        if self.section:
            return f"{self.name} ({self.section})"
        return self.name


class Indexed:
    """An entry with its scored fields (the body's are read on demand: see `body_fields`).

    The fields are derived from the entry when first read and kept: a route reads those of
    its few candidates, and a snapshot need not carry them (it pickles the entry alone)."""

    __slots__ = ("_fields", "entry")

    def __init__(self, entry: Entry, fields: tuple[Field, ...] | None = None) -> None:
        self.entry = entry
        self._fields = fields

    @property
    def fields(self) -> tuple[Field, ...]:
        """Return the entry's scored fields but its body (`fields_of`)."""
        if self._fields is None:
            # Two threads may both derive them; both get equal tuples, one is kept.
            self._fields = fields_of(self.entry)
        return self._fields

    def __reduce__(self) -> tuple[type[Indexed], tuple[Entry]]:
        return Indexed, (self.entry,)

    def __repr__(self) -> str:
        return f"Indexed({self.entry.id!r})"


def fields_of(item: Entry) -> tuple[Field, ...]:
    """Return the scored fields of an entry but its body, tier by tier, in DESIGN 5's order.

    A title's leading record number (`8.`, `ADR-012:`) is not a term."""
    raw: list[tuple[int, str, str, str | None]] = []
    routing = item.routing
    for key in ROUTING_KEYS:
        raw.extend((STRUCTURED, key, value, None) for value in getattr(routing, key))
    raw.extend((STRUCTURED, "keywords", value, None) for value in item.keywords)
    raw.append((FAMILY_TEXT, "id", item.id, None))
    raw.append((FAMILY_TEXT, "title", record.title_terms(item.title), None))
    raw.append((FAMILY_TEXT, "summary", item.summary, None))
    raw.append((FAMILY_TEXT, "tags", " ".join(item.tags), None))
    if not item.is_row:
        raw.append((FAMILY_TEXT, "path", item.path, None))
    raw.append((FAMILY_TEXT, "governs", " ".join(item.governs), None))
    raw.extend((OPEN_FIRST, "open_first", summary, None) for summary in item.open_first)
    for note in item.notes:
        raw.append((NOTES, "notes", note.text, note.id))
        raw.append((NOTES, "notes", " ".join(note.problem_spaces), note.id))
        raw.append((NOTES, "notes", " ".join(note.capabilities), note.id))
    out = []
    for tier, name, value, note_id in raw:
        normal = text.normalize(value)
        if normal:
            tokens = text.tokens_of_normal(normal)
            extra = codeword.parts(value)
            if name == "title":
                extra = " ".join(filter(None, (extra, _quantity(item.title, value))))
            out.append(Field(tier, name, normal, tokens, note_id, parts=extra))
    return tuple(out)


# A title's leading number hyphen-joined to one word (`64-bit fields`) is a quantity, not a
# record number (`12-use-postgres` goes on with its slug, `8. Use Postgres` with a space).
_QUANTITY = re.compile(r"\s*(\d+)-$")
_UNIT = re.compile(r"[A-Za-z]+(?:\s|$)")


def _quantity(title: str, terms: str) -> str:
    """Return the number `markdown.title_terms` took off a title (`terms`) as a record
    number when it is a quantity's (`64` of `64-bit fields`), else ""."""
    plain = markup.strip(title)
    lead = plain[: len(plain) - len(terms)]
    match = _QUANTITY.fullmatch(lead) if lead and plain.endswith(terms) else None
    if match is None or not _UNIT.match(terms):
        return ""
    return match.group(1)


# The headings decision-record templates give every record (Nygard, MADR, Y-statements):
# structure, not subject. Read as words they would make `context` or `decision` a word of
# every record, and a task asking about a React context could not find the one record on it.
TEMPLATE_HEADINGS = frozenset(
    text.normalize(h)
    for h in (
        *record.DECISION_HEADINGS,
        *record.CONTEXT_HEADINGS,
        "status", "consequences", "positive consequences", "negative consequences",
        "considered options", "options considered", "decision drivers", "decision makers",
        "deciders", "pros and cons of the options", "alternatives", "alternatives considered",
        "rationale", "implications", "more information", "references", "links", "notes",
        "related decisions", "technical story",
    )
)  # fmt: skip


def section_words(section: Section) -> str:
    """Return the text a body section is indexed by: its heading and its text, the heading
    left out when a template gives it to every record (TEMPLATE_HEADINGS)."""
    if not section.heading or text.normalize(section.heading) in TEMPLATE_HEADINGS:
        return section.text
    return f"{section.heading} {section.text}"


def body_fields(item: Entry) -> tuple[Field, ...]:
    """Return the body tier's fields of an entry, one per section (built when asked: a body
    is read only to score or explain the few entries that need it)."""
    out = []
    for section in item.body:
        normal = text.normalize(section.text)
        if normal:
            tokens = text.tokens_of_normal(normal)
            out.append(Field(BODY, "body", normal, tokens, None, section.label))
    return tuple(out)


def words_of(item: Entry, fields: Iterable[Field]) -> tuple[list[dict[str, float]], set[str]]:
    """Return, per tier, the ranker's stem counts of an entry's fields and body (each at its
    field's `weight.share`; the words inside code identifiers count as occurrences too),
    and seed 1's distinct exact tokens of them (what df counts), read in one pass."""
    tiers: list[dict[str, float]] = [{} for _ in TIER_NAMES]
    exact: set[str] = set()
    for fld in fields:
        stems, tokens = term.read(fld.normal)
        counts, share = tiers[fld.tier], bm25f.share(fld.name)
        for stem, n in stems.items():
            counts[stem] = counts.get(stem, 0.0) + n * share
        if fld.parts:
            for stem, n in term.read(fld.parts)[0].items():
                counts[stem] = counts.get(stem, 0.0) + n * share
        exact.update(tokens)
    if item.body:
        raw = " ".join(section_words(s) for s in item.body)
        stems, tokens = term.read(text.normalize(raw))
        body = tiers[BODY] = dict(stems)  # no field is of the body's tier: it starts empty
        for stem, n in term.read(codeword.parts(raw))[0].items():
            body[stem] = body.get(stem, 0.0) + n
        exact.update(tokens)
    return tiers, exact
