"""The shadow log's writer for one repository (DESIGN 12): one line per route emitted.

The clock and the environment come in from the edges (`Recorder.now`, `for_engine`'s env).
"""

from __future__ import annotations

import contextlib
import datetime
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from router.base.errors import KrouteError
from router.client import locate
from router.harnesses.opening import Opened
from router.logbook import logfile, opened, shadow
from router.runtime.engine import Engine


def utc_now() -> datetime.datetime:
    """Return the current UTC time (the edges pass this in as the clock)."""
    return datetime.datetime.now(datetime.UTC)


class Losses:
    """How many shadow lines could not be written (a full or read-only disk) or were dropped
    because the day's log was full, and the last failure: a daemon reports them in its status
    instead of failing the routes."""

    def __init__(self) -> None:
        self.unwritten = 0
        self.dropped = 0
        self.last: str | None = None


@dataclass(frozen=True, slots=True)
class Recorder:
    """Where and how routes are logged for one repository (DESIGN 12)."""

    state: Path
    repo_id: str
    now: Callable[[], datetime.datetime] = utc_now
    # Given, the line is handed to it instead of written: the daemon appends it once the
    # route is answered, outside the route's lock, and before the answer is sent.
    defer: Callable[[Callable[[], None]], None] | None = None
    losses: Losses = field(default_factory=Losses)

    def write(self, emitted: shadow.Emitted, *, redact: bool = False) -> None:
        """Append the line of a route emitted (or hand it to `defer`), its task and text as
        digests when `redact` (`[shadow] redact`); nothing in mode `off`. A log that cannot
        be written is reported on stderr, never raised, so logging can never break a route
        or a hook."""
        if emitted.mode == "off":
            return
        at = self.now()

        def append() -> bool:
            record = shadow.record(emitted, stamp(at))
            if redact:
                record = shadow.redacted(record)
            day = at.date().isoformat()
            return logfile.append(shadow.log_path(self.state, self.repo_id, day), record)

        self._run(append)

    def write_reads(
        self,
        engine: Engine,
        offers: opened.Offers,
        seen: Opened,
        session: str | None,
        *,
        source: str,
        mode: str | None = None,
    ) -> None:
        """Append a line for each file `seen` that is a catalog document (`opened.document_of`),
        joined to the first route of `session` that offered it (`offers`, which reads back
        from this log a session it does not hold): once per session before any offer of it,
        once after one. Raises OSError when a file's path cannot be resolved."""
        for path in seen.paths:
            found = opened.document_of(engine.index, engine.config.root, path, seen.cwd)
            if found is None:
                continue
            offer = None
            if session is not None:
                offer = offers.find(session, found.entry.id, lambda: self.session_routes(session))
                if not offers.first_read(session, found.entry.id, offer is not None):
                    continue
            self.write_opened(
                engine, source=source, session=session, tool=seen.tool, found=found,
                offer=offer, mode=mode,
            )  # fmt: skip

    def write_opened(
        self,
        engine: Engine,
        *,
        source: str,
        session: str | None,
        tool: str,
        found: opened.Found,
        offer: opened.Offer | None,
        mode: str | None = None,
    ) -> None:
        """Append the line of a catalog document an agent opened (or hand it to `defer`),
        in the reads beside the route log; as `write`, a failure is counted and reported on
        stderr, never raised."""
        mode = strictest(engine.config.shadow_mode, mode)
        if mode == "off":
            return
        at = self.now()

        def append() -> bool:
            record = opened.record(
                at=stamp(at),
                engine_version=engine.version,
                catalog_fingerprint=engine.catalog.fingerprint,
                source=source,
                session=session,
                tool=tool,
                found=found,
                offer=offer,
            )
            path = opened.log_path(self.state, self.repo_id, at.date().isoformat())
            return logfile.append(path, record, state=self.state)

        self._run(append)

    def _run(self, append: Callable[[], bool]) -> None:
        """Run `append` (which builds and appends a line, and returns False when the day's
        log was full), or hand it to `defer` so that the line is built and written once the
        route is answered. A line dropped or not written is counted in `losses`, a failure
        reported on stderr, never raised."""

        def job() -> None:
            try:
                if not append():
                    self.losses.dropped += 1
            except (KrouteError, OSError) as error:
                self.losses.unwritten += 1
                self.losses.last = str(error)
                warn(f"shadow log not written: {error}")

        if self.defer is not None:
            self.defer(job)
        else:
            job()

    def session_routes(self, session: str) -> list[shadow.Record]:
        """Return the routes of a session logged on the last opened.PRIME_DAYS days, in
        order (none when they cannot be read)."""
        today = self.now().date()
        days = [(today - datetime.timedelta(days=n)).isoformat() for n in range(opened.PRIME_DAYS)]
        directory = shadow.log_dir(self.state, self.repo_id)
        try:
            return list(opened.session_routes(directory, session, days))
        except (KrouteError, OSError):
            return []


def stamp(at: datetime.datetime) -> str:
    """Return how the shadow log writes a time: ISO 8601 in UTC, to the millisecond."""
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def warn(message: str) -> None:
    """Print one line on stderr, unless stderr itself cannot be written (its disk is full
    too): a warning must never fail what it warns about."""
    with contextlib.suppress(OSError, ValueError):
        print(message, file=sys.stderr, flush=True)


def for_engine(engine: Engine, env: Mapping[str, str]) -> Recorder:
    """Return the recorder of an engine's repository, in the state dir the env names."""
    cfg = engine.config
    return Recorder(locate.state_dir(env), locate.key(cfg.root, cfg.file))


MODES = ("live", "shadow", "off")  # each later one does less


def strictest(*modes: str | None) -> str:
    """Return the mode that does least: a hook installed with --shadow stays in shadow mode
    even where the repository's config says live."""
    known = [m for m in modes if m in MODES]
    return max(known, key=MODES.index) if known else "live"
