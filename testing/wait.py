"""Waiting for what happens in another thread or process, without asserting how long it took."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest

T = TypeVar("T")


def within(seconds: float, call: Callable[[], T], fifos: Iterable[Path] = ()) -> T:
    """Return what `call()` returns, run in a daemon thread; fail the test when it is still
    running after `seconds` (opening `fifos` for writing first, to free a blocked reader)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as error:  # handed to the test's thread below
            box["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        for fifo in fifos:
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"still running after {seconds} s")
    if "error" in box:
        raise box["error"]
    return cast(T, box["value"])


class Countdown:
    """A stop that says go on `left` times, then stop (and counts how often it was asked)."""

    def __init__(self, left: int) -> None:
        self.left = left
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        self.left -= 1
        return self.left < 0


def eventually(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Return whether a condition reached asynchronously, such as a daemon's, holds within
    `seconds` (not a timing assertion: the time is only how long to wait before giving up)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()
