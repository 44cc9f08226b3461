"""What a route offers (DESIGN 6 steps 8-10): a pointer, the evidence each kind carries (the
task words and fields that reached it, or its place by meaning), and the order successors
take in a block. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from router.catalog.entry import Entry
from router.catalog.taxonomy import Taxonomy
from router.ranking import rank
from router.ranking.index import Index
from router.route import fusion


@dataclass(frozen=True, slots=True)
class Pointer:
    """One entry offered in a route, with what reached it."""

    entry: Entry
    purpose: str
    evidence: dict[str, object]
    superseded_by: str | None = None


@dataclass(frozen=True, slots=True)
class Candidate:
    """An entry some task term reaches, with its score (used for order, never shown)."""

    total: float
    entry: Entry
    slot: int


def ranked(
    taxonomy: Taxonomy,
    c: Candidate,
    reached: rank.Reach,
    place: tuple[int, int],
    governed: dict[str, list[str]],
    fired: dict[int, list[tuple[str, str]]],
    meaning: tuple[fusion.Neighbour, int] | None = None,
    entries: int = 0,
) -> Pointer:
    """Return the pointer of a ranked candidate, its evidence saying what reached it (triggers
    first, then each field's words) and its `place` (rank, of how many reached); when it is
    also among the nearest by meaning (`meaning`: the neighbour and its place among the
    catalog's `entries`), that too, as `by_meaning` says it."""
    groups: dict[str, list[str]] = {}
    for name, hit in fired.get(c.slot, ()):
        groups.setdefault(name, []).append(hit)
    fields = [{"field": name, "terms": hits} for name, hits in groups.items()]
    fields += [{"field": label, "terms": list(ws)} for label, ws in reached.fields]
    evidence: dict[str, object] = {
        "by": "terms",
        "terms": list(reached.words),
        "field": fields[0]["field"] if fields else "",
        "fields": fields,
        "notes": list(reached.notes),
        "rank": place[0],
        "of": place[1],
    }
    if c.entry.id in governed:
        evidence["anchors"] = governed[c.entry.id]
    if meaning is not None:
        neighbour, near_place = meaning
        evidence["meaning"] = {"near": neighbour.near, "rank": near_place, "of": entries}
    return Pointer(c.entry, taxonomy.purpose_of(c.entry.kind), evidence)


def by_meaning(
    taxonomy: Taxonomy, c: Candidate, found: tuple[fusion.Neighbour, int], of: int
) -> Pointer:
    """Return the pointer of a candidate only meaning reached: its evidence names the part
    of the entry the model read and its place in meaning's order of the whole catalog (no
    similarity value: it is not a probability)."""
    neighbour, place = found
    evidence: dict[str, object] = {"by": "meaning", "near": neighbour.near, "rank": place, "of": of}
    return Pointer(c.entry, taxonomy.purpose_of(c.entry.kind), evidence)


def succession(index: Index, block: list[Pointer], follow: bool) -> list[Pointer]:
    """Return a block with successors moved in front of what they supersede, superseded
    pointers naming their successor, and (with `follow`) the entry in force offered instead."""
    out: list[Pointer] = []
    for pointer in block:
        successor = index.successor(pointer.entry.id)
        if follow and successor is not None:
            current, seen = successor, {pointer.entry.id}
            while (nxt := index.successor(current)) is not None and nxt not in seen:
                seen.add(current)
                current = nxt
            in_force = index.get(current)
            if in_force is not None and all(p.entry.id != current for p in out):
                evidence: dict[str, object] = {"by": "succession", "from": pointer.entry.id}
                out.append(Pointer(in_force, pointer.purpose, evidence))
                continue
        out.append(Pointer(pointer.entry, pointer.purpose, pointer.evidence, successor))
    moved: set[str] = set()  # each pointer moves once, so a succession cycle cannot spin
    late = 1
    while late < len(out):
        successor_id = out[late].entry.id
        olds = [i for i in range(late) if out[i].superseded_by == successor_id]
        if olds and successor_id not in moved:
            moved.add(successor_id)
            out.insert(olds[0], out.pop(late))
        late += 1
    return out
