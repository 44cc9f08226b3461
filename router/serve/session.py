"""What each agent session was already shown, so that a pointer is injected once per session.

Every prompt of a session that shares words with the same documents would otherwise get
the same pointers again, crowding the context the agent already holds. The daemon keeps,
per session id, a digest of each entry it injected; a pointer is injected again only when
its entry changed since. The memory lives in the daemon only and is bounded (the most
recently used MAX_SESSIONS sessions); the in-process slow path builds a fresh `App` per hook
and so remembers nothing, which costs a repeat now and then, never a missing pointer.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from router.ranking.index import Index
from router.route import render

MAX_SESSIONS = 256  # sessions remembered, least recently used forgotten first
DIGEST_BYTES = 16
ALREADY_SHOWN = render.POINTER_INDENT + "{count} more already shown in this session"


@dataclass(frozen=True, slots=True)
class Unrepeated:
    """A route document with the pointers the session was already shown taken out, and how
    many those were."""

    document: dict[str, Any]
    repeated: int


class Sessions:
    """Per session id, the digest of every entry injected in it (thread-safe: the daemon
    answers each connection on its own thread)."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self._shown: OrderedDict[str, dict[str, str]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._shown)

    def claim(self, session: str, digests: Mapping[str, str]) -> set[str]:
        """Return the ids among `digests` (entry id -> digest) the session was not shown in
        this form, and remember them all as shown."""
        with self._lock:
            shown = self._shown.pop(session, None) or {}
            fresh = {i for i, d in digests.items() if shown.get(i) != d}
            shown.update(digests)
            self._shown[session] = shown  # now the most recently used
            while len(self._shown) > self.limit:
                self._shown.popitem(last=False)
            return fresh

    def reset(self, session: str) -> None:
        """Forget what the session was shown (its context was cleared or compacted)."""
        with self._lock:
            self._shown.pop(session, None)


def digest(index: Index, entry_id: str) -> str:
    """Return a digest of the entry as the index holds it now ("" for one it no longer
    holds): any change to any of its fields changes it."""
    found = index.get(entry_id)
    if found is None:
        return ""
    return hashlib.blake2b(repr(found).encode(), digest_size=DIGEST_BYTES).hexdigest()


def unrepeated(
    sessions: Sessions, session: str, document: Mapping[str, Any], index: Index
) -> Unrepeated:
    """Return the route document with the pointers the session was already shown (of an
    entry unchanged since) removed, its text re-rendered to match with a last line counting
    them, and remember the rest as shown. A document with nothing repeated is returned as
    it is; one with everything repeated has no pointers left."""
    pointers = list(document.get("pointers") or [])
    if not pointers:
        return Unrepeated(dict(document), 0)
    digests = {str(p["id"]): digest(index, str(p["id"])) for p in pointers}
    fresh = sessions.claim(session, digests)
    kept = [p for p in pointers if p["id"] in fresh]
    repeated = len(pointers) - len(kept)
    if not repeated:
        return Unrepeated(dict(document), 0)
    text = _report(kept, index, int(document.get("withheld") or 0), repeated) if kept else ""
    return Unrepeated({**document, "pointers": kept, "text": text}, repeated)


def _report(pointers: list[Mapping[str, Any]], index: Index, withheld: int, repeated: int) -> str:
    """Return the text report of the pointers kept, as `render.text_report` lays it out,
    ending with the line that counts the ones already shown."""
    lines = []
    for pointer in pointers:
        found = index.get(str(pointer["id"]))
        if found is None:  # the catalog changed under the route: its line cannot be rebuilt
            continue
        lines.append(render.pointer_line(found, pointer.get("superseded_by")))
        lines.append(render.evidence_line(pointer.get("evidence") or {}))
    if withheld:
        lines.append(f"{render.POINTER_INDENT}withheld {withheld} more")
    lines.append(ALREADY_SHOWN.format(count=repeated))
    return "\n".join(lines)
