"""The catalog: files under the roots -> entries + diagnostics (DESIGN 4.1, 4.2).

Loading never stops on a bad file: it becomes a diagnostic. `refresh` re-reads only the
files that changed and keeps a file's last good entries (marked stale) when its new version
is broken, which is what the daemon serves while someone is mid-edit.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import orjson

from router.catalog import claim, diagnostic, entry, limit, pattern, schema, walk
from router.catalog.config import Config
from router.catalog.diagnostic import ERROR, WARNING, Diagnostic, FileResult, result
from router.catalog.entry import Entry
from router.catalog.formats import document, trigger

MAX_FILE_BYTES = 1024 * 1024
# Runs of `*` in one governs glob. Each becomes a backtracking `.*` (or `[^/]*`), so matching
# costs the path's length to that power: four runs took 1.4 s against one 250-character path,
# ten did not finish in a minute. The 1,182 globs of the corpora have at most three
# (`charts/**/templates/**/*.yaml`).
MAX_GLOB_STARS = 3
_STAR_RUN = re.compile(r"\*+")
# A descriptor is read this much at a time; a regular file under MAX_FILE_BYTES takes one or
# two reads.
_READ_CHUNK = 256 * 1024


@dataclass(frozen=True)
class Catalog:
    """Every entry the router can offer: per-file results, and (derived on first use) the
    entries in path order with ids unique, and every diagnostic.

    The fingerprint combines per-file digests by XOR, so a refresh updates it from the files
    that changed instead of re-hashing the whole catalog."""

    files: Mapping[str, FileResult] = field(default_factory=dict)
    walk: tuple[Diagnostic, ...] = ()  # problems found while walking (escaping symlinks)
    mix: int = 0  # XOR of the files' digests
    stale_files: frozenset[str] = frozenset()  # kept apart: every route reports the count

    @property
    def fingerprint(self) -> str:
        """Return a short hash of every routed field of every entry."""
        return f"{self.mix:016x}"

    @cached_property
    def settled(self) -> claim.Settled:
        """Return the entries with ids settled and skill folders folded (`claim.settled`)."""
        return claim.settled(self.files)

    @property
    def resolved(self) -> tuple[tuple[Entry, ...], tuple[Diagnostic, ...]]:
        """Return (entries, diagnostics of ids that repeat and pages left out of a skill).
        A stem id that collides is qualified by its path; an author's id that repeats is
        kept by the first entry by path order; a skill-rules.json rule is not a duplicate
        of the skill it names: its triggers join that skill's entry (`claim.ids`)."""
        return self.settled.entries, self.settled.problems

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Return the entries in path order, ids unique."""
        return self.settled.entries

    @property
    def pages(self) -> int:
        """Return how many Markdown pages are read as body sections of their skill's entry."""
        return len(self.settled.owners)

    @cached_property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Return every diagnostic: walk problems, then per file in path order, then ids."""
        out = list(self.walk)
        for path in sorted(self.files):
            out.extend(self.files[path].diagnostics)
        out.extend(self.resolved[1])
        return tuple(out)

    @cached_property
    def errors(self) -> tuple[Diagnostic, ...]:
        """Return the error diagnostics."""
        return tuple(d for d in self.diagnostics if d.severity == ERROR)

    @cached_property
    def stale(self) -> tuple[str, ...]:
        """Return the ids of entries served from a broken file's last good version."""
        return tuple(e.id for path in sorted(self.stale_files) for e in self.files[path].entries)


def load(config: Config) -> Catalog:
    """Return the catalog under the config's roots. Never raises for a bad file."""
    present, problems = walk.walked(config)
    return assemble({relpath: read(config, relpath) for relpath in present}, problems)


def refresh(
    config: Config,
    previous: Catalog,
    changed: Iterable[str],
    problems: tuple[Diagnostic, ...] | None = None,
) -> Catalog:
    """Return `previous` with the files in `changed` (repository-relative) re-read.

    A file that is gone or no longer in the catalog drops its entries; a file that turned
    broken keeps its previous entries, marked stale, beside its new diagnostic. Costs what
    the changed files cost, not what the catalog holds. `problems` are the walk's when the
    caller walked the roots again (`changed_since`): they replace the previous ones."""
    files = dict(previous.files)
    mix = previous.mix
    stale = set(previous.stale_files)
    touched = {pattern.clean(p) for p in changed}
    for relpath in touched:
        old = files.pop(relpath, None)
        stale.discard(relpath)
        if old is not None:
            mix ^= old.digest
        absolute = config.root / relpath
        # Gone, or a directory now: no entries. Anything else (a FIFO, a symlink loop) is
        # read, so that it gets the diagnostic a fresh load would give it.
        if (
            not os.path.lexists(absolute)
            or absolute.is_dir()
            or not walk.is_catalog_path(config, relpath)
            or walk.escapes(config, relpath)
        ):
            continue
        fresh = read(config, relpath)
        if fresh.broken and old is not None and old.entries:
            fresh = FileResult(
                old.entries, fresh.diagnostics, stale=True, digest=old.digest, stamp=fresh.stamp
            )
            stale.add(relpath)
        files[relpath] = fresh
        mix ^= fresh.digest
    if problems is None:
        # Walk diagnostics (escaping symlinks) stay only while their path is still a symlink.
        problems = tuple(
            d for d in previous.walk if d.path == "." or (config.root / d.path).is_symlink()
        )
    out = Catalog(files, problems, mix, frozenset(stale))
    # Settled here, where the daemon reads the files outside its lock, so that the swap
    # under the lock does not pay for it; from the previous settlement, so that an edit
    # costs the keys it touches, not the catalog.
    out.__dict__["settled"] = claim.resettled(previous.settled, previous.files, files, touched)
    return out


