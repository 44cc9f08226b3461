"""Whether a page is the scaffolding of a record format: the ADR, MADR, KEP or proposal
template authors copy and fill in.

Such a page is the format's headings under placeholders and instructions; it shares the
format's words with every task about a record and answers none, so the catalog skips it.
A page is one when it is named as a template (its file, or the folder of a README), holds
RECORD_HEADINGS_MIN of a record format's headings, and reads as a skeleton: its title a
placeholder (`{short title}`, `Proposal: [Title]`, `KEP-NNNN: ...`, `ADRxxx`) or saying
"template", or record sections left empty. Only the title is searched for placeholders: a
real record keeps a template's checklists and reference links (`[kubernetes/website]`) in
its body, and a KEP about a `ClusterResourceClaimTemplate` lives in a folder named
`...-template`. A page merely named so that says something (a guide to a pull-request
template, an output skeleton a skill tells the agent to fill) stays an entry. Pure, and
linear in its input. Nothing here raises on any `str`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from router.catalog.formats import markup, record
from router.catalog.formats.markup import BLANK, HEADING, TEXT, Line

RECORD_HEADINGS = frozenset((
    "status", "context", "decision", "decisions", "consequences", "decision drivers",
    "considered options", "decision outcome", "context and problem statement",
    "pros and cons of the options", "abstract", "background", "proposal", "rationale",
    "compatibility", "implementation", "summary", "motivation", "goals", "non-goals",
    "design details", "alternatives", "alternatives considered", "drawbacks",
    "detailed design", "introduction", "proposed solution", "source compatibility",
    "risks and mitigations", "test plan", "graduation criteria",
))  # fmt: skip
RECORD_HEADINGS_MIN = 2  # a record format's headings a scaffold holds at least
EMPTY_SECTIONS_MIN = 2  # record sections left empty (comments only) that make a skeleton

_PLACEHOLDER = re.compile(
    r"\{[^{}\n]{1,200}\}"  # {short title of solved problem and solution}
    r"|\[[^\[\]\n!]{2,200}\](?![(\[:])"  # [Title], not a link, a task box or an alert
    r"|\b(?:N{3,8}|X{3,8}|x{3,8})\b"
    r"|(?i:(?:adr|kep|rfc|se)[-_ ]?(?:0{3,8}|x{3,8}|n{3,8})\b)"  # ADRxxx, ADR000, KEP-NNNN
)
_TITLE_LINE = re.compile(r"title:[ \t]*(.*)")
_TEMPLATE_WORD = re.compile(r"\btemplates?\b", re.I)


def is_scaffold(relpath: str, block: str | None, body: str) -> bool:
    """Return whether a Markdown file (its path, front-matter text or None, and body) is the
    template of a record format rather than a document."""
    folder, _, name = relpath.replace("\\", "/").rpartition("/")
    named = record.is_template(name) or (
        name.lower() in record.INDEX_NAMES and record.is_template(posixpath.basename(folder))
    )
    if not named:
        return False
    lines = markup.scan(body)
    heads = [i for i, line in enumerate(lines) if line.kind == HEADING]
    records = [i for i in heads if _heading_key(lines[i].text) in RECORD_HEADINGS]
    if len(records) < RECORD_HEADINGS_MIN:
        return False
    empty = sum(1 for i in records if _is_empty(lines, heads, i))
    return _is_placeholder_title(lines, block) or empty >= EMPTY_SECTIONS_MIN


def _heading_key(heading: str) -> str:
    """Return a heading as RECORD_HEADINGS hold it: plain, lower-case, without a number."""
    return record.title_terms(heading).lower().strip(" :")


def _is_empty(lines: Sequence[Line], heads: Sequence[int], at: int) -> bool:
    """Return whether the section under heading `at`, its subsections included, holds no
    text."""
    level = lines[at].level
    end = next((i for i in heads if i > at and lines[i].level <= level), len(lines))
    return all(
        line.kind == BLANK or (line.kind == TEXT and not markup.unblock(line.text))
        for line in lines[at + 1 : end]
    )


def _is_placeholder_title(lines: Sequence[Line], block: str | None) -> bool:
    """Return whether the first `# ` heading, else the front matter's `title:`, is a
    placeholder or says "template"."""
    heading = next((line.text for line in lines if line.kind == HEADING and line.level == 1), "")
    titles = (m[1] for line in (block or "").splitlines() if (m := _TITLE_LINE.match(line)))
    title = heading or next(titles, "")
    return bool(_PLACEHOLDER.search(title) or _TEMPLATE_WORD.search(title))
