"""A document's preamble: the `Key: value` list that proposal formats put right after the
title (`* Proposal: SE-0001`, `* Status: Implemented`, `Author: Ian Lance Taylor`, `Last
updated: October, 2015`), and the lines beside it that only link (`Discussion at
https://go.dev/issue/1`). Both are about the document rather than what it says, so neither
is its summary; the list's known keys are fields.

Pure, and linear in its input: every pattern's repetition is bounded, so nothing backtracks
without limit. Nothing here raises on any `str`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from router.catalog.formats import markup

# A key of a metadata line, lower-cased, -> the field it fills. Keys mapped to "" are known
# to be metadata (so a list holding one is a preamble) and fill no field.
KEYS = {
    "status": "status",
    "author": "authors",
    "authors": "authors",
    "author(s)": "authors",
    "date": "date",
    "last updated": "updated",
    "updated": "updated",
    "last modified": "updated",
    "superseded by": "superseded_by",
    "superseded-by": "superseded_by",
    "replaced by": "superseded_by",
    "supersedes": "supersedes",
    "replaces": "supersedes",
    **dict.fromkeys(
        (
            "proposal", "discussion", "review", "reviews", "review manager", "review managers",
            "reviewer", "reviewers", "implementation", "upcoming feature flag", "feature flag",
            "previous proposal", "previous revision", "previous revisions", "bug", "issue",
            "tracking issue", "sponsor", "sponsors", "owner", "owners", "contact", "champion",
            "champions", "shepherd", "deciders", "decision-makers", "consulted", "informed",
            "created", "pitch", "vision", "decision notes",
        ),
        "",
    ),
}  # fmt: skip
# A paragraph only links when its words outside links are at most one more than its links,
# and never more than this: "Discussion at <url>", "Table of Contents: [a] · [b] · [c]" do,
# "Schema for the [Query API](url)." does not.
LINK_ONLY_WORDS = 3

_FIELD = re.compile(
    r"[ \t>]*(?:[-*+][ \t]+)?[*_]{0,2}"
    r"([A-Za-z][A-Za-z()'’-]{0,30}(?:[ \t][A-Za-z()'’-]{1,30}){0,3})"
    r"[*_]{0,2}[ \t]*:[*_]{0,2}(?:[ \t]+(.*))?$"
)
_URL = re.compile(r"(?:https?|ftp)://\S+|www\.\S+")
_WORD = re.compile(r"[^\W\d_]+")


def field(line: str) -> tuple[str, str] | None:
    """Return a `Key: value` line's key (lower-cased, spaces collapsed) and value (plain
    text), else None."""
    match = _FIELD.match(line.rstrip())
    if not match:
        return None
    return " ".join(match[1].lower().split()), markup.strip(match[2] or "")


def is_metadata(raw_lines: Sequence[str]) -> bool:
    """Return whether a paragraph is a metadata list: every line a `Key: value` line (or an
    indented continuation of one), at least one with a key of KEYS."""
    known = False
    for i, line in enumerate(raw_lines):
        found = field(line)
        if found is None:
            continuation = i > 0 and line[:1].isspace() and not markup.ITEM.match(line)
            if not continuation:
                return False
        else:
            known = known or found[0] in KEYS
    return known


def is_link_only(raw_lines: Sequence[str]) -> bool:
    """Return whether a paragraph only links: it holds links (or URLs) and, outside them, at
    most one word more than it has links, up to LINK_ONLY_WORDS (`Discussion at
    https://go.dev/issue/1.`, `Moved to [the new page](x.md).`)."""
    text = " ".join(markup.unblock(line) for line in raw_lines)
    links = len(markup.LINK_TEXT.findall(text)) if "[" in text else 0
    text = markup.LINK_TEXT.sub(" ", text) if links else text
    links += len(_URL.findall(text))
    words = len(_WORD.findall(_URL.sub(" ", text))) if links else 0
    return links > 0 and words <= min(LINK_ONLY_WORDS, links + 1)


def fields(paragraphs: Iterable[Sequence[str]]) -> tuple[tuple[str, str], ...]:
    """Return the fields of a document's leading metadata lists, given its paragraphs from the
    title on: (field name of KEYS, value) in the order written, the first of a name kept.
    Link-only paragraphs among the lists are passed over; the first other paragraph ends
    them."""
    found: dict[str, str] = {}
    for raw_lines in paragraphs:
        if is_metadata(raw_lines):
            pairs = (field(line) for line in raw_lines)
            for key, value in (pair for pair in pairs if pair):
                if (name := KEYS.get(key)) and value:
                    found.setdefault(name, value)
        elif not is_link_only(raw_lines):
            break
    return tuple(found.items())
