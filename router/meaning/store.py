"""The on-disk cache of entry vectors: one file per model id in the state directory, rows
keyed by the sha256 of the text embedded, so a restart or an edit embeds only the texts
that changed. A missing, corrupt or foreign file is an empty cache (rewritten on save)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from router.client import trust

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

SUFFIX = ".npz"
FORMAT = 1  # bump when the file's layout changes: an older file is then ignored
UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")  # what a model id may not put in a file name
DIGEST_BYTES = 32  # a sha256
FILL_BATCH = 64  # texts embedded between two progress reports


class Embeds(Protocol):
    """What `fill` needs of an Embedder."""

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]: ...


class Vectors:
    """The cached vectors of one model: digest -> row. Open it with `Vectors.open`."""

    def __init__(self, path: Path, model_id: str, rows: dict[bytes, NDArray[np.float32]]) -> None:
        self.path = path
        self.model_id = model_id
        self._rows = rows
        self._kept: set[bytes] = set(rows)
        self.dirty = False  # True when save() has something to write

    @classmethod
    def open(cls, directory: Path, model_id: str) -> Vectors:
        """Return the cache of `model_id` under `directory`: what its file holds, or empty
        when it is missing, unreadable, corrupt or written for another model or format."""
        path = directory / f"{UNSAFE.sub('_', model_id)}{SUFFIX}"
        return cls(path, model_id, _read(path, model_id))

    def __len__(self) -> int:
        return len(self._rows)

    def fill(
        self,
        texts: Sequence[str],
        embedder: Embeds,
        progress: Callable[[int, int], None] | None = None,
    ) -> NDArray[np.float32]:
        """Return an (n, dimensions) float32 array, row i the vector of texts[i]: cached
        rows as they are, the others embedded (each distinct text once) and cached.
        `progress(done, total)` is called after each batch of new texts, total being the
        number to embed. Later saves keep only the texts of the last fill."""
        import numpy as np

        digests = [hashlib.sha256(text.encode("utf-8")).digest() for text in texts]
        missing: dict[bytes, str] = {}
        for digest, text in zip(digests, texts, strict=True):
            if digest not in self._rows:
                missing.setdefault(digest, text)
        # longest last, so each batch holds texts of about one length (little padding)
        todo = sorted(missing.items(), key=lambda item: len(item[1]))
        for start in range(0, len(todo), FILL_BATCH):
            chunk = todo[start : start + FILL_BATCH]
            vectors = embedder.embed([text for _, text in chunk])
            for (digest, _), row in zip(chunk, vectors, strict=True):
                self._rows[digest] = row
            if progress is not None:
                progress(start + len(chunk), len(todo))
        self.dirty = self.dirty or bool(todo) or self._kept != set(digests)
        self._kept = set(digests)
        out = np.zeros((len(texts), embedder.dimensions), dtype=np.float32)
        for i, digest in enumerate(digests):
            out[i] = self._rows[digest]
        return out

    def save(self) -> None:
        """Write the rows of the last fill to the file, atomically (a temporary file renamed
        over it, mode 0600, its directory made 0700), unless the file already holds just
        them. Raise OSError when it cannot be written; no half-written file is left."""
        import numpy as np

        if not self.dirty:
            return
        keys = sorted(self._kept & set(self._rows))
        self._rows = {key: self._rows[key] for key in keys}
        width = len(self._rows[keys[0]]) if keys else 0
        matrix = np.stack([self._rows[key] for key in keys]) if keys else np.zeros((0, width))
        buffer = io.BytesIO()
        np.savez(
            buffer,
            format=np.array(FORMAT),
            model=np.array(self.model_id),
            digests=np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(-1, DIGEST_BYTES),
            vectors=matrix.astype(np.float32),
        )
        trust.private_dir(self.path.parent)
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}.partial")
        try:
            fd = trust.open_private(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            with os.fdopen(fd, "wb") as out:
                out.write(buffer.getvalue())
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        self.dirty = False


def _read(path: Path, model_id: str) -> dict[bytes, NDArray[np.float32]]:
    """Return the rows a cache file holds; {} when it is missing or not a cache of this
    model and format (never raises for the file's content)."""
    import numpy as np

    try:
        # opened here, not by np.load, which leaves its own file open when the zip is bad
        with open(path, "rb") as handle, np.load(handle, allow_pickle=False) as found:
            if int(found["format"]) != FORMAT or str(found["model"]) != model_id:
                return {}
            digests, vectors = found["digests"], found["vectors"]
            if digests.ndim != 2 or digests.shape[1] != DIGEST_BYTES or vectors.ndim != 2:
                return {}
            if len(digests) != len(vectors) or vectors.dtype != np.float32:
                return {}
            return {bytes(d): v for d, v in zip(digests, vectors, strict=True)}
    except Exception:  # missing, truncated, not a zip, a key or dtype missing: start over
        return {}
