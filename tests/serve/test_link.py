"""The daemon's end of a meaning process, against real processes that misbehave: a route's
wait is bounded, an answer that is not a vector is none, and a process that answers garbage
or dies is found gone, with the reason."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

from router.serve.link import Link

pytestmark = pytest.mark.process

# A stand-in meaning process: says it is ready with vectors of 4, then answers each task by
# `ANSWER` (Python run per task, with `header` the request and `send` to answer).
PROCESS = """
import sys
from router.runtime import frame
into, out = sys.stdin.buffer, sys.stdout.buffer
hello, _ = frame.read(into)
frame.write(out, {"op": "ready", "model": "fake", "dims": 4})
send = lambda *a: frame.write(out, *a)
while True:
    try:
        header, payload = frame.read(into)
    except frame.FrameError:
        sys.exit(0)
    ANSWER
"""
GOOD = "send({'op': 'task', 'seq': header['seq']}, b'\\0\\0\\x80?' + bytes(12))"


def link(answer: str) -> Link:
    arrived: list[Any] = []
    code = PROCESS.replace("ANSWER", answer)
    made = Link({"op": "hello"}, [sys.executable, "-c", code], lambda *a: arrived.append(a))
    assert made.ready.wait(60), made.failure
    return made


def test_a_task_is_answered_with_its_vector() -> None:
    made = link(GOOD)
    try:
        vector = made.embed("a task", wait=60)
        assert vector is not None and vector.tolist() == [1.0, 0.0, 0.0, 0.0]
        assert vector.dtype == np.float32
    finally:
        made.close()
    assert made.gone.is_set() and made.failure is None  # asked to end: no failure


def test_a_task_not_answered_in_time_has_no_vector() -> None:
    made = link("pass")  # reads every request, answers none
    try:
        assert made.embed("a task", wait=0.05) is None
        assert not made.gone.is_set()
    finally:
        made.close()


def test_an_answer_that_is_not_a_vector_is_none() -> None:
    for answer in (
        "send({'op': 'task', 'seq': header['seq']}, b'\\0' * 3)",  # not 4 floats
        "send({'op': 'task', 'seq': header['seq']}, b'\\0\\0\\xc0\\x7f' * 4)",  # NaN
    ):
        made = link(answer)
        try:
            assert made.embed("a task", wait=60) is None
        finally:
            made.close()


def test_a_process_answering_garbage_is_ended() -> None:
    made = link("out.write(b'not a frame at all'); out.flush()")
    assert made.embed("a task", wait=60) is None
    assert made.gone.wait(60)
    assert made.failure is not None and "garbage" in made.failure
    assert made.process.poll() is not None
    assert made.embed("another", wait=60) is None  # gone: no wait at all


def test_a_process_that_dies_wakes_the_route_waiting_on_it() -> None:
    made = link("sys.exit(3)")
    assert made.embed("a task", wait=60) is None
    assert made.gone.wait(60)
    assert made.failure == "the meaning process exited with status 3"
