"""Whether a daemon is there (router.client.presence): its status file, written whole."""

from __future__ import annotations

from pathlib import Path

from router.client import presence


def test_the_status_file_is_replaced_whole(tmp_path: Path) -> None:
    status = tmp_path / "abc.json"
    assert presence.read_status(status) is None
    presence.write_status(status, {"pid": 7, "socket": "s"})
    assert presence.read_status(status) == {"pid": 7, "socket": "s"}
    status.write_text("[1]")
    assert presence.read_status(status) is None
    assert not status.with_suffix(".tmp").exists()
