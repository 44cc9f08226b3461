"""The daemon's catalog changes: the file watcher's bursts, a reload and the idle census
brought into the index, each made into a new engine beside the one serving and swapped in
whole under the request lock (`Engine.updated`, sharing what did not change).

`Updating` is the part of `daemon.Daemon` that writes the engine; the rest of the daemon
(requests, status, exiting) only reads it. One change is made at a time, under `writing`.
"""

from __future__ import annotations

import datetime
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from router.base.errors import KrouteError
from router.catalog import config, diagnostic, reader, walk
from router.catalog.config import Config
from router.runtime.engine import Engine
from router.serve import vectors

# An idle daemon walks its roots this often to find changes whose events were lost (see
# `Updating.census`), and never more often than this many times its last walk took, so that
# a large catalog's walks stay a small share of a core.
CENSUS_IDLE_SECONDS = 30.0
CENSUS_COST_FACTOR = 100.0
CENSUS_NAMED = 5  # files a census names in the daemon's log


class Updating:
    """The daemon's changes to its catalog: what the watcher reports, a reload, a census."""

    # the daemon's, read and swapped here
    config: Config
    engine: Engine
    version: str
    load: Callable[[Config, str], Engine]
    lock: threading.Lock  # requests, and the swap of a new engine
    settled: threading.Event
    vectors: vectors.Worker

    def _start_updates(self, started: float) -> None:
        """Set the state of the changes made so far: none, at `started` (monotonic)."""
        # One change at a time (the watcher's bursts, a reload): a change is made from the
        # engine serving, which only its maker swaps out.
        self.writing = threading.Lock()
        self.pending = threading.Event()  # the watcher holds a burst of changes not yet applied
        self.rearm = threading.Event()  # asks the watcher to set its watches afresh
        self.updates = 0
        self.config_error: str | None = None  # why the config file on disk is not in force
        # when the reads behind the engine's last full load began (files modified since may
        # have changed in the tick they were read: see `_catch_up`)
        self.reads_began_ns = time.time_ns()
        # the last walk of the roots that checked the index against the disk (`census`)
        self.census_at = started
        self.census_seconds = 0.0
        self.unreported = 0  # catalog files a census found changed that no event had named

    def apply(self, changed: set[Path], resync: bool = False) -> None:
        """Bring the index in line with a burst of changes: the changed paths (absolute), and
        with `resync` whatever changed while no watch was set (the watches were set afresh:
        every file is stat'ed, see `_catch_up`). A changed config reloads everything (an
        invalid one is kept as `config_error`, the last good one stays in force); otherwise
        the changed catalog files are read into a new engine made beside the one serving,
        swapped in whole once made. Never raises."""
        try:
            with self.writing:
                if resync or (self.config.file is not None and self.config.file in changed):
                    fresh = self._read_config()
                    if fresh != self.config:
                        self._replace(fresh)
                        return
                rels = self._changed_files(changed)
                problems = None
                if resync:
                    found, problems = self._catch_up()
                    rels.update(found)
                if rels or (problems is not None and problems != self.engine.catalog.walk):
                    self._update(sorted(rels), problems)
                if not resync:  # a resync has just walked the roots
                    self._census()
        except Exception:
            traceback.print_exc(file=sys.stderr)
        finally:
            self.pending.clear()

    def census(self) -> None:
        """Walk the roots and read again every catalog file whose stamp is not the one the
        engine read, new and gone ones included (see `_census`). Never raises."""
        try:
            with self.writing:
                self._census()
        except Exception:
            traceback.print_exc(file=sys.stderr)

    def census_due(self) -> bool:
        """Return whether an idle census is due: CENSUS_IDLE_SECONDS since the last one,
        stretched for a catalog whose walk costs more (CENSUS_COST_FACTOR times its walk)."""
        if not self.settled.is_set():
            return False
        wait = max(CENSUS_IDLE_SECONDS, CENSUS_COST_FACTOR * self.census_seconds)
        return time.monotonic() - self.census_at >= wait

    def _census(self) -> None:
        """Bring the index in line with what a walk of the roots finds, whatever the watcher
        reported: the events of a change can be lost (files written into a new folder before
        its watch is set, a full event queue), and after any change the index must equal a
        cold load. Costs a walk and a stat per file; only files whose stamp differs are read.
        The caller holds `writing`."""
        began = time.monotonic()
        engine = self.engine
        found, problems = reader.changed_since(engine.config, engine.catalog, None)
        if found or problems != engine.catalog.walk:
            self._update(found, problems)
            if found:
                self.unreported += len(found)
                named = found[:CENSUS_NAMED] + (["..."] if len(found) > CENSUS_NAMED else [])
                print(
                    f"{timestamp()} census: {len(found)} catalog files differ from the index"
                    f" (events late or lost): {', '.join(named)}",
                    file=sys.stderr,
                    flush=True,
                )
                # A folder made while its parent's watch was being set is never watched (the
                # recursive watch's race): set the watches afresh, so that the next change
                # under it is seen without waiting for a census.
                self.rearm.set()
        self.census_at = time.monotonic()
        self.census_seconds = self.census_at - began

    def resync(self) -> None:
        """Bring the index in line with everything on disk after the watches were set
        afresh (see `apply`). Never raises."""
        self.apply(set(), resync=True)

    def _changed_files(self, changed: set[Path]) -> set[str]:
        """Return the catalog files (repository-relative) the changed paths name: the files
        themselves, those under a directory moved in, and those the index holds under a
        directory moved out or removed."""
        root = self.config.root
        rels: set[str] = set()
        for path in changed:
            try:
                rel = path.relative_to(root).as_posix()
            except ValueError:
                continue
            if walk.format_of(rel) is not None:
                rels.add(rel)
            if path.is_dir():  # a directory moved in: the watcher names only the directory
                rels.update(
                    f.relative_to(root).as_posix()
                    for f in path.rglob("*")
                    if walk.format_of(f.name) is not None
                )
            elif not path.is_file():  # a directory moved out or removed, files and all
                rels.update(f for f in self.engine.catalog.files if f.startswith(rel + "/"))
        return rels

    def _update(
        self, rels: list[str], problems: tuple[diagnostic.Diagnostic, ...] | None = None
    ) -> None:
        """Make the engine with the changed catalog files (repository-relative) read again,
        outside the request lock, and swap it in under it; `problems` are a fresh walk's,
        if the caller walked the roots (see `reader.refresh`). The caller holds `writing`."""
        engine = self.engine
        fresh = reader.refresh(engine.config, engine.catalog, rels, problems)
        self._swap(engine.updated(rels, fresh))

    def _replace(self, fresh: Config) -> None:
        """Load the whole catalog under the config `fresh` outside the request lock and swap
        it in with the config. The caller holds `writing`."""
        began_ns = time.time_ns()
        engine = self.load(fresh, self.version)
        self._swap(engine, fresh, began_ns)

    def _swap(
        self, engine: Engine, fresh: Config | None = None, began_ns: int | None = None
    ) -> None:
        """Put a new engine in, under the request lock: the route running now ends on the
        engine it began with, the next one begins on this one."""
        with self.lock:
            self.engine = engine
            if fresh is not None:
                self.config = fresh
            if began_ns is not None:
                self.reads_began_ns = began_ns
            self.updates += 1
        self.vectors.want()

    def _catch_up(self) -> tuple[list[str], tuple[diagnostic.Diagnostic, ...]]:
        """Return the catalog files that differ on disk from what the engine read, after
        events may have been missed (the watches were set afresh), and the walk's problems:
        every file is stat'ed and only those whose stamp differs from the one read count, as
        a restart from a snapshot does. Costs a walk, not a cold load."""
        engine = self.engine
        return reader.changed_since(engine.config, engine.catalog, self.reads_began_ns)

    def _read_config(self) -> Config:
        """Return the configuration the config file now holds, or the one in force when it
        cannot be read or is invalid; `config_error` says which (None when the file is in
        force), and a new error is logged."""
        if self.config.file is None:
            return self.config
        try:
            fresh = config.load(self.config.file, self.config.root)
        except KrouteError as error:
            if str(error) != self.config_error:
                print(f"{timestamp()} config not reloaded: {error}", file=sys.stderr, flush=True)
            self.config_error = str(error)
            return self.config
        self.config_error = None
        return fresh

    def watch_targets(self) -> list[Path]:
        """Return what the watcher should watch: each root and the config file, missing or
        not (`watch.follow` watches those that exist and sets the watches afresh when one
        appears, goes or is replaced)."""
        targets: list[Path] = []
        for root in self.config.roots:
            path = (self.config.root / root).resolve()
            if path not in targets:
                targets.append(path)
        if self.config.file is not None:
            targets.append(self.config.file)
        return targets


def timestamp() -> str:
    """Return the daemon log's time of now: ISO 8601 in UTC, to the second."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
