"""Frames between the daemon and its meaning process: what is written is read back whole,
and a closed pipe or bytes that are not a frame are told apart."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from router.runtime import frame

texts = st.text(max_size=50)
headers = st.dictionaries(texts, st.one_of(texts, st.integers(), st.none()), max_size=5)


@given(headers, st.binary(max_size=200), texts)
def test_a_frame_is_read_back_as_written(
    header: dict[str, object], payload: bytes, op: str
) -> None:
    stream = io.BytesIO()
    sent = {**header, "op": op}
    frame.write(stream, sent, payload)
    frame.write(stream, {"op": "next"})
    stream.seek(0)
    assert frame.read(stream) == (sent, payload)
    assert frame.read(stream) == ({"op": "next"}, b"")
    with pytest.raises(frame.ClosedError):
        frame.read(stream)


@pytest.mark.parametrize(
    "raw",
    [
        frame.MAGIC + frame.LENGTHS.pack(3, 0) + b"{x}",  # not JSON
        frame.MAGIC + frame.LENGTHS.pack(2, 0) + b"[]",  # not an object
        frame.MAGIC + frame.LENGTHS.pack(11, 0) + b'{"op": 1.5}',  # no op
        frame.MAGIC + frame.LENGTHS.pack(frame.MOST_HEADER + 1, 0),  # too long
        b"not a frame at all, though long enough",  # no MAGIC
    ],
)
def test_bytes_that_are_not_a_frame_are_refused(raw: bytes) -> None:
    with pytest.raises(frame.FrameError) as caught:
        frame.read(io.BytesIO(raw))
    assert not isinstance(caught.value, frame.ClosedError)


def test_a_frame_cut_short_is_a_closed_pipe() -> None:
    stream = io.BytesIO()
    frame.write(stream, {"op": "task"}, b"1234")
    with pytest.raises(frame.ClosedError):
        frame.read(io.BytesIO(stream.getvalue()[:-1]))