# A file modified this close before the reads began may have been modified again in the same
# timestamp tick after its read, its stamp unchanged: it is read again. A modification time
# with a fraction of a second comes from a file system keeping fine timestamps (the kernel's
# coarse clock: a few ms); one in whole seconds may come from one keeping seconds or FAT's 2 s.
FINE_RACY_NS = 100_000_000
COARSE_RACY_NS = 2_000_000_000
_SECOND_NS = 1_000_000_000


def racy(mtime_ns: int, reads_began_ns: int) -> bool:
    """Return whether a file modified at `mtime_ns` may have changed since reads that began
    at `reads_began_ns` without its stamp showing it (see FINE_RACY_NS)."""
    window = COARSE_RACY_NS if mtime_ns % _SECOND_NS == 0 else FINE_RACY_NS
    return mtime_ns >= reads_began_ns - window


def changed_since(
    config: Config,
    previous: Catalog,
    reads_began_ns: int | None,
    walked: tuple[list[str], dict[str, tuple[int, int]], tuple[Diagnostic, ...]] | None = None,
) -> tuple[list[str], tuple[Diagnostic, ...]]:
    """Return the repository-relative catalog files that differ from what `previous` read
    (new ones, gone ones, and those whose stamp is not the one read), sorted, and the walk's
    problems as `walked` gives them.

    A file modified too close before the reads that made `previous` began (`racy`: they
    began at `reads_began_ns`) counts as changed even with its stamp unchanged: an edit in
    the same timestamp tick as the read leaves the stamp as it was. With `reads_began_ns`
    None only stamps count: the caller knows every read since was followed by the watcher,
    which reports such an edit. Costs a walk and a stat per file, not a read; `walked` is
    that walk's (files, stamps, problems) when the caller has made it."""
    changed: set[str] = set()
    if walked is None:
        stamps: dict[str, tuple[int, int]] = {}
        present, problems = walk.walked(config, stamps)
    else:
        present, stamps, problems = walked
    for relpath in present:
        known = previous.files.get(relpath)
        stamp = stamps.get(relpath)
        if (
            known is None
            or stamp is None
            or known.stamp != stamp
            or (reads_began_ns is not None and racy(stamp[1], reads_began_ns))
        ):
            changed.add(relpath)
    changed.update(set(previous.files) - set(present))
    return sorted(changed), problems


def assemble(files: Mapping[str, FileResult], problems: Iterable[Diagnostic] = ()) -> Catalog:
    """Return the catalog of per-file results."""
    mix = 0
    for one in files.values():
        mix ^= one.digest
    stale = frozenset(path for path, one in files.items() if one.stale)
    return Catalog(dict(files), tuple(problems), mix, stale)


class NotRegularFileError(OSError):
    """A path that is a FIFO, socket, device or directory: reading it could block forever."""


class FileTooLargeError(OSError):
    """A regular file over the size limit; `size` is what it holds (at least limit + 1)."""

    def __init__(self, size: int) -> None:
        super().__init__(errno.EFBIG, f"file is {size} bytes")
        self.size = size


