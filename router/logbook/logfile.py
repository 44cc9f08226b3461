"""Writing the shadow log's day files (DESIGN 12): one whole line per append, under a lock,
in private files, and no more than a day's cap.

Services layer like `router.logbook.shadow` (which builds the records, names the files and
reads them back): it writes files but never reads the clock or the environment, and never
prints. Lines past a day's cap are dropped and counted beside the log (`<day>.dropped`).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from router.base.errors import ShadowError
from router.client import trust

# One day's log stops growing at this size (about 20,000 routes with their texts): a runaway
# client cannot fill the disk. Lines past it are dropped, counted beside the log
# (`<day>.dropped`), and reported by `kroute shadow stats`.
MAX_DAY_BYTES = 64 * 1024 * 1024
DROPPED_SUFFIX = ".dropped"


def append(
    path: Path, record: Mapping[str, Any], limit: int = MAX_DAY_BYTES, *, state: Path | None = None
) -> bool:
    """Append `record` to `path` as one line (sorted keys): a single write on an O_APPEND
    descriptor held under an exclusive flock, so concurrent writers never interleave.
    The file lies under the state dir `state` (default: in `<state>/shadow/<repo>/`, as
    `shadow.log_path` names it): the directories from there down are made 0700 where missing
    and checked to be the user's alone (`trust.prepare`), and the file is opened without
    following a symlink, created 0600. Returns False when the file already
    holds `limit` bytes: the line is dropped and counted (`dropped`) instead.

    Raises ShadowError when the record cannot be serialized or the log cannot be written,
    StateError when a directory or the file is not the user's alone."""
    try:
        line = orjson.dumps(record, option=orjson.OPT_SORT_KEYS) + b"\n"
    except orjson.JSONEncodeError as exc:
        raise ShadowError(f"a shadow record cannot be written as JSON: {exc}", "") from exc
    try:
        trust.prepare(path.parent, state=state or path.parents[2])
        fd = trust.open_private(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
    except OSError as exc:
        raise _unwritable(path, exc) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        # A writer killed mid-line left no newline: start afresh so only its line is lost
        # (read-write open only for this one-byte look back).
        size = os.fstat(fd).st_size
        if size + len(line) > limit:
            _count_dropped(path)
            return False
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        done = os.write(fd, line)
        while done < len(line):  # a short write (full disk, signal): finish under the lock
            done += os.write(fd, line[done:])
    except OSError as exc:
        raise _unwritable(path, exc) from exc
    finally:
        os.close(fd)  # closing releases the lock
    return True


def _count_dropped(path: Path) -> None:
    """Add one to the count of lines dropped from a full day's log (called under its lock)."""
    # Read and rewritten in place, never truncated: a count only grows, so its digits never
    # get fewer, and truncating a file costs the file system milliseconds (every route a
    # daemon answers once its day's log is full comes here).
    fd = trust.open_private(path.with_suffix(DROPPED_SUFFIX), os.O_RDWR | os.O_CREAT)
    try:
        try:
            count = int(os.pread(fd, 32, 0).decode("ascii").strip() or 0)
        except ValueError:
            count = 0
        written = str(count + 1).encode("ascii")
        os.pwrite(fd, written, 0)
        if os.fstat(fd).st_size > len(written):  # a longer count than it held: none written
            os.ftruncate(fd, len(written))
    finally:
        os.close(fd)


def dropped(directory: Path) -> dict[str, int]:
    """Return, per day, how many lines were dropped because that day's log was full."""
    out = {}
    for counter in sorted(directory.glob(f"*{DROPPED_SUFFIX}")):
        try:
            out[counter.stem] = int(counter.read_text(encoding="ascii") or 0)
        except (OSError, ValueError):
            continue
    return out


def _unwritable(path: Path, exc: OSError) -> ShadowError:
    return ShadowError(
        f"cannot append to the shadow log {path}: {exc.strerror or exc}",
        'Check that KROUTE_HOME is writable, or set shadow.mode = "off"',
    )
