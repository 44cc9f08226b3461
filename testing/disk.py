"""Files a test writes into its temporary tree."""

from __future__ import annotations

from pathlib import Path


def write(root: Path, relpath: str, text: str | bytes) -> Path:
    """Write `text` (UTF-8 when a str) to root/relpath, making its folders; return the file."""
    file = root / relpath
    file.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        file.write_bytes(text)
    else:
        file.write_text(text, encoding="utf-8")
    return file
