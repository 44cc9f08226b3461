"""What a route offers (router.route.pointer): each pointer's evidence, and successors."""

from __future__ import annotations

from typing import Any

from router.catalog.entry import Entry
from router.catalog.taxonomy import Taxonomy
from router.ranking import rank
from router.ranking.index import Index
from router.route import fusion, pointer


def doc(ident: str, **fields: Any) -> Entry:
    return Entry(id=ident, kind="doc", path=f"docs/{ident}.md", file=f"docs/{ident}.md", **fields)


def test_a_ranked_pointer_says_what_reached_it_triggers_first() -> None:
    item = doc("a")
    reached = rank.Reach(("rotation",), (("title", ("rotation",)),))
    fired = {0: [("keyword phrase", "rotate keys")]}
    made = pointer.ranked(
        Taxonomy(), pointer.Candidate(1.0, item, 0), reached, (2, 7), {"a": ["src/k.py"]}, fired
    )
    assert made.evidence == {
        "by": "terms",
        "terms": ["rotation"],
        "field": "keyword phrase",
        "fields": [
            {"field": "keyword phrase", "terms": ["rotate keys"]},
            {"field": "title", "terms": ["rotation"]},
        ],
        "notes": [],
        "rank": 2,
        "of": 7,
        "anchors": ["src/k.py"],
    }


def test_a_pointer_by_meaning_names_its_place_and_no_similarity() -> None:
    found = (fusion.Neighbour("a", "title and summary", 0.61), 3)
    made = pointer.by_meaning(Taxonomy(), pointer.Candidate(0.0, doc("a"), 0), found, 40)
    assert made.evidence == {"by": "meaning", "near": "title and summary", "rank": 3, "of": 40}


def test_a_successor_moves_in_front_and_following_offers_the_entry_in_force() -> None:
    old = doc("old", superseded_by=("mid",))
    mid = doc("mid", supersedes=("old",), superseded_by=("new",))
    new = doc("new", supersedes=("mid",))
    index = Index([old, mid, new])
    block = [pointer.Pointer(e, "", {"by": "terms"}) for e in (old, doc("x"), mid)]
    index = Index([old, mid, new, block[1].entry])
    moved = pointer.succession(index, block, follow=False)
    assert [p.entry.id for p in moved] == ["mid", "old", "x"]
    assert moved[1].superseded_by == "mid"
    followed = pointer.succession(index, block, follow=True)
    assert [p.entry.id for p in followed][:1] == ["new"]
    assert followed[0].evidence == {"by": "succession", "from": "old"}


def test_a_ranked_pointer_near_by_meaning_too_says_both() -> None:
    reached = rank.Reach(("rotation",), (("title", ("rotation",)),))
    found = (fusion.Neighbour("a", "title and summary", 0.7), 2)
    made = pointer.ranked(
        Taxonomy(), pointer.Candidate(1.0, doc("a"), 0), reached, (1, 7), {}, {}, found, 40
    )
    assert made.evidence["by"] == "terms" and made.evidence["terms"] == ["rotation"]
    assert made.evidence["meaning"] == {"near": "title and summary", "rank": 2, "of": 40}
