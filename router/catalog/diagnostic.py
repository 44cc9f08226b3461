"""Diagnostics: what a catalog file gave (its entries) and what was wrong with it.

Shared by the readers of each format (`catalog`, `document`); the core never prints them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from router.catalog.entry import Entry

ERROR = "error"
WARNING = "warning"
INFO = "info"  # a file deliberately not read (a template, an index page)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in one file."""

    path: str
    problem: str
    severity: str = ERROR
    line: int | None = None

    def as_dict(self) -> dict[str, object]:
        """Return the JSON form (no `line` member when it is not known)."""
        out: dict[str, object] = {
            "path": self.path,
            "problem": self.problem,
            "severity": self.severity,
        }
        if self.line is not None:
            out["line"] = self.line
        return out


@dataclass(frozen=True, slots=True)
class FileResult:
    """What one catalog file gave: its entries and its diagnostics."""

    entries: tuple[Entry, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    stale: bool = False  # entries are a previous good version; the file is broken now
    digest: int = 0  # hash of the entries' routed fields (see `file_digest`)
    # (size, mtime in ns) of the file as it was read, (0, 0) when it could not be: what a
    # snapshot compares to tell a file that changed since (see `runtime.snapshot`)
    stamp: tuple[int, int] = (0, 0)

    @property
    def broken(self) -> bool:
        """True when the file has an error diagnostic."""
        return any(d.severity == ERROR for d in self.diagnostics)


def file_digest(entries: Iterable[Entry]) -> int:
    """Return a 64-bit digest of a file's entries' routed fields (0 for none). Entries carry
    their path, so equal files elsewhere do not cancel out in the XOR."""
    digest = hashlib.blake2b(digest_size=8)
    empty = True
    for item in entries:
        digest.update(repr(item).encode("utf-8"))
        empty = False
    return 0 if empty else int.from_bytes(digest.digest(), "big")


def result(
    path: str, entries: Iterable[Entry], diagnostics: Iterable[Diagnostic] = ()
) -> FileResult:
    """Return a file's result with its digest."""
    entries = tuple(entries)
    return FileResult(entries, tuple(diagnostics), digest=file_digest(entries))


def only(path: str, problem: str, severity: str = ERROR, line: int | None = None) -> FileResult:
    return result(path, (), (Diagnostic(path, problem, severity, line),))
