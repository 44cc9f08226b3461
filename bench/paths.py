"""Where the bench finds the checkout it measures and the shared corpora beside it."""

from __future__ import annotations

import os
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
DEMO = REPOSITORY / "fixtures" / "catalogs" / "demo"
HOOKS = REPOSITORY / "hooks"


def shared() -> Path:
    """Return the shared data folder: KROUTE_SHARED, else `shared` beside the checkout."""
    return Path(os.environ.get("KROUTE_SHARED", REPOSITORY.parent / "shared"))


def child_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """Return `env` (default: this process's) with the checkout first on PYTHONPATH, so that a
    child interpreter can run `python -m bench...`."""
    env = dict(os.environ if env is None else env)
    before = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(REPOSITORY) + (os.pathsep + before if before else "")
    return env
