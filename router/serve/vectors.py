"""The daemon's neighbours by meaning (the `meaning` extra): entry vectors made in the
background once the catalog is loaded, and again after it changes, so routes stay lexical
(and quick) until they are ready and never wait for them.

Vectors are cached per entry text in the state dir, so after a restart or an edit only new
or changed entries are embedded.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from router.base.errors import KrouteError
from router.core.config import Config
from router.runtime import nearby
from router.runtime.engine import Engine

# After a change, wait this long for the next before embedding: a checkout changes many files.
SETTLE_SECONDS = 0.5


class Worker:
    """Keeps the serving engine's `nearby` in step with its catalog, on a thread of its own."""

    def __init__(
        self,
        cache: Path,
        catalog: str,
        current: Callable[[], tuple[Config, Engine]],
        lock: threading.Lock,
    ) -> None:
        self.cache = cache
        self.catalog = catalog  # the key naming this daemon's catalog in the cache
        self.current = current  # the config in force and the engine serving now
        self.lock = lock  # the request lock: `nearby` is swapped in under it
        self.wanted = threading.Event()
        self.models: dict[str | None, Any] = {}  # loaded once, kept between builds
        self.state: dict[str, Any] = {"ready": False, "entries": 0, "seconds": None, "error": None}

    def want(self) -> None:
        """Ask for the vectors of the engine serving now (after a load, a swap, a change)."""
        self.wanted.set()

    def run(self, stop: threading.Event) -> None:
        """Serve `want` until `stop` is set. Never raises: a failure (the extra missing, a
        model that cannot be read) is logged once and kept in `state`; routes stay lexical."""
        while not stop.is_set():
            if not self.wanted.wait(0.2):
                continue
            while self.wanted.is_set() and not stop.is_set():  # let a burst of changes end
                self.wanted.clear()
                time.sleep(SETTLE_SECONDS)
            self._build()

    def _build(self) -> None:
        cfg, engine = self.current()
        if cfg.meaning_mode == "off":
            with self.lock:
                engine.nearby = None
            self.state = {**self.state, "ready": False}
            return
        began = time.monotonic()
        try:
            found = nearby.build(
                engine.index.entries(),
                cfg.meaning_model,
                self.cache,
                self.catalog,
                models=self.models,
            )
        except KrouteError as error:
            if self.state.get("error") != str(error):
                print(f"neighbours by meaning unavailable: {error}", file=sys.stderr, flush=True)
            self.state = {**self.state, "ready": False, "error": str(error)}
            return
        except Exception:
            traceback.print_exc(file=sys.stderr)
            self.state = {**self.state, "ready": False, "error": "failed; see the log"}
            return
        with self.lock:
            if self.current()[1] is engine:
                engine.nearby = found
            else:
                self.wanted.set()  # swapped meanwhile: do the new one
        self.state = {
            "ready": engine.nearby is not None,
            "entries": len(engine.index),
            "seconds": round(time.monotonic() - began, 3),
            "error": None,
        }
