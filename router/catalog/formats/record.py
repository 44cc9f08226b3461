"""Read a Markdown decision record: title, status, date, relations, summary and sections.

Made for the layouts real repositories use: adr-tools/Nygard (`# 8. Title`, `Date:`, `## Status`,
`## Context`, `## Decision`), MADR and Docusaurus bodies after their front matter (which is the
caller's), emoji statuses, `**Date:**` lines, a Status section at the end; also whether a file
is a template or an index page. Lines and inline markup are `markup`'s. Pure, and linear in its
input: every line is looked at a bounded number of times and every pattern's repetition is
bounded, so nothing backtracks without limit. Nothing here raises on any `str`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, islice

from router.catalog.entry import Section
from router.catalog.formats import markup, preamble
from router.catalog.formats.markup import BLANK, BLANK_LINE, FENCE, HEADING, TEXT, Line

SUMMARY_CHARS = 300  # a summary is cut at the sentence end nearest this length...
SUMMARY_MAX_CHARS = 360  # ...that does not pass this one; else at a word, with "…"
SUMMARY_MIN_CHARS = 20  # a shorter paragraph ending ":" is a label ("Chosen option:")
TOP_LINES = 20  # `Status:`, `Date:` and relation lines count among this many first lines
INDEX_MIN_LINKS = 3  # an index page links at least this many times...
INDEX_LINK_SHARE = 0.5  # ...from at least this share of its text lines

STATUS_WORDS = frozenset(
    "accepted adopted amended approved completed decided deprecated draft experimental"
    " implemented in-progress obsolete pending proposed rejected replaced superseded withdrawn"
    .split()
)  # fmt: skip
DECISION_HEADINGS = frozenset((
    "decision", "decisions", "the decision", "our decision", "decision made", "decision outcome",
    "outcome", "the existing decision", "proposal", "proposed decision", "what's proposed",
    "what’s proposed",
))  # fmt: skip
DECISION_PREFIXES = ("decision:", "decision outcome", "decision -", "decision –")
CONTEXT_HEADINGS = frozenset(
    ("context", "context and problem statement", "problem statement", "background", "problem")
)
INDEX_NAMES = frozenset(("readme.md", "index.md", "_index.md", "readme.markdown", "index.mdx"))
_ABBREVIATIONS = frozenset(("e.g", "i.e", "eg", "ie", "cf", "vs", "etc"))

_LOOSE_H1 = re.compile(r" {0,3}#(?=\d)")  # `#25. Title` has no space, yet is a title
_NUMBER = re.compile(r" ?(?:(?:adr?|rfc) ?[-_#]? ?)?#?\d{1,6}(?: ?[.:)\-–—]+ ?| )(?=\S)", re.I)
_STATUS_HEADING = re.compile(r"status\b\s*(?:[:\-–—]\s*(.*))?$", re.I)
_STATUS_LINE = re.compile(r"[ \t>]*(?:[-*+][ \t]+)?[*_]{0,2}status[*_]{0,2}[ \t]*:(.*)", re.I)
_DATE_LINE = re.compile(r"[ \t>]*(?:[-*+][ \t]+)?[*_]{0,2}date[*_]{0,2}[ \t]*:(.*)", re.I)
_RELATION = re.compile(
    r"\b(supersedes|superseded(?:[\s-]+by)?|replaces|replaced[\s-]+by|amend(?:s|ed\s+by))\b",
    re.I,
)
_WORDS = re.compile(r"\S+")
_LETTERS = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_TOP_KINDS = (TEXT, HEADING)
_SENTENCE_END = re.compile(r"[.!?][\"'’”)\]]*(?=\s+[^a-z\s])")


@dataclass(frozen=True, slots=True)
class Record:
    """What `read` finds in a Markdown body."""

    title: str  # the first `# ` heading as plain text ("" when none); a record number is kept
    status: str  # a `status_word`, "" when none is found
    date: str  # from a `Date:` / `**Date:**` line near the top, trimmed; "" when none
    supersedes: tuple[str, ...]  # link targets of "Supersedes ..." lines
    superseded_by: tuple[str, ...]  # link targets of "Superseded by ..." lines
    summary: str  # the Decision (else Context, else first) paragraph, cut near SUMMARY_CHARS
    sections: tuple[Section, ...]  # every section with text, markup stripped
    fields: tuple[tuple[str, str], ...] = ()  # of the metadata list after the title: `preamble`


def read(body: str) -> Record:
    """Return the title, status, date, relations, summary and sections of a Markdown body (the
    text after any front matter, or a whole file without any)."""
    lines = markup.scan(body)
    title, title_text = _title(lines)
    heads = [i for i, line in enumerate(lines) if line.kind == HEADING and i != title]
    top = list(islice((i for i, line in enumerate(lines) if line.kind in _TOP_KINDS), TOP_LINES))
    status, spans = _status(lines, heads, top)
    dates = (_DATE_LINE.match(lines[i].text) for i in top if lines[i].kind == TEXT)
    supersedes, superseded_by = _relations(lines, spans, top)
    fields = preamble.fields(_leading(lines, title))
    updated = next((value for key, value in fields if key == "updated"), "")
    return Record(
        title=markup.strip(title_text),
        status=status,
        date=next((date for m in dates if m and (date := markup.strip(m[1]))), updated),
        supersedes=supersedes,
        superseded_by=superseded_by,
        summary=_cut(_summary(lines, title, heads, spans)),
        sections=_sections(lines, title),
        fields=fields,
    )


def status_word(text: str) -> str:
    """Return a status text as one lower-case word: the first of STATUS_WORDS in it (emoji,
    emphasis, links and dates ignored; "in progress" is "in-progress"), else its first word."""
    words = [word for word in _LETTERS.findall(markup.strip(text).lower()) if word != "status"]
    for i, word in enumerate(words):
        if word == "in" and words[i + 1 : i + 2] == ["progress"]:
            return "in-progress"
        if word in STATUS_WORDS:
            return str(word)
    return str(words[0]) if words else ""


def title_terms(title: str) -> str:
    """Return a title without its markup or leading record number (`8.`, `0008 -`, `ADR-012:`,
    `ADR 12:`), for term indexing."""
    text = markup.strip(title)
    match = _NUMBER.match(text)
    return text[match.end() :] if match else text


def plain(markdown: str) -> str:
    """Return Markdown as plain text, one paragraph (heading, code block) a line: link and image
    text kept, emphasis, code ticks, tags, comments and block markers dropped."""
    return markup.flatten(markup.scan(markdown))


def is_template(file_name: str) -> bool:
    """Return whether a file name (or path) is a record template: `template.md`,
    `0000-TEMPLATE.md`, `adr-short-template.md` and the like."""
    stem = file_name.replace("\\", "/").rsplit("/", 1)[-1].lower()
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    return stem == "template" or stem.endswith(("-template", "_template", ".template")) or (
        stem.startswith(("template-", "template_"))
    )  # fmt: skip


def is_index_page(file_name: str, body: str) -> bool:
    """Return whether a file is a README or index page whose text lines mostly link to other
    documents (INDEX_LINK_SHARE of them, and at least INDEX_MIN_LINKS)."""
    if file_name.replace("\\", "/").rsplit("/", 1)[-1].lower() not in INDEX_NAMES:
        return False
    texts = [
        text
        for line in markup.scan(body)
        if line.kind == TEXT
        if (text := markup.unblock(line.text))
    ]
    links = sum(1 for text in texts if markup.LINK_TEXT.search(text))
    return links >= INDEX_MIN_LINKS and links >= INDEX_LINK_SHARE * len(texts)


def _title(lines: Sequence[Line]) -> tuple[int, str]:
    """Return the title's line and text: the first `# ` heading, else a first line `#25. Title`
    or a first heading starting with a record number, else (-1, "")."""
    for i, line in enumerate(lines):
        if line.kind == HEADING and line.level == 1:
            return i, line.text
    first = next((i for i, line in enumerate(lines) if line.kind != BLANK), -1)
    line = lines[first] if first >= 0 else BLANK_LINE
    if line.kind == TEXT and _LOOSE_H1.match(line.text):
        return first, markup.strip_closing(line.text.strip()[1:])
    numbered = line.kind == HEADING and _NUMBER.match(markup.strip(line.text))
    return (first, line.text) if numbered else (-1, "")


def _scope_end(lines: Sequence[Line], heads: Sequence[int], at: int, any_level: bool) -> int:
    """Return where heading `at`'s section ends: the next heading (any, or of its level up)."""
    for k in range(bisect.bisect_right(heads, at), len(heads)):
        if any_level or lines[heads[k]].level <= lines[at].level:
            return heads[k]
    return len(lines)