def read_regular(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """Return the bytes of the regular file at `path` (symlinks followed): see `read_stamped`."""
    return read_stamped(path, limit)[0]


def read_stamped(path: Path, limit: int = MAX_FILE_BYTES) -> tuple[bytes, tuple[int, int]]:
    """Return the bytes of the regular file at `path` (symlinks followed) and its stamp
    (`stamp_of` the descriptor read, taken before reading).

    The file is opened with O_NONBLOCK, so a FIFO without a writer cannot block the open,
    and the descriptor itself is checked, so what is read is what was checked. Raises
    NotRegularFileError for anything but a regular file, FileTooLargeError when it holds more than
    `limit` bytes (also when it grew past it while being read), OSError when it cannot be
    opened or read (a symlink loop among them)."""
    flags = (
        os.O_RDONLY
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_CLOEXEC", 0)
        | getattr(os, "O_NOCTTY", 0)
    )
    try:
        fd = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a socket, or a device without its driver
            raise NotRegularFileError(errno.ENXIO, "not a regular file") from error
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError(errno.EINVAL, "not a regular file")
        if info.st_size > limit:
            raise FileTooLargeError(info.st_size)
        chunks: list[bytes] = []
        held = 0
        while held <= limit:
            chunk = os.read(fd, min(_READ_CHUNK, limit + 1 - held))
            if not chunk:
                break
            chunks.append(chunk)
            held += len(chunk)
        if held > limit:
            raise FileTooLargeError(held)
        return b"".join(chunks), walk.stamp_of(info)
    finally:
        os.close(fd)


def read(config: Config, relpath: str) -> FileResult:
    """Return the entries and diagnostics of one catalog file, its entries cut to the
    limits of `limit.capped` (with a warning naming what was cut). Never raises: a file
    that cannot be read, is not a regular file, is too large, or nests deeper than the
    readers can follow is a diagnostic."""
    try:
        raw, stamp = read_stamped(config.root / relpath)
    except NotRegularFileError:
        return diagnostic.only(relpath, "not a regular file: skipped", WARNING)
    except FileTooLargeError as error:
        return diagnostic.only(
            relpath, f"file is {error.size} bytes, over the 1 MiB limit; skipped", WARNING
        )
    except OSError as error:
        return diagnostic.only(relpath, f"cannot read the file: {error.strerror or error}")
    try:
        return replace(_within_limits(relpath, _parse(config, relpath, raw)), stamp=stamp)
    except RecursionError:  # the last guard: every reader should refuse deep nesting itself
        return diagnostic.only(relpath, "nested too deeply to read; skipped")


def _parse(config: Config, relpath: str, raw: bytes) -> FileResult:
    """Return what the bytes of one catalog file give, by its format."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        return diagnostic.only(
            relpath, f"not UTF-8 (byte 0x{raw[error.start]:02x}); save it as UTF-8", line=line
        )
    fmt = walk.format_of(relpath)
    if fmt == "json":
        return _read_json(config, relpath, raw.removeprefix(b"\xef\xbb\xbf"))
    assert fmt is not None
    return document.read(config, relpath, text, fmt)


def _within_limits(relpath: str, outcome: FileResult) -> FileResult:
    """Return `outcome` with each entry cut to `limit.capped`'s limits and its governs
    targets that are no usable glob dropped (`_usable_globs`), with one warning per entry
    that lost something. Returns `outcome` itself when nothing was cut."""
    entries: list[Entry] = []
    notes: list[Diagnostic] = []
    for item in outcome.entries:
        kept, cuts = limit.capped(item)
        kept, bad = _usable_globs(kept)
        if bad:
            target, why = bad[0]
            cuts += (
                f"governs: {len(bad)} targets that are no usable glob dropped, "
                f"such as {_shown(target)!r} ({why})",
            )
        entries.append(kept)
        if cuts:
            notes.append(
                Diagnostic(
                    relpath,
                    f"entry `{_shown(kept.id)}` cut to the catalog limits: {'; '.join(cuts)}",
                    WARNING,
                )
            )
    if not notes:
        return outcome
    return result(relpath, entries, (*outcome.diagnostics, *notes))


def _usable_globs(item: Entry) -> tuple[Entry, tuple[tuple[str, str], ...]]:
    """Return the entry without the governs targets that cannot serve as globs, and (target,
    reason) for each one dropped: those `pattern` cannot compile (`[z-a]`, which would fail
    every later route) and those with more than MAX_GLOB_STARS runs of `*`."""
    bad: list[tuple[str, str]] = []
    for target in item.governs:
        glob = target.removeprefix(entry.EXCLUDED)
        stars = len(_STAR_RUN.findall(glob))
        if stars > MAX_GLOB_STARS:
            bad.append((target, f"{stars} runs of `*`, over {MAX_GLOB_STARS}"))
            continue
        try:
            pattern.compile(glob)
        except re.error as error:
            bad.append((target, str(error)))
    if not bad:
        return item, ()
    dropped = {target for target, _ in bad}
    return replace(item, governs=tuple(t for t in item.governs if t not in dropped)), tuple(bad)


def _shown(text: str, width: int = 80) -> str:
    """Return `text` as a diagnostic quotes it: at most `width` characters."""
    return text if len(text) <= width else text[: width - 3] + "..."


def _read_json(config: Config, relpath: str, raw: bytes) -> FileResult:
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        return diagnostic.only(relpath, f"not valid JSON: {error.msg}", line=error.lineno)
    if trigger.is_rules_file(relpath):
        rules, problems = trigger.parse(document)
        notes = [Diagnostic(relpath, f"{p.where}: {p.problem}", p.severity) for p in problems]
        return result(relpath, (entry.from_rule(r, relpath) for r in rules), notes)
    if not isinstance(document, dict) or "annexes" not in document:
        return FileResult()  # not a catalog file
    rows = document["annexes"]
    if not isinstance(rows, list):
        return diagnostic.only(relpath, "`annexes` must be a list of annex objects")
    entries: list[Entry] = []
    diagnostics: list[Diagnostic] = []
    for place, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            diagnostics.append(Diagnostic(relpath, f"annexes[{place}] is not an object"))
            continue
        try:
            item = schema.from_annex(row, relpath, place)
        except schema.FieldError as error:
            diagnostics.append(Diagnostic(relpath, f"annexes[{place}]: {error}; row skipped"))
            continue
        entries.append(item)
    return result(relpath, entries, diagnostics)
