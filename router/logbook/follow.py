"""Which pointers agents followed (DESIGN 12): the routes of the shadow log beside the
documents agents opened (`router.logbook.opened`), per engine version and per catalog
version; the documents read without a pointer, and the pointers never followed.

Reads records; writes nothing, reads no clock and prints nothing. An offered pointer is
counted once per session: the first route of a session that offered a document offered it
(later routes of the session repeat it, and the hooks do not inject it again), and it was
followed when the agent opened that document after it in the same session (the daemon
joined the read to that offer when it logged it). A route without a session (the CLI, the
socket, MCP) offers nothing an agent's read can be joined to, and is not counted here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from router.core.shown import flat
from router.logbook.report import percent, table
from router.logbook.review import catalog_order, version_key
from router.logbook.shadow import RATE_DIGITS, SKIPPED, Record

MISS_TASKS = 3  # prompts shown beside a document read without a pointer
TASK_CHARS = 72  # a prompt is cut to this in text
Key = tuple[str, str]  # (session, entry id)


def offered(routes: Iterable[Record]) -> dict[Key, dict[str, Any]]:
    """Return, per (session, entry id) offered, its first offer: `{engine_version,
    catalog_fingerprint, at, mode, rank, path}`, in order of offering."""
    first: dict[Key, dict[str, Any]] = {}
    for record in routes:
        session = record.get("session")
        if record.get("status") == SKIPPED or not isinstance(session, str) or not session:
            continue
        for rank, pointer in enumerate(_pointers(record), start=1):
            first.setdefault(
                (session, str(pointer.get("id"))),
                {
                    "engine_version": str(record.get("engine_version")),
                    "catalog_fingerprint": str(record.get("catalog_fingerprint")),
                    "at": record.get("at"),
                    "mode": record.get("mode"),
                    "rank": rank,
                    "path": str(pointer.get("path")),
                },
            )
    return first


def summary(routes: Iterable[Record], opens: Iterable[Record]) -> dict[str, Any]:
    """Return how many offered pointers were followed: `{versions, by_version, fingerprints,
    by_fingerprint, all, sessions: {offered, read}, shadow}` where a group is `{offered,
    followed, followed_rate, unpointed}` (`unpointed`: documents read in a session before
    or without any pointer to them, counted once per session, under the engine and catalog
    that logged the read). `shadow` counts offers of shadow mode, which no agent saw."""
    routes, opens = list(routes), list(opens)
    units = offered(routes)
    followed = _followed(opens)
    unpointed = _unpointed(opens)
    out: dict[str, Any] = {}
    for axis, plural in (("engine_version", "version"), ("catalog_fingerprint", "fingerprint")):
        values = (
            sorted({u["engine_version"] for u in units.values()}, key=version_key)
            if axis == "engine_version"
            else catalog_order(routes)
        )
        values += [v for v in _seen(unpointed.values(), axis) if v not in values]
        out[f"{plural}s"] = values
        out[f"by_{plural}"] = {
            v: _group(
                [k for k, u in units.items() if u[axis] == v],
                followed,
                [o for o in unpointed.values() if str(o.get(axis)) == v],
            )
            for v in values
        }
    out["all"] = _group(list(units), followed, list(unpointed.values()))
    out["sessions"] = {
        "offered": len({session for session, _ in units}),
        "read": len({o.get("session") for o in opens if o.get("session")}),
    }
    out["shadow"] = sum(1 for u in units.values() if u["mode"] != "live")
    return out


def misses(routes: Iterable[Record], opens: Iterable[Record]) -> dict[str, Any]:
    """Return `{unpointed: [{id, path, kind, sessions, tasks}], unfollowed: [{id, path,
    sessions, first}]}`: the documents agents read without a pointer to them (most sessions
    first; `tasks`: the last prompt each session routed before the read, at most MISS_TASKS,
    candidates for the document's routing fields), and the documents offered in sessions
    that never opened them (`first`: sessions where the pointer stood first)."""
    routes, opens = list(routes), list(opens)
    reads = _unpointed(opens)
    by_session: dict[str, list[Record]] = {}
    for record in routes:
        if record.get("status") != SKIPPED and isinstance(record.get("session"), str):
            by_session.setdefault(record["session"], []).append(record)
    rows: dict[str, dict[str, Any]] = {}
    for (session, entry), read in reads.items():
        row = rows.setdefault(
            entry, {"id": entry, "path": read["path"], "kind": read["kind"], "sessions": 0}
        )
        row["sessions"] += 1
        before = [r for r in by_session.get(session, []) if str(r.get("at")) <= read["at"]]
        if before:
            row.setdefault("tasks", []).append(str(before[-1].get("task")))
    for row in rows.values():
        row["tasks"] = list(dict.fromkeys(row.get("tasks", [])))[:MISS_TASKS]
    units = offered(routes)
    followed = _followed(opens)
    ever = {entry for key in units if key in followed for entry in (key[1],)}
    sessions: Counter[str] = Counter()
    first: Counter[str] = Counter()
    paths: dict[str, str] = {}
    for (_, entry), unit in units.items():
        if entry not in ever:
            sessions[entry] += 1
            first[entry] += unit["rank"] == 1
            paths.setdefault(entry, unit["path"])
    unfollowed = [
        {"id": e, "path": paths[e], "sessions": n, "first": first[e]}
        for e, n in sorted(sessions.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return {
        "unpointed": sorted(rows.values(), key=lambda r: (-r["sessions"], r["id"])),
        "unfollowed": unfollowed,
    }


def documents(routes: Iterable[Record], opens: Iterable[Record]) -> list[dict[str, Any]]:
    """Return one row per document offered or read: `{id, path, offered, first, sessions,
    followed, unpointed}`: routes that offered it (and offered it first), sessions it was
    offered in, followed in, and read in without a pointer. Most offered first, then most
    read without a pointer, then by id."""
    routes, opens = list(routes), list(opens)
    rows: dict[str, dict[str, Any]] = {}

    def row(entry: str, path: str) -> dict[str, Any]:
        zero = {"offered": 0, "first": 0, "sessions": 0, "followed": 0, "unpointed": 0}
        return rows.setdefault(entry, {"id": entry, "path": path, **zero})

    for record in routes:
        if record.get("status") == SKIPPED:
            continue
        for rank, pointer in enumerate(_pointers(record), start=1):
            found = row(str(pointer.get("id")), str(pointer.get("path")))
            found["offered"] += 1
            found["first"] += rank == 1
    followed = _followed(opens)
    for session, entry in offered(routes):
        rows[entry]["sessions"] += 1
        rows[entry]["followed"] += (session, entry) in followed
    for (_, entry), read in _unpointed(opens).items():
        row(entry, read["path"])["unpointed"] += 1
    return sorted(rows.values(), key=lambda r: (-r["offered"], -r["unpointed"], r["id"]))


def summary_text(view: Mapping[str, Any]) -> str:
    """Return the followed pointers as fixed-width tables, by engine version and by catalog
    version, with the sessions they were counted over. Ends without a newline."""
    s = view["sessions"]
    lines = [
        f"pointers followed: {_count(view['all']['offered'], 'pointer')} offered in "
        f"{_count(s['offered'], 'session')}; reads logged in {_count(s['read'], 'session')}"
    ]
    if not s["read"]:
        lines.append(
            "  no read was logged: install the hooks again (kroute install <harness>) to log "
            "which documents agents open"
        )
    for label, plural in (("engine", "version"), ("catalog", "fingerprint")):
        head = [label, "offered", "followed", "rate", "read unpointed"]
        rows = [cells(flat(v), view[f"by_{plural}"][v]) for v in view[f"{plural}s"]]
        lines += ["", *table([head, *rows, cells("all", view["all"])])]
    if view["shadow"]:
        lines.append(
            f"\n{view['shadow']} offered in shadow mode, never shown: followed there means "
            "the agent opened the document on its own"
        )
    return "\n".join(lines)


def misses_text(view: Mapping[str, Any]) -> str:
    """Return the misses: the documents read without a pointer, with the prompts before
    them, then the pointers never followed. Ends without a newline."""
    unpointed, unfollowed = view["unpointed"], view["unfollowed"]
    lines = [
        f"read without a pointer: {_count(len(unpointed), 'document')} (candidates for "
        "routing fields)"
    ]
    for row in unpointed:
        lines.append(
            f"  {flat(row['id'])}  {flat(row['path'])}  ({flat(row['kind'])}), "
            f"{_count(row['sessions'], 'session')}"
        )
        lines += [f"    after: {_cut(task)}" for task in row["tasks"]]
    lines.append(f"pointers never followed: {_count(len(unfollowed), 'document')}")
    lines += [
        f"  {flat(row['id'])}  {flat(row['path'])}  offered in "
        f"{_count(row['sessions'], 'session')} (at the top in {row['first']})"
        for row in unfollowed
    ]
    return "\n".join(lines)


def _group(units: list[Key], followed: set[Key], unpointed: list[Record]) -> dict[str, Any]:
    hits = sum(1 for key in units if key in followed)
    return {
        "offered": len(units),
        "followed": hits,
        "followed_rate": round(hits / len(units), RATE_DIGITS) if units else None,
        "unpointed": len(unpointed),
    }


def _followed(opens: Iterable[Record]) -> set[Key]:
    """Return the (session, entry id) of every read joined to an offer."""
    return {(str(o["session"]), str(o["id"])) for o in opens if o.get("offer") and o.get("session")}


def _unpointed(opens: Iterable[Record]) -> dict[Key, Record]:
    """Return the first read of each (session, entry id) that followed no offer (a read
    without a session is its own)."""
    first: dict[Key, Record] = {}
    for n, o in enumerate(opens):
        if o.get("offer") is None:
            first.setdefault((str(o.get("session") or f"#{n}"), str(o["id"])), o)
    return first


def _seen(records: Iterable[Record], member: str) -> list[str]:
    return list(dict.fromkeys(str(r.get(member)) for r in records))


def _pointers(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = record.get("pointers")
    return [p for p in found if isinstance(p, Mapping)] if isinstance(found, list) else []


def cells(name: str, group: Mapping[str, Any]) -> list[str]:
    """Return one row of the followed tables: name, offered, followed, rate, unpointed."""
    counts = [str(group["offered"]), str(group["followed"]), percent(group["followed_rate"])]
    return [name, *counts, str(group["unpointed"])]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _cut(task: str) -> str:
    shown = flat(task)
    return shown if len(shown) <= TASK_CHARS else shown[: TASK_CHARS - 3] + "..."