def _status(
    lines: Sequence[Line], heads: Sequence[int], top: Sequence[int]
) -> tuple[str, list[tuple[int, int]]]:
    """Return the status word (from `## Status: X`, the first line with text under a Status
    heading, else a top `Status:` line) and the spans of the Status sections, heading included."""
    found, spans = "", []
    for at in heads:
        if match := _STATUS_HEADING.match(markup.strip(lines[at].text)):
            end = _scope_end(lines, heads, at, any_level=True)
            spans.append((at, end))
            texts = (markup.strip(markup.unblock(line.text)) for line in lines[at + 1 : end])
            found = found or status_word(match[1] or next((t for t in texts if t), ""))
    for i in top:
        if not found and lines[i].kind == TEXT and (match := _STATUS_LINE.match(lines[i].text)):
            found = status_word(match[1])
    return found, spans


def _relations(
    lines: Sequence[Line], spans: Sequence[tuple[int, int]], top: Sequence[int]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return the link targets that follow "Supersedes"/"Replaces" and "Superseded by"/
    "Replaced by" in the Status sections and the top lines ("Amended by" and "Amends" end
    such a run). In a Status section a bare "Superseded [x](x.md)" counts too, as does a bare
    `x.md`; a "Superseded by" that ends its line takes the next line's links."""
    refs: dict[str, str] = {}
    for line in lines:  # a definition holds `]:`: only such lines are matched
        text = line.text
        if line.kind == TEXT and "]:" in text and (match := markup.REF_DEF.match(text.strip())):
            refs.setdefault(_label(match[1]), match[2].strip("<>"))
    in_status = {i for start, end in spans for i in range(start, end)}
    found: dict[str, dict[str, None]] = {"of": {}, "by": {}}
    carry = ""
    for i in sorted(in_status.union(top)):
        text = lines[i].text if lines[i].kind in (TEXT, HEADING) else ""
        lower = text.lower()  # each match holds one (`re.I` takes their letters only as ASCII)
        hinted = "uper" in lower or "plac" in lower or "mend" in lower
        keys = [
            (m.start(), "" if key.startswith("amend") else "of" if key[-1] == "s" else "by")
            for m in (_RELATION.finditer(text) if hinted else ())
            if (key := " ".join(m[1].lower().split())) != "superseded" or i in in_status
        ]
        links = ((m.end(), m[2] if m[2] is not None else refs.get(_label(m[3] or m[1]), ""))
                 for m in markup.LINK.finditer(text))  # fmt: skip
        targets = [(end, href) for end, href in links if href]
        if keys and i in in_status and not any(end > keys[-1][0] for end, _ in targets):
            words = ((m.end(), m[0].strip(".,;:()[]*_`'\"")) for m in _WORDS.finditer(text))
            targets += [(end, w) for end, w in words if w.lower().endswith(".md")]
        k, kind = 0, carry
        for end, href in sorted(targets):
            while k < len(keys) and keys[k][0] < end:
                kind, k = keys[k][1], k + 1
            while href.startswith("./"):
                href = href[2:]
            if kind and (href := href.split("#", 1)[0]):
                found[kind].setdefault(href)
        if text:
            tail = text[keys[-1][0] :].lower().rstrip(" .:*_") if keys else ""
            carry = "by" if tail.endswith(" by") and not targets else ""
    return tuple(found["of"]), tuple(found["by"])


def _label(text: str) -> str:
    return " ".join(text.lower().split())


def _summary(
    lines: Sequence[Line], title: int, heads: Sequence[int], spans: Sequence[tuple[int, int]]
) -> str:
    """Return the first paragraph of the Decision section, else of the Context section, else
    of the body after the title (Status section, status and date lines aside), else before it."""
    named = {at: title_terms(lines[at].text).lower().rstrip(" :") for at in heads}
    for names, prefixes in ((DECISION_HEADINGS, DECISION_PREFIXES), (CONTEXT_HEADINGS, ())):
        for at, name in named.items():
            if name in names or (prefixes and name.startswith(prefixes)):
                end = _scope_end(lines, heads, at, any_level=False)
                if text := _first_paragraph(_blocks(lines, range(at + 1, end))):
                    return text
    skipped = {i for start, end in spans for i in range(start, end)}
    rest = (i for i in range(title + 1, len(lines)) if i not in skipped)
    gap = [("", False, False)]
    blocks = chain(_blocks(lines, rest, True), gap, _blocks(lines, range(title), True))
    return _first_paragraph(blocks, labels=True)


# A paragraph as `_first_paragraph` weighs it: its plain text, whether it is a list, and
# whether it only links (no summary of its own, yet the list a paragraph may introduce).
Block = tuple[str, bool, bool]


def _blocks(
    lines: Sequence[Line], indices: Iterable[int], skip_meta: bool = False
) -> Iterator[Block]:
    """Yield the paragraphs among `indices` as Blocks, with ("", False, False) for a table,
    code block, image or heading between them. With `skip_meta`, a metadata list is such a
    gap too, a paragraph that only links is marked so, and status and date lines are
    dropped."""
    paragraph: list[str] = []
    last = -2
    for i in chain(indices, [-1]):
        line = lines[i] if i >= 0 else BLANK_LINE
        text = line.kind == TEXT
        if text and paragraph and i == last + 1:
            paragraph.append(line.text)
        elif paragraph:
            yield from _pieces(paragraph, skip_meta)
            paragraph = []
        if text and not paragraph and markup.unblock(line.text):
            paragraph.append(line.text)
        elif line.kind in (FENCE, HEADING):
            yield "", False, False
        last = i


def _pieces(paragraph: Sequence[str], skip_meta: bool) -> Iterator[Block]:
    """Yield a paragraph as `_blocks` gives it: whole (marked when it only links), else a gap
    for a metadata list, else the runs of lines between its status and date lines."""
    if skip_meta and preamble.is_metadata(paragraph):
        yield "", False, False
        return
    if skip_meta and preamble.is_link_only(paragraph):
        yield _paragraph_text(paragraph), bool(markup.ITEM.match(paragraph[0])), True
        return
    run: list[str] = []
    for raw in chain(paragraph, [""]):
        meta = skip_meta and (_STATUS_LINE.match(raw) or _DATE_LINE.match(raw))
        if raw and not meta and (run or markup.unblock(raw)):
            run.append(raw)
        elif run:
            yield _paragraph_text(run), bool(markup.ITEM.match(run[0])), False
            run = []


def _leading(lines: Sequence[Line], title: int) -> Iterator[list[str]]:
    """Yield the lines of each paragraph after the title (or from the start when there is
    none), up to the first heading or code block."""
    paragraph: list[str] = []
    for i in range(title + 1, len(lines)):
        if lines[i].kind == TEXT:
            paragraph.append(lines[i].text)
            continue
        if paragraph:
            yield paragraph
            paragraph = []
        if lines[i].kind != BLANK:
            return
    if paragraph:
        yield paragraph


def _first_paragraph(blocks: Iterable[Block], labels: bool = False) -> str:
    """Return the first paragraph, with the list after it if it ends no sentence (a list of
    links too); skip a short label ending ":" (but return the first if `labels` and no
    paragraph follows) and a paragraph that only links (as a label is). Lazy."""
    label = waiting = ""  # `waiting`: a paragraph the next block settles
    for text, is_list, links in chain(blocks, [("", False, False)]):
        if waiting and text and is_list:
            return f"{waiting} {text}"
        label, text = (label or text, "") if links else (label, text)
        if waiting:
            ends = _sentence_ends(waiting) if waiting.endswith(":") else [len(waiting)]
            found = waiting[: ends[-1]] if ends else waiting
            if ends or len(waiting) >= SUMMARY_MIN_CHARS:
                return found
            label = label or found
        if text and _ends_with(text, ".!?"):
            return text
        waiting = text
    return label if labels else ""


def _paragraph_text(raw_lines: Sequence[str]) -> str:
    """Return a paragraph's plain text without images, its list items joined by ";" (":"
    after an opening line); "" for a table."""
    if raw_lines[0].lstrip(" \t>").startswith("|"):
        return ""
    pieces: list[str] = []
    in_list = False
    for raw in raw_lines:
        item = bool(markup.ITEM.match(raw))
        if (text := markup.IMAGE.sub("", markup.unblock(raw))).strip():
            if pieces and item and not _ends_with(pieces[-1], ".!?:;,"):
                pieces[-1] += ";" if in_list else ":"
            pieces.append(text)
            in_list = in_list or item
    return markup.strip(" ".join(pieces))


def _ends_with(text: str, marks: str) -> bool:
    """Return whether `text` ends with one of `marks`, closing quotes and markup aside."""
    bare = text.rstrip(" *_`)]\"'’”")
    return bool(bare) and bare[-1] in marks


def _sentence_ends(text: str) -> list[int]:
    """Return where `text`'s sentences end up to SUMMARY_MAX_CHARS (not after "e.g." or "J.")."""
    ends = []
    for match in _SENTENCE_END.finditer(text, 0, SUMMARY_MAX_CHARS + 2):
        end = match.end()
        word = text[text.rfind(" ", 0, end) + 1 : end].lower().rstrip(".!?\"'’”)]")
        if end <= SUMMARY_MAX_CHARS and word not in _ABBREVIATIONS and len(word) > 1:
            ends.append(end)
    return ends


def _cut(text: str) -> str:
    """Return `text` cut at the sentence end nearest SUMMARY_CHARS within SUMMARY_MAX_CHARS,
    else at a word boundary, with "…"."""
    if len(text) <= SUMMARY_MAX_CHARS:
        return text
    if ends := _sentence_ends(text):
        return text[: min(ends, key=lambda end: abs(end - SUMMARY_CHARS))]
    cut = text.rfind(" ", 0, SUMMARY_CHARS + 1)
    return text[: cut if cut > 0 else SUMMARY_MAX_CHARS].rstrip(" ,;:-–—") + "…"


def _sections(lines: Sequence[Line], title: int) -> tuple[Section, ...]:
    """Return a Section with text per heading but the title, after one ("") for the text
    before the first heading."""
    chunks: list[tuple[str, list[Line]]] = [("", [])]
    for i, line in enumerate(lines):
        if line.kind == HEADING and i != title:
            chunks.append((line.text, []))
        elif i != title:
            chunks[-1][1].append(line)
    return tuple(
        Section(heading, text) for heading, body in chunks if (text := markup.flatten(body))
    )
