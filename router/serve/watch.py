"""The one seam between the daemon and the file-watching library (watchfiles).

Tests replace `changes` with a function of the same shape; nothing else imports watchfiles.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

# Measured here: watchfiles yields a change in about 9 ms with these settings (DESIGN 10);
# the default 1600 ms debounce would make an edit invisible to the next route for seconds.
DEBOUNCE_MS = 10
STEP_MS = 5
# How often the watcher wakes with nothing to report: its first wake says its watches are
# set, which the daemon waits for before it answers (a file written right after `kroute
# start` returns must be seen).
IDLE_MS = 50

Changes = Callable[[Sequence[Path], threading.Event], Iterator[set[Path]]]


def changes(targets: Sequence[Path], stop: threading.Event) -> Iterator[set[Path]]:
    """Yield sets of changed paths under `targets` until `stop` is set; an empty set now
    and then says the watches are in place and nothing changed."""
    import watchfiles  # imported here so that importing the daemon module stays cheap

    for batch in watchfiles.watch(
        *targets,
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        stop_event=stop,
        rust_timeout=IDLE_MS,
        yield_on_timeout=True,
        raise_interrupt=False,
    ):
        yield {Path(path) for _, path in batch}
