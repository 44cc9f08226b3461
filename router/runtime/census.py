"""The catalog's files and their stamps, taken by a helper process while a snapshot is read.

A restart from a snapshot does two long things: unpickling what the snapshot holds and
walking the catalog to stat every file (to find those changed since). Both hold the
interpreter lock, so threads would take turns; a second process walks on the other core
instead. A large catalog only: a process start costs more than walking a small one. Any
failure of the helper (it cannot start, dies, answers garbage or too late) means the walk is
made here after all, never a wrong answer.
"""

from __future__ import annotations

import pickle
import struct
import subprocess
import sys
import threading
from collections.abc import Callable

from router.catalog import walk
from router.catalog.config import Config
from router.catalog.diagnostic import Diagnostic

# A catalog of fewer files is walked in the process itself (a walk of it takes about as long
# as starting a helper).
HELPER_FILES = 5000
# The longest the helper is waited for once the snapshot is read (a walk of 100,000 files
# takes under a second here); past it, the walk is made in process.
HELPER_WAIT_SECONDS = 30.0

Walked = tuple[list[str], dict[str, tuple[int, int]], tuple[Diagnostic, ...]]
LENGTH = struct.Struct("<Q")  # the config's pickle is sent after its length: the helper
# reads it and starts at once, its stdin left open until its answer is read


def command() -> list[str]:
    """Return the command that runs the helper (this interpreter, this module)."""
    return [sys.executable, "-m", "router.runtime.census"]


class Census:
    """A walk of the catalog under way: in a helper process for a large catalog, else made
    when asked. `armed` is waited for before the walk starts (the daemon's file watches must
    be in place first, or an edit made between a file's stat and its watch would be lost)."""

    def __init__(self, config: Config, files: int, armed: Callable[[], object]) -> None:
        self._config = config
        self._armed = armed
        self._helper: subprocess.Popen[bytes] | None = None
        self._started = threading.Event()
        if files >= HELPER_FILES:
            threading.Thread(target=self._start, name="census", daemon=True).start()
        else:
            self._started.set()

    def _start(self) -> None:
        try:
            self._armed()
            self._helper = subprocess.Popen(
                command(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            sent = pickle.dumps(self._config, protocol=5)
            to_helper = self._helper.stdin
            if to_helper is None:
                raise OSError("the helper has no stdin")
            to_helper.write(LENGTH.pack(len(sent)) + sent)
            to_helper.flush()
        except OSError:
            if self._helper is not None:
                self._helper.kill()
                self._helper.wait()
            self._helper = None
        finally:
            self._started.set()

    def cancel(self) -> None:
        """Stop the helper, when the walk is not wanted after all (the snapshot could not be
        read): it would otherwise block on an answer nobody reads."""
        self._started.wait()
        helper, self._helper = self._helper, None
        if helper is not None:
            helper.kill()
            helper.communicate()

    def result(self) -> Walked:
        """Return the catalog files (sorted), their stamps and the walk's problems, as
        `walk.walked` gives them: the helper's answer when it gives one in time, else a
        walk made here."""
        self._started.wait()
        helper = self._helper
        if helper is not None:
            try:
                out, _ = helper.communicate(None, HELPER_WAIT_SECONDS)
                if helper.returncode == 0:
                    answer = pickle.loads(out)
                    return list(answer[0]), dict(answer[1]), tuple(answer[2])
            except Exception:  # too late, dead, or garbled: walk here
                helper.kill()
                helper.wait()
        self._armed()
        found: dict[str, tuple[int, int]] = {}
        present, problems = walk.walked(self._config, found)
        return present, found, problems


def main() -> int:
    """Run the helper: a pickled Config on stdin (after its length), the pickled walk
    (files, stamps, problems) on stdout. The parent is the daemon of the same user and
    code, so pickle is safe here."""
    (length,) = LENGTH.unpack(sys.stdin.buffer.read(LENGTH.size))
    config = pickle.loads(sys.stdin.buffer.read(length))
    stamps: dict[str, tuple[int, int]] = {}
    present, problems = walk.walked(config, stamps)
    sys.stdout.buffer.write(pickle.dumps((present, stamps, problems), protocol=5))
    return 0


if __name__ == "__main__":
    sys.exit(main())
