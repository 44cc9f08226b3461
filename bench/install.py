"""Venvs the bench makes under --workdir for what the project's venv must never hold: the
anchors, and this checkout installed as a user's regular install."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

INSTALL_TIMEOUT_S = 900


def venv(venv: Path, *install: str) -> str | None:
    """Make a fresh venv at `venv` (`python -m venv --clear`) and pip-install `install` (pip's
    arguments) into it; return None when both steps worked, else why not (the last line
    the failing step said)."""
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    try:
        for step in (
            [sys.executable, "-m", "venv", "--clear", str(venv)],
            [*pip, "--disable-pip-version-check", *install],
        ):
            subprocess.run(
                step, check=True, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S
            )
    except (OSError, subprocess.SubprocessError) as error:
        said = (getattr(error, "stderr", None) or str(error)).strip().splitlines()
        return said[-1] if said else type(error).__name__
    return None
