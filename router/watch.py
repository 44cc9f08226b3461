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

Changes = Callable[[Sequence[Path], threading.Event], Iterator[set[Path]]]


def changes(targets: Sequence[Path], stop: threading.Event) -> Iterator[set[Path]]:
    """Yield sets of changed paths under `targets` until `stop` is set."""
    import watchfiles  # imported here so that importing the daemon module stays cheap

    for batch in watchfiles.watch(
        *targets,
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        stop_event=stop,
        rust_timeout=200,
        yield_on_timeout=False,
        raise_interrupt=False,
    ):
        yield {Path(path) for _, path in batch}
