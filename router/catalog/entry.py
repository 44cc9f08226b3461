"""Entry records (DESIGN 4.1), the entries built from values other modules already read,
and how the entries of one id combine.

Mapping a catalog format's fields to an entry is `schema`'s job. Here a Markdown file without
front matter (its headings and sections, read by `markdown`) and a skill-rules.json rule
(parsed by `trigger`) become entries, and `merged` joins the entries several files declare
for one id.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from router.catalog.formats import trigger

ROUTING_KEYS = ("problem_spaces", "capabilities", "domains", "clusters")
NOTE_ROUTING_KEYS = ("problem_spaces", "capabilities")
DEFAULT_NOTE_RELEVANCE = 50
# Statuses of documents nobody has accepted, or that nobody should follow any more (DESIGN
# 6: `unwarranted`).
UNREVIEWED_STATUSES = frozenset({"draft", "proposed", "rejected", "deprecated"})
ACCEPTED_WARRANT = "accepted"


@dataclass(frozen=True, slots=True)
class Routing:
    """An entry's routing summary: the structured tier's fields."""

    problem_spaces: tuple[str, ...] = ()
    capabilities: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    clusters: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, list[str]]:
        """Return the four lists keyed by name."""
        return {key: list(getattr(self, key)) for key in ROUTING_KEYS}


@dataclass(frozen=True, slots=True)
class Note:
    """A curated note of an entry (seed 1)."""

    id: str
    text: str
    relevance: float = DEFAULT_NOTE_RELEVANCE
    problem_spaces: tuple[str, ...] = ()
    capabilities: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Section:
    """One section of a Markdown body: its heading as written ("" for the text before the
    first heading) and its text with the markup stripped (DESIGN 4.1, the `body` tier)."""

    heading: str
    text: str
    # the page it was read from, relative to the entry's folder, when that is not the entry's
    # own file (a page of a skill folder); "" for the entry's own
    page: str = ""

    @property
    def label(self) -> str:
        """Return how evidence names the section: its heading ("text" before the first),
        after the page it was read from when that is not the entry's own file."""
        heading = self.heading or "text"
        return f"{self.page}: {heading}" if self.page else heading


@dataclass(frozen=True, slots=True)
class Entry:
    """One routable item of the catalog."""

    id: str
    kind: str
    path: str  # repository-relative; a JSON row's is `file#slug`
    file: str  # the catalog file it came from, repository-relative
    title: str = ""
    summary: str = ""
    tags: tuple[str, ...] = ()
    status: str = ""
    warrant: str = ""
    routing: Routing = field(default_factory=Routing)
    open_first: tuple[str, ...] = ()
    notes: tuple[Note, ...] = ()  # ordered by relevance desc, then id
    governs: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    superseded_by: tuple[str, ...] = ()
    always_apply: bool = False
    source_kind: str = ""
    facets: tuple[tuple[str, str], ...] = ()
    is_row: bool = False  # a row of a JSON catalog: its path is not a family_text field
    # the lowest tier; never returned, only routed on. A tuple, or (restored from a snapshot)
    # a read-only sequence decoded from the mapped snapshot file when read.
    body: Sequence[Section] = ()
    keywords: tuple[str, ...] = ()  # trigger phrases (skill-rules.json): structured tier
    intent_patterns: tuple[str, ...] = ()  # trigger regexes (skill-rules.json)
    # the stem (file name, or a skill's folder) the id was taken from when no author wrote
    # one; "" for an id an author wrote. Stem ids that collide are qualified by their path.
    stem: str = ""

    @property
    def unwarranted(self) -> bool:
        """True when nobody has accepted this entry: a draft/proposed status, or a warrant
        other than `accepted` (an absent warrant is accepted by policy)."""
        if self.status.lower() in UNREVIEWED_STATUSES:
            return True
        return bool(self.warrant) and self.warrant.lower() != ACCEPTED_WARRANT

    @property
    def unreviewed_reason(self) -> str:
        """Return the status or warrant that makes this entry unwarranted ("" when it is not)."""
        if not self.unwarranted:
            return ""
        if self.status.lower() in UNREVIEWED_STATUSES:
            return self.status.lower()
        return self.warrant


def from_plain(
    path: str,
    *,
    title: str,
    summary: str,
    status: str,
    date: str,
    supersedes: tuple[str, ...],
    superseded_by: tuple[str, ...],
    body: tuple[Section, ...],
    kind: str,
    facets: tuple[tuple[str, str], ...] = (),
) -> Entry:
    """Return the entry of a Markdown document without front matter (read from its headings
    and sections by `markdown`), `facets` beside its date. Its id is the file stem."""
    stem = PurePosixPath(path).name.split(".", 1)[0]
    return Entry(
        id=stem,
        stem=stem,
        kind=kind,
        path=path,
        file=path,
        title=title,
        summary=summary,
        status=status,
        supersedes=supersedes,
        superseded_by=superseded_by,
        facets=tuple(sorted(((("date", date),) if date else ()) + facets)),
        body=body,
    )


TRIGGER_MARK = "#trigger:"  # in the path of an entry read from a skill-rules.json rule
EXCLUDED = "!"  # a governs target that subtracts (a rule's path exclusion)


def from_rule(rule: trigger.Rule, file: str) -> Entry:
    """Return the entry of one skill-rules.json rule: its keywords and intent patterns as
    triggers, its path patterns as governs targets and its exclusions marked `!`."""
    return Entry(
        id=rule.name,
        kind="skill",
        path=f"{file}{TRIGGER_MARK}{rule.name}",
        file=file,
        summary=rule.description,
        keywords=rule.keywords,
        intent_patterns=rule.intent_patterns,
        governs=(*rule.path_patterns, *(EXCLUDED + x for x in rule.path_exclusions)),
        is_row=True,
    )


def is_trigger(item: Entry) -> bool:
    """Return whether an entry was read from a skill-rules.json rule."""
    return TRIGGER_MARK in item.path


def merged(items: Iterable[Entry]) -> Entry:
    """Return the entry of one id declared by several files: the first (path order) wins,
    and a skill-rules.json rule adds its triggers to the skill of the same name instead of
    competing with it. Raises ValueError when `items` is empty."""
    items = list(items)
    if not items:
        raise ValueError("merged() needs at least one entry")
    base = next((e for e in items if not is_trigger(e)), items[0])
    if is_trigger(base):
        return base
    for rule in (e for e in items if is_trigger(e)):
        base = replace(
            base,
            summary=base.summary or rule.summary,
            keywords=tuple(dict.fromkeys((*base.keywords, *rule.keywords))),
            intent_patterns=tuple(dict.fromkeys((*base.intent_patterns, *rule.intent_patterns))),
            governs=tuple(dict.fromkeys((*base.governs, *rule.governs))),
        )
    return base
