"""The daemon's neighbours by meaning (the `meaning` extra): a meaning process (`link`,
`runtime.sidecar`) loads the model and embeds the catalog's passages and each route's task,
so that the daemon never imports the model's runtime (importing onnxruntime alone holds the
interpreter lock for seconds, and status must answer at any time).

The process is started once the catalog is loaded, when the meaning mode is not off (and
only then), and is sent the catalog again after each change; the daemon keeps the vectors
it answers with and asks it for each route's task vector. Until those are in, and whenever
the process is busy past a route's wait, starting or gone, routes are the words' alone. A
process that dies is started again, waiting longer after each failure in a row; the failure
is logged once and shown in status. Vectors are cached per entry text in the state dir, so
after a restart or an edit only new or changed entries are embedded.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from router.catalog.config import Config
from router.meaning import passage
from router.meaning.space import Space
from router.runtime import nearby, sidecar
from router.runtime.engine import Engine
from router.serve.link import Link

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# After a change, wait this long for the next before embedding: a checkout changes many files.
SETTLE_SECONDS = 0.5
# How often the worker looks at its process and the engine when nothing asks it to.
TICK_SECONDS = 0.2
# After a failure, the process is started again this long after, doubled after each failure
# in a row up to the most: a model that cannot load costs a start a minute, not a busy loop.
BACKOFF_FIRST_SECONDS = 1.0
BACKOFF_MOST_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Sent:
    """A catalog sent to the process: for which engine and link, its ids and when."""

    seq: int
    engine: Engine
    link: Link
    ids: tuple[str, ...]
    near: dict[str, str]
    at: float


class Worker:
    """Keeps the serving engine's `nearby` in step with its catalog, through a meaning
    process it starts, watches and ends, on a thread of its own (`run`)."""

    def __init__(
        self,
        cache: Path,
        catalog: str,
        current: Callable[[], tuple[Config, Engine]],
        lock: threading.Lock,
        command: Sequence[str] | None = None,
    ) -> None:
        """`command` runs the meaning process (tests give their own; default
        `sidecar.command()`)."""
        self.cache = cache
        self.catalog = catalog  # the key naming this daemon's catalog in the cache
        self.current = current  # the config in force and the engine serving now
        self.lock = lock  # the request lock: `nearby` is swapped in under it
        self.command = list(command) if command is not None else sidecar.command()
        self.wanted = threading.Event()
        self.link: Link | None = None
        self.model: str | None = None  # the model the link runs
        self.asked = False  # a catalog was asked for: a new process is sent it
        self.dirty = False  # the catalog changed since it was last sent
        self.changed_at = 0.0
        self.sent: Sent | None = None
        self.seq = 0
        self.failures = 0  # in a row: the next start waits BACKOFF_FIRST_SECONDS * 2**(n-1)
        self.start_after = 0.0
        self.restarts = 0
        self.logged: str | None = None  # the failure last logged (each is logged once)
        self.error: str | None = None  # why meaning is not served now
        self.last_failure: str | None = None
        self.made: dict[str, Any] = {"entries": 0, "seconds": None, "embedded": None}
        self.guard = threading.Lock()  # `sent` and `made`, between the worker and the reader

    def want(self) -> None:
        """Ask for the vectors of the engine serving now (after a load, a swap, a change)."""
        self.wanted.set()

    def status(self) -> dict[str, Any]:
        """Return the `meaning` block of status (but its mode): whether routes fuse now, the
        vectors last made, and the process (its pid, phase, restarts, last failure)."""
        link = self.link
        alive = link is not None and not link.gone.is_set()
        phase = "stopped"
        if alive and link is not None:
            phase = "ready" if link.ready.is_set() else "loading the model"
        elif self.failures:
            phase = "waiting to start again"
        ready = alive and link is not None and link.ready.is_set()
        return {
            "ready": bool(ready and self.current()[1].nearby is not None),
            **self.made,
            "error": self.error,
            "process": {
                "pid": link.pid if alive and link is not None else None,
                "phase": phase,
                "restarts": self.restarts,
                "last_failure": self.last_failure,
            },
        }

    def run(self, stop: threading.Event) -> None:
        """Serve `want` until `stop` is set, then end the process. Never raises."""
        try:
            while not stop.is_set():
                try:
                    self._step()
                except Exception:  # a bug: logged, and the daemon serves words meanwhile
                    traceback.print_exc(file=sys.stderr)
                self.wanted.wait(TICK_SECONDS)
        finally:
            self.close()

    def close(self) -> None:
        """End the meaning process, if one runs."""
        link, self.link = self.link, None
        if link is not None:
            link.close()

    def _step(self) -> None:
        if self.wanted.is_set():
            self.wanted.clear()
            self.asked = self.dirty = True
            self.changed_at = time.monotonic()
        cfg, engine = self.current()
        if cfg.meaning_mode == "off":
            self.close()
            self.error = None
            if engine.nearby is not None:
                with self.lock:
                    engine.nearby = None
            return
        link = self.link
        if link is not None and link.gone.is_set():
            self._failed(link)
            link = self.link = None
        elif link is not None and self.model != cfg.meaning_model:  # a new model configured
            self.close()
            link = None
            with self.lock:
                engine.nearby = None  # the old model's vectors: the new process sends new ones
        if link is None:
            link = self._start(cfg)
        if link is None or not link.ready.is_set():
            return
        if self.dirty and time.monotonic() - self.changed_at >= SETTLE_SECONDS:
            self._send(link, engine)

    def _start(self, cfg: Config) -> Link | None:
        """Start the process, unless no catalog was asked for yet or the backoff is not
        over. Returns it, or None."""
        if not self.asked or time.monotonic() < self.start_after:
            return None
        hello = {
            "op": "hello",
            "cache": str(self.cache),
            "catalog": self.catalog,
            "model": cfg.meaning_model,
        }
        try:
            self.link = Link(hello, self.command, self._arrived)
        except OSError as error:
            self._note(f"the meaning process cannot be started: {error}")
            return None
        if self.failures:
            self.restarts += 1
        self.model = cfg.meaning_model
        self.dirty = True  # a new process is sent the catalog once its model is loaded
        return self.link

    def _failed(self, link: Link) -> None:
        """Note why the process ended; it is started again after the backoff."""
        self._note(link.failure or "the meaning process ended")
        with self.lock:
            engine = self.current()[1]
            if engine.nearby is not None and self.sent is not None and self.sent.link is link:
                engine.nearby = None  # its vectors go with it: the next process sends new ones

    def _note(self, why: str) -> None:
        """Count a failure, keep it for status, log it unless it was the last one logged,
        and put the next start off."""
        self.failures += 1
        self.error = self.last_failure = why
        wait = min(BACKOFF_MOST_SECONDS, BACKOFF_FIRST_SECONDS * 2 ** (self.failures - 1))
        self.start_after = time.monotonic() + wait
        if why != self.logged:
            self.logged = why
            print(f"neighbours by meaning unavailable: {why}", file=sys.stderr, flush=True)

    def _send(self, link: Link, engine: Engine) -> None:
        """Send the catalog of the engine serving now to the process."""
        entries = engine.index.entries()
        texts = [passage.of(item) for item in entries]
        self.seq += 1
        sent = Sent(
            self.seq,
            engine,
            link,
            tuple(item.id for item in entries),
            {item.id: nearby.near_of(item) for item in entries},
            time.monotonic(),
        )
        with self.guard:
            self.sent = sent
        self.dirty = False
        link.send_catalog(sent.seq, texts)

    def _arrived(
        self, link: Link, header: dict[str, Any], matrix: NDArray[np.float32] | None
    ) -> None:
        """Take a catalog's vectors from the process (on its reader's thread): put them in
        the engine they were made for when it still serves, else ask for the new one's."""
        with self.guard:
            sent = self.sent
        if sent is None or sent.link is not link or header.get("seq") != sent.seq:
            return  # an older catalog's, or an older process's
        if matrix is None:
            self.error = f"the catalog could not be embedded: {header.get('error')}"
            return
        found = nearby.over(Space(sent.ids, matrix), sent.near, link.embed)
        with self.lock:
            if self.current()[1] is sent.engine:
                sent.engine.nearby = found
            else:
                self.wanted.set()  # swapped meanwhile: do the new one
                return
        self.failures = 0
        self.error = None
        if header.get("note"):
            print(f"neighbours by meaning: {header['note']}", file=sys.stderr, flush=True)
        with self.guard:
            self.made = {
                "entries": len(sent.ids),
                "seconds": round(time.monotonic() - sent.at, 3),
                "embedded": header.get("embedded"),
            }
