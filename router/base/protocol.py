"""What the daemon and its clients agree on: headers, endpoints, where a repository's config
and daemon are found, and the status file. Standard library only (the hook imports it).

The shell shims (`hooks/lib.sh`) name the socket the same way; a test pins them to `places`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from router.base import paths, wire

# Not typing's: importing typing costs every hook process time (`bench.py --imports`; mypy
# and ruff go by the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# what a client finds and sends (`wire`), named here for the daemon's side too
CONFIG_NAME = wire.CONFIG_NAME
VERSION_HEADER = wire.VERSION_HEADER
SOURCE_HEADER = wire.SOURCE_HEADER
TIMEOUT_HEADER = wire.TIMEOUT_HEADER
HOOK_PREFIX = "/v1/hook/"  # POST /v1/hook/<harness>/<event>: exactly what the hook prints
# `?config=<digest>` on any request: answer it only when the config in force has this digest
# (`config.Config.digest`), else 412 `config` (`wire.CONFIG_QUERY`)
CONFIG_QUERY = wire.CONFIG_QUERY
START_LOCK_SUFFIX = ".starting"
SERVING_LOCK_SUFFIX = ".lock"


def find_config(start: Path) -> Path | None:
    """Return the nearest kroute.toml at or above `start` (made absolute), or None."""
    found = wire.find_config(str(start))
    return None if found is None else Path(found)


def places_of(root: Path, config_file: Path | None, env: Mapping[str, str]) -> paths.Places:
    """Return where the daemon of a resolved repository root and config file keeps its
    socket and status file, for the current user."""
    return paths.places(root, config_file, env, os.getuid())


def root_file(places: paths.Places) -> Path:
    """Return the file beside a daemon's socket that names the root and config it serves,
    one per line: the shims find a socket by reading these, which spawns no process (a
    hash in shell costs three)."""
    return places.status.with_suffix(".root")


def start_lock(places: paths.Places, pid: int) -> Path:
    """Return the start lock of the daemon process `pid`: a file beside its socket, holding
    the pid, that exists from its spawn until its status file is written. One per process,
    so two daemons spawned at once (racing hooks) never overwrite each other's."""
    return places.runtime / f"{places.key}.{pid}{START_LOCK_SUFFIX}"


def serving_lock(places: paths.Places) -> Path:
    """Return the file a daemon holds an exclusive flock on from before it looks for another
    daemon of its root until it exits: of daemons spawned at once, one serves."""
    return places.runtime / f"{places.key}{SERVING_LOCK_SUFFIX}"


def start_locks(places: paths.Places) -> list[Path]:
    """Return the start locks beside a daemon's socket (none when the directory is missing)."""
    return sorted(places.runtime.glob(f"{places.key}.*{START_LOCK_SUFFIX}"))


def write_root(places: paths.Places, root: Path, config_file: Path | None) -> None:
    """Write the daemon's root file (see `root_file`) in one step."""
    target = root_file(places)
    _replace(target, target.with_suffix(".root-tmp"), f"{root}\n{config_file or ''}\n")


def read_status(status: Path) -> dict[str, Any] | None:
    """Return a daemon's status file, or None when there is none (or it is unreadable)."""
    import json  # here, not above: the hook's fast path never reads a status file

    try:
        found = json.loads(status.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def write_status(status: Path, document: Mapping[str, Any]) -> None:
    """Replace a daemon's status file in one step (a reader never sees half of it)."""
    import json

    _replace(status, status.with_suffix(".tmp"), json.dumps(dict(document), sort_keys=True))


def _replace(target: Path, temporary: Path, text: str) -> None:
    """Write `text` to `temporary` (0600, never through a symlink) and rename it over
    `target`."""
    fd = paths.open_private(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    with open(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, target)
