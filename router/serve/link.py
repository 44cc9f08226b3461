"""The daemon's end of its meaning process (`runtime.sidecar`): the process started, its
requests written by a thread of their own (a route never blocks on a full pipe), its answers
read by another, and each route's wait for its task's vector bounded.

Nothing here imports the model: the daemon gets vectors as numpy arrays, and a process that
dies, hangs or answers garbage costs a route its meaning, never its answer.
"""

from __future__ import annotations

import contextlib
import itertools
import queue
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from router.runtime import frame

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# The longest a route waits for its task's vector; past it the route is answered by words
# alone. Embedding a short task takes a few milliseconds, a long one (cut at 256 tokens)
# tens; this leaves room for a loaded machine and stays well inside a hook's deadline.
TASK_WAIT_SECONDS = 0.3
# How long the process is given to exit once its stdin is closed, before it is killed.
EXIT_WAIT_SECONDS = 2.0

Arrived = Callable[["Link", dict[str, Any], "NDArray[np.float32] | None"], None]


@dataclass(slots=True)
class _Waiter:
    """A route waiting for its task's vector."""

    done: threading.Event = field(default_factory=threading.Event)
    vector: NDArray[np.float32] | None = None


class Link:
    """One meaning process. `ready` is set once its model is loaded (`model_id`, `dims`
    known); `gone` once it has exited, with `failure` saying why when it was not asked to."""

    def __init__(self, hello: dict[str, Any], command: Sequence[str], arrived: Arrived) -> None:
        """Start the process and send it `hello`; `arrived(link, header, matrix)` is called
        (on the reader's thread) with each catalog's vectors (None with an `error`).
        Raises OSError when the process cannot be started."""
        self.arrived = arrived
        self.model_id: str | None = None
        self.dims = 0
        self.failure: str | None = None  # why it ended (None: asked to, or still running)
        self.ready = threading.Event()
        self.gone = threading.Event()
        self._closing = False
        self._outbox: queue.SimpleQueue[tuple[dict[str, Any], bytes] | None] = queue.SimpleQueue()
        self._waiting: dict[int, _Waiter] = {}
        self._guard = threading.Lock()
        self._seq = itertools.count(1)
        self.process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True
        )
        self.pid = self.process.pid
        self._outbox.put((hello, b""))
        threading.Thread(target=self._write, name="meaning-out", daemon=True).start()
        threading.Thread(target=self._read, name="meaning-in", daemon=True).start()

    # -- requests ------------------------------------------------------------------------------

    def embed(self, text: str, wait: float = TASK_WAIT_SECONDS) -> NDArray[np.float32] | None:
        """Return the vector of `text` (a unit float32 row of `dims`), or None when the
        process is not ready, is gone, answers garbage or takes more than `wait` seconds."""
        if not self.ready.is_set() or self.gone.is_set():
            return None
        seq = next(self._seq)
        waiter = _Waiter()
        with self._guard:
            self._waiting[seq] = waiter
        self._outbox.put(({"op": "task", "seq": seq, "text": text}, b""))
        waiter.done.wait(wait)
        with self._guard:
            self._waiting.pop(seq, None)
        return waiter.vector

    def send_catalog(self, seq: int, texts: list[str]) -> None:
        """Ask for the vectors of `texts` (passed to `arrived` with this `seq`)."""
        self._outbox.put(({"op": "catalog", "seq": seq, "texts": texts}, b""))

    def close(self) -> None:
        """End the process: its stdin closed, then killed if it has not exited in
        EXIT_WAIT_SECONDS. Returns once it has exited."""
        self._closing = True
        self._outbox.put(None)
        try:
            self.process.wait(EXIT_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.gone.wait(EXIT_WAIT_SECONDS)

    # -- the pipes -----------------------------------------------------------------------------

    def _write(self) -> None:
        into = self.process.stdin
        assert into is not None
        try:
            while (item := self._outbox.get()) is not None:
                frame.write(into, *item)
        except OSError:
            pass  # it is gone: the reader finds out why
        finally:
            with contextlib.suppress(OSError):
                into.close()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        try:
            while True:
                header, payload = frame.read(out)
                self._take(header, payload)
        except frame.FrameError as error:
            if not self._closing and self.failure is None:
                self.failure = self._why(error)
        except Exception as error:  # a bug here: the process is ended and started again
            traceback.print_exc(file=sys.stderr)
            self.failure = f"its answer could not be read ({error!r})"
        finally:
            self._end()

    def _take(self, header: dict[str, Any], payload: bytes) -> None:
        """Act on one frame from the process. Raises FrameError for one that makes no
        sense (the process is then ended: see `_read`)."""
        op = header["op"]
        if op == "ready":
            model, dims = header.get("model"), header.get("dims")
            if not isinstance(model, str) or not isinstance(dims, int) or dims <= 0:
                raise frame.FrameError(f"a ready without a model: {header}")
            self.model_id, self.dims = model, dims
            self.ready.set()
        elif op == "failed":
            self.failure = str(header.get("error"))
        elif op == "task":
            with self._guard:
                waiter = self._waiting.get(header.get("seq", -1))
            if waiter is not None:
                waiter.vector = self._vector(payload)
                waiter.done.set()
        elif op == "vectors":
            self.arrived(self, header, self._matrix(header, payload))
        else:
            raise frame.FrameError(f"an unknown op {op!r}")

    def _vector(self, payload: bytes) -> NDArray[np.float32] | None:
        """Return a task's vector, or None when it is not `dims` finite floats."""
        import numpy as np

        if len(payload) != 4 * self.dims:
            return None
        vector = np.frombuffer(payload, dtype="<f4").astype(np.float32)
        return vector if bool(np.isfinite(vector).all()) else None

    def _matrix(self, header: dict[str, Any], payload: bytes) -> NDArray[np.float32] | None:
        """Return a catalog's vectors, row by row; None for an answer with an error. Raises
        FrameError when the rows are not what the header says."""
        import numpy as np

        if header.get("error") is not None:
            return None
        rows = header.get("rows")
        if not isinstance(rows, int) or rows < 0 or len(payload) != 4 * self.dims * rows:
            raise frame.FrameError(f"vectors of {len(payload)} bytes for {rows} rows")
        matrix = np.frombuffer(payload, dtype="<f4").astype(np.float32).reshape(rows, self.dims)
        if not bool(np.isfinite(matrix).all()):
            raise frame.FrameError("vectors that are not finite")
        return matrix

    def _why(self, error: frame.FrameError) -> str:
        """Return why the process ended, as status shows it (one that answered garbage is
        killed by `_end`)."""
        if not isinstance(error, frame.ClosedError):
            return f"the meaning process answered garbage ({error})"
        try:
            code = self.process.wait(EXIT_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            return "the meaning process closed its output"
        if code < 0:
            return f"the meaning process was killed by signal {-code}"
        return f"the meaning process exited with status {code}"

    def _end(self) -> None:
        """Kill the process if it still runs, reap it, and wake every waiting route."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.gone.set()
        with self._guard:
            waiting, self._waiting = self._waiting, {}
        for waiter in waiting.values():
            waiter.done.set()
        self._outbox.put(None)  # the writer ends too
