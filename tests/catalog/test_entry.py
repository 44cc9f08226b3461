"""Entry records (router.catalog.entry, DESIGN 4.1): whether an entry is unwarranted and why."""

from __future__ import annotations

import pytest

from router.catalog.entry import Entry


@pytest.mark.parametrize(
    ("status", "warrant", "unwarranted", "reason"),
    [
        ("draft", "", True, "draft"),
        ("Proposed", "", True, "proposed"),
        ("draft", "asserted", True, "draft"),
        ("current", "asserted", True, "asserted"),
        ("current", "proposed", True, "proposed"),
        ("current", "accepted", False, ""),
        ("current", "Accepted", False, ""),
        # an absent warrant is accepted by policy
        ("current", "", False, ""),
        ("", "", False, ""),
        ("deprecated", "", True, "deprecated"),
        ("rejected", "", True, "rejected"),
    ],
)
def test_unwarranted(status: str, warrant: str, unwarranted: bool, reason: str) -> None:
    item = Entry("x", "doc", "docs/x.md", "docs/x.md", status=status, warrant=warrant)
    assert item.unwarranted is unwarranted
    assert item.unreviewed_reason == reason
