"""The meaning process: the daemon's child that loads the embedding model, embeds its
catalog's passages and each route's task, so that the daemon itself never imports
onnxruntime or tokenizers (importing them holds the interpreter lock for seconds, and the
daemon must answer at any time).

It reads frames (`frame`) on stdin and writes them on stdout: first a `hello` (the cache
directory, the catalog's key, the model), then `catalog` requests (the passages of every
entry, answered with their vectors, read from and written to the catalog's vector cache)
and `task` requests (one text, answered with its vector). It says `ready` once the model is
loaded and `failed` when it cannot be, and exits then. The end of its stdin (the daemon is
gone, even killed with -9) ends it at once, whatever it is doing.
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import IO, Any

from router.base.errors import ModelUnavailableError
from router.runtime import frame


def command() -> list[str]:
    """Return the command that runs the meaning process (this interpreter, this module)."""
    return [sys.executable, "-m", "router.runtime.sidecar"]


class SupersededError(Exception):
    """A newer catalog came while one was being embedded: that one is embedded instead."""


class Latest:
    """The newest catalog request not yet taken: an older one not begun is dropped."""

    def __init__(self) -> None:
        self._item: tuple[dict[str, Any], bytes] | None = None
        self._ready = threading.Condition()

    def put(self, item: tuple[dict[str, Any], bytes]) -> None:
        with self._ready:
            self._item = item
            self._ready.notify()

    def take(self) -> tuple[dict[str, Any], bytes]:
        with self._ready:
            while self._item is None:
                self._ready.wait()
            item, self._item = self._item, None
            return item

    def waiting(self) -> bool:
        """Return whether a newer request waits."""
        return self._item is not None


def main() -> int:
    """Run the meaning process until its stdin ends. Returns the exit status: 1 when the
    model cannot be loaded (after saying why in a `failed` frame), else 0."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a ^C to `kroute serve` ends the daemon first
    into = sys.stdin.buffer
    # Frames go out on a copy of stdout; stdout itself becomes the daemon's log, so that
    # anything printed (by Python or by a native library writing to fd 1) never lands in a
    # frame.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        hello, _ = frame.read(into)
    except frame.FrameError:
        return 0
    sender = frame.Sender(out)
    tasks: queue.Queue[tuple[dict[str, Any], bytes]] = queue.Queue()
    catalogs = Latest()
    # listening before the model loads: the daemon's end is noticed even while it loads
    threading.Thread(target=_listen, args=(into, tasks, catalogs), daemon=True).start()

    from router.meaning import model
    from router.runtime import nearby

    cache = Path(str(hello["cache"]))
    try:
        embedder = model.load(hello.get("model"), nearby.EMBED_THREADS, cache / nearby.MODELS)
    except ModelUnavailableError as error:
        _send(sender, {"op": "failed", "error": str(error)})
        return 1
    except Exception as error:  # a bug or a broken install: the daemon's log says which
        traceback.print_exc(file=sys.stderr)
        _send(sender, {"op": "failed", "error": f"the model did not load: {error!r}"})
        return 1
    _send(sender, {"op": "ready", "model": embedder.model_id, "dims": embedder.dimensions})
    where = cache / nearby.CATALOGS / str(hello["catalog"])
    threading.Thread(
        target=_embed_catalogs, args=(catalogs, embedder, where, sender), daemon=True
    ).start()
    _answer_tasks(tasks, embedder, sender)
    return 0


def _listen(
    into: IO[bytes],
    tasks: queue.Queue[tuple[dict[str, Any], bytes]],
    catalogs: Latest,
) -> None:
    """Read the daemon's requests until its end of the pipe closes, then end the process."""
    try:
        while True:
            header, payload = frame.read(into)
            if header["op"] == "task":
                tasks.put((header, payload))
            elif header["op"] == "catalog":
                catalogs.put((header, payload))
    except frame.FrameError:
        pass
    except Exception:
        traceback.print_exc(file=sys.stderr)
    os._exit(0)  # the daemon is gone or broken: whatever is under way is no longer wanted


def _answer_tasks(
    tasks: queue.Queue[tuple[dict[str, Any], bytes]], embedder: Any, sender: frame.Sender
) -> None:
    """Answer task requests one at a time, each with its vector (the model's float32)."""
    while True:
        header, _ = tasks.get()
        seq, text = header.get("seq"), header.get("text")
        if not isinstance(text, str):
            _send(sender, {"op": "task", "seq": seq, "error": "no text"})
            continue
        vector = embedder.embed([text])[0]
        _send(sender, {"op": "task", "seq": seq}, vector.astype("<f4").tobytes())


def _embed_catalogs(catalogs: Latest, embedder: Any, where: Path, sender: frame.Sender) -> None:
    """Answer catalog requests with their passages' vectors, the newest request first: one
    superseded while it is embedded is dropped (what it embedded stays cached)."""
    from router.meaning import store

    vectors = store.Vectors.open(where, embedder.model_id)
    while True:
        header, _ = catalogs.take()
        texts = header.get("texts")
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            _send(sender, {"op": "vectors", "seq": header.get("seq"), "error": "no texts"})
            continue
        began = time.monotonic()
        try:
            matrix, embedded = _fill(vectors, texts, embedder, catalogs)
        except SupersededError:
            continue
        note = None
        try:
            vectors.save()
        except OSError as error:  # the vectors serve all the same; the next start embeds again
            note = f"the vector cache was not written: {error}"
        answer = {
            "op": "vectors",
            "seq": header.get("seq"),
            "rows": len(texts),
            "dims": embedder.dimensions,
            "embedded": embedded,
            "seconds": round(time.monotonic() - began, 3),
            "note": note,
        }
        _send(sender, answer, matrix.astype("<f4").tobytes())


def _fill(vectors: Any, texts: list[str], embedder: Any, catalogs: Latest) -> tuple[Any, int]:
    """Return the vectors of `texts` (`Vectors.fill`) and how many were embedded (not read
    from the cache). Raises SupersededError as soon as a newer catalog waits."""
    embedded = 0

    def progress(done: int, total: int) -> None:
        nonlocal embedded
        embedded = done
        if catalogs.waiting():
            raise SupersededError

    return vectors.fill(texts, embedder, progress), embedded


def _send(sender: frame.Sender, header: dict[str, Any], payload: bytes = b"") -> None:
    try:
        sender.send(header, payload)
    except OSError:
        os._exit(0)  # the daemon is gone


if __name__ == "__main__":
    sys.exit(main())
