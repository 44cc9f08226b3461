"""What may be shown: the one sanitizer of everything that leaves the process with catalog or
log text in it (hook text, MCP results, CLI text and JSON, the HTML report, shadow lines when
printed), and the dimming of evidence lines on a terminal.

Pure, and light: the standard library's `unicodedata` alone, so that `kroute route` with a
daemon running (`router.cli.shortcut`) prints a route without importing `re`.
"""

from __future__ import annotations

import unicodedata

EM_DASH = "\u2014"  # consumers select pointer lines by this character: nowhere else
# Characters never shown to an agent or a terminal: controls (Cc: C0, DEL and C1, so ESC
# sequences and backspaces lose their escape), format characters (Cf: zero-width and bidi
# marks that hide or reorder text) and lone surrogates (Cs: no encoding can write them).
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})
KEPT_IN_LINES = frozenset("\n\t")  # what a multi-line text keeps of its whitespace controls
# The members of a JSON document that are multi-line text by design (what the hooks inject,
# the why-not sentence): built of `flat` fields, they keep their lines.
LINES_MEMBERS = frozenset({"text"})


def clean(value: str, *, lines: bool = False) -> str:
    """Return `value` with every control and format character dropped; one that is
    whitespace (a line break, a tab) counts as a space, except that with `lines` a newline
    and a tab are kept. Nothing else changes (see `flat` for one line of shown text)."""
    if value.isprintable():  # printable text holds no Cc, Cf, Cs or line break: the common case
        return value
    kept = KEPT_IN_LINES if lines else frozenset()
    return "".join(
        c
        if c in kept
        else " "
        if c.isspace() and not c.isprintable()
        else ""
        if unicodedata.category(c) in HIDDEN_CATEGORIES
        else c
        for c in value
    )


def flat(value: str) -> str:
    """Return `value` as one line an agent or a terminal may be shown: every control and
    format character dropped (one that is whitespace, such as a newline or a tab, counts as a
    space), whitespace runs as one space, surrounding space removed, and any em dash turned
    into a plain dash so that only the pointer separator carries one."""
    return " ".join(clean(value).replace(EM_DASH, "-").split())


def scrubbed(document: object, member: str = "") -> object:
    """Return a JSON-like document (dicts, lists, strings, numbers) with every string in it,
    keys too, passed through `clean`: on one line, except the members named in
    LINES_MEMBERS, which keep their newlines. JSON escaping alone would still hand an agent
    a bidi override or a zero-width character."""
    if isinstance(document, str):
        return clean(document, lines=member in LINES_MEMBERS)
    if isinstance(document, dict):
        return {clean(str(k)): scrubbed(v, str(k)) for k, v in document.items()}
    if isinstance(document, list | tuple):
        return [scrubbed(v, member) for v in document]
    return document


EVIDENCE_INDENT = "    "  # what tells an evidence line from the rest (`render`, `dim_evidence`)
DIM, RESET = "\x1b[2m", "\x1b[0m"


def dim_evidence(report: str) -> str:
    """Return a text report with its evidence lines dimmed (for a terminal); it also serves
    a report that came back from the daemon as plain text."""
    return "\n".join(
        f"{DIM}{line}{RESET}" if line.startswith(EVIDENCE_INDENT) and EM_DASH not in line else line
        for line in report.split("\n")
    )
