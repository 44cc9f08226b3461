"""A Markdown file -> its entry: front matter, headings, sections and body (DESIGN 4.1).

Front matter gives the fields it has; the body gives the rest (MADR keeps its title in a
heading and its status in a section) and is indexed as the lowest tier. A document without
front matter is read from its headings, as adr-tools and MADR write them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import replace

from router.catalog import diagnostic, entry, schema
from router.catalog.config import Config
from router.catalog.diagnostic import INFO, WARNING, Diagnostic, FileResult, result
from router.catalog.entry import Entry
from router.catalog.formats import frontmatter, record, scaffold


def read(config: Config, relpath: str, text: str, fmt: str) -> FileResult:
    """Return the entry and diagnostics of one Markdown file (any format: plain, front
    matter, SKILL.md, rule, instruction). Never raises."""
    name = relpath.rsplit("/", 1)[-1]
    try:
        block, body = frontmatter.parts(text)
        # a template's front matter holds placeholders YAML may reject: look before parsing
        if fmt == "markdown" and scaffold.is_scaffold(relpath, block, body):
            return diagnostic.only(relpath, SCAFFOLD, INFO)
        parsed = frontmatter.parse(block) if block is not None else None
    except frontmatter.FrontMatterError as error:
        return diagnostic.only(relpath, error.problem, line=error.line)
    if fmt == "markdown" and record.is_index_page(name, body):
        return diagnostic.only(
            relpath, "an index page (mostly links to other documents): skipped", INFO
        )
    if parsed is None and fmt == "markdown" and front_page(config, relpath):
        return diagnostic.only(relpath, FRONT_PAGE, INFO)
    doc = record.read(body)
    shelf = config.taxonomy.shelf_kind(relpath)
    if parsed is None:
        if fmt in ("rule", "skill", "instruction"):
            return diagnostic.only(
                relpath, f"a {fmt} file without front matter gives no entry", WARNING
            )
        if not doc.title and not doc.sections:
            return diagnostic.only(
                relpath, "untyped: no front matter, heading or text, so no entry", WARNING
            )
        return result(relpath, (_plain(relpath, doc, shelf),))
    meta = dict(parsed.meta)
    try:
        item = schema.from_front_matter(_status_as_text(meta), relpath, fmt, shelf)
    except schema.FieldError as error:
        return diagnostic.only(relpath, f"{error}; the file gives no entry until it is fixed")
    item = _with_body(item, doc)
    notes = [
        Diagnostic(
            relpath,
            "unquoted glob read as Cursor reads it; quote it for strict YAML tools",
            WARNING,
            line,
        )
        for line in parsed.lenient_lines
    ]
    notes.extend(
        Diagnostic(
            relpath,
            "unquoted `: ` read as part of the value; strict YAML rejects the line, so "
            "quote the value",
            WARNING,
            line,
        )
        for line in parsed.colon_lines
    )
    return result(relpath, (item,), sorted(notes, key=lambda d: d.line or 0))


def front_page(config: Config, relpath: str) -> bool:
    """Return whether a file is the front page of one of the catalog's roots: a README or
    index page directly inside the root.

    A front page introduces the catalog as a whole (what it holds, how it is written), so it
    shares a few words with every task and answers none: on the judged sets it was the first
    pointer of a sixth of the headwater tasks and never the document a task needed. One with
    front matter was typed on purpose and stays an entry; one in a subfolder is about that
    folder's subject and stays one too."""
    folder, _, name = relpath.replace("\\", "/").rpartition("/")
    if name.lower() not in record.INDEX_NAMES:
        return False
    folders = {posixpath.normpath(root) for root in config.roots}
    return (folder or ".") in folders


FRONT_PAGE = "the front page of a catalog root, about the catalog as a whole: skipped"
SCAFFOLD = "a template of a record format (placeholders to fill in), not a document: skipped"


def _status_as_text(meta: dict[str, object]) -> dict[str, object]:
    """Return the front matter with a template-style `status: { accepted }` (which YAML
    reads as a one-key mapping) read as the text it means."""
    status = meta.get("status")
    if isinstance(status, dict) and all(v is None for v in status.values()):
        meta["status"] = " ".join(str(k) for k in status)
    return meta


def _plain(relpath: str, doc: record.Record, shelf: str | None) -> Entry:
    """Return the entry of a Markdown document without front matter."""
    # A document laid out as a decision record (a Status, Decision or Context section) is one.
    headings = {_heading_key(s.heading) for s in doc.sections}
    kind = shelf or ("decision" if headings & _RECORD_HEADINGS else "doc")
    return entry.from_plain(
        relpath,
        title=doc.title or _title_of_name(relpath),
        summary=doc.summary,
        status=doc.status,
        date=doc.date,
        supersedes=_linked(relpath, doc.supersedes),
        superseded_by=_linked(relpath, doc.superseded_by),
        body=doc.sections,
        kind=kind,
        facets=_facets(doc),
    )


# Fields of a leading metadata list (`record.Record.fields`) that no entry field holds,
# kept as facets; status, dates and relations have fields of their own.
FACET_FIELDS = ("authors",)


def _facets(doc: record.Record) -> tuple[tuple[str, str], ...]:
    """Return the FACET_FIELDS of a document's metadata list, as (name, value)."""
    return tuple((key, value) for key, value in doc.fields if key in FACET_FIELDS)


_RECORD_HEADINGS = frozenset(
    {"status", "decision", "decision outcome", "context", "context and problem statement"}
)


def _title_of_name(relpath: str) -> str:
    """Return a title made of a file name, for a document without a `# ` title: its stem
    with `-` and `_` as spaces (`0018-kernel-hooks-phase2.md` -> `0018 kernel hooks phase2`,
    the number no term), the folder's name for a README or index page."""
    folder, _, name = relpath.replace("\\", "/").rpartition("/")
    if name.lower() in record.INDEX_NAMES and folder:
        name = posixpath.basename(folder)
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return " ".join(stem.replace("_", "-").split("-"))


def _heading_key(heading: str) -> str:
    """Return a heading lower-cased with surrounding punctuation and spaces removed."""
    return heading.strip(" #*:").lower()


def _with_body(item: Entry, doc: record.Record) -> Entry:
    """Return a front-matter entry completed from its body: the body sections, and title,
    summary, status, date and relations where the front matter gives none (MADR keeps the
    title in a heading and the status in a section)."""
    status_doc = record.read("## Status\n\n" + item.status) if item.status else doc
    status = status_doc.status or doc.status
    facets = item.facets
    for key, value in (("date", doc.date), *_facets(doc)):
        if value and not any(k == key for k, _ in facets):
            facets = tuple(sorted((*facets, (key, value))))
    return replace(
        item,
        title=item.title or doc.title,
        summary=item.summary or doc.summary,
        status=status,
        supersedes=item.supersedes or _linked(item.path, status_doc.supersedes or doc.supersedes),
        superseded_by=item.superseded_by
        or _linked(item.path, status_doc.superseded_by or doc.superseded_by),
        facets=facets,
        body=doc.sections,
    )


def _linked(relpath: str, targets: Iterable[str]) -> tuple[str, ...]:
    """Return link targets written in a file as repository-relative paths (URLs dropped)."""
    out = []
    base = posixpath.dirname(relpath)
    for target in targets:
        if "://" in target or target.startswith("mailto:"):
            continue
        out.append(posixpath.normpath(posixpath.join(base, target.lstrip("/"))))
    return tuple(dict.fromkeys(out))
