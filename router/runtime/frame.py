"""Messages between the daemon and its meaning process (`sidecar`), over a pipe: each a
header (a JSON object) and a payload of bytes (vectors as float32, row after row), after
MAGIC and their two lengths. Standard library only: the daemon's side imports nothing heavy.
"""

from __future__ import annotations

import json
import struct
import threading
from typing import IO, Any

MAGIC = b"KRF1"  # each frame's first bytes: what does not start so is garbage at once
LENGTHS = struct.Struct("<II")  # the header's length, then the payload's, after MAGIC
# The most either side accepts: a header holds a catalog's passages (a few MB at 10k
# entries), a payload its vectors (15 MB at 10k entries of 384 floats).
MOST_HEADER = 1 << 30
MOST_PAYLOAD = 1 << 31


class FrameError(Exception):
    """The other side closed the pipe or sent what is not a frame."""


class ClosedError(FrameError):
    """The other side closed the pipe (it has exited, or is exiting)."""


def write(stream: IO[bytes], header: dict[str, Any], payload: bytes = b"") -> None:
    """Write one frame and flush it. Raises OSError when the pipe is closed."""
    raw = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    stream.write(MAGIC + LENGTHS.pack(len(raw), len(payload)) + raw)
    if payload:
        stream.write(payload)
    stream.flush()


def read(stream: IO[bytes]) -> tuple[dict[str, Any], bytes]:
    """Return the next frame's header and payload. Raises ClosedError at the end of the stream
    (the other side is gone), FrameError for bytes that are not a frame."""
    head = _exactly(stream, len(MAGIC) + LENGTHS.size)
    if head[: len(MAGIC)] != MAGIC:
        raise FrameError(f"bytes that are not a frame: {head!r}")
    header_length, payload_length = LENGTHS.unpack(head[len(MAGIC) :])
    if header_length > MOST_HEADER or payload_length > MOST_PAYLOAD:
        raise FrameError(f"a frame of {header_length} + {payload_length} bytes")
    raw = _exactly(stream, header_length)
    payload = _exactly(stream, payload_length)
    try:
        header = json.loads(raw)
    except ValueError as error:
        raise FrameError(f"a header that is not JSON: {error}") from None
    if not isinstance(header, dict) or not isinstance(header.get("op"), str):
        raise FrameError("a header without an op")
    return header, payload


def _exactly(stream: IO[bytes], size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise ClosedError("the pipe was closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


class Sender:
    """Writes frames to one stream from any thread, one whole frame at a time."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.lock = threading.Lock()

    def send(self, header: dict[str, Any], payload: bytes = b"") -> None:
        """Write one frame. Raises OSError when the pipe is closed."""
        with self.lock:
            write(self.stream, header, payload)
