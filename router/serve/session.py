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
from dataclasses import dataclass, replace

from router.ranking.index import Index
from router.route.contract import Route

MAX_SESSIONS = 256  # sessions remembered, least recently used forgotten first
DIGEST_BYTES = 16


@dataclass(frozen=True, slots=True)
class Unrepeated:
    """A route with the pointers the session was already shown taken out, and how many
    those were."""

    route: Route
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


def unrepeated(sessions: Sessions, session: str, route: Route, index: Index) -> Unrepeated:
    """Return the route with the pointers the session was already shown (of an entry
    unchanged since) taken out, and remember the rest as shown. A route with nothing
    repeated is returned as it is; one with everything repeated has no pointers left."""
    if not route.pointers:
        return Unrepeated(route, 0)
    digests = {p.entry.id: digest(index, p.entry.id) for p in route.pointers}
    fresh = sessions.claim(session, digests)
    kept = tuple(p for p in route.pointers if p.entry.id in fresh)
    repeated = len(route.pointers) - len(kept)
    if not repeated:
        return Unrepeated(route, 0)
    return Unrepeated(replace(route, pointers=kept), repeated)
