"""Where state, logs and sockets live (DESIGN 10). One resolver; the environment is passed
in by the caller, so nothing here reads os.environ. Standard library only (hooks import it).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# AF_UNIX paths are limited to 108 bytes on Linux (104 on macOS); stay well under both.
MAX_SOCKET_PATH = 100


@dataclass(frozen=True, slots=True)
class Places:
    """The files of one repository's daemon."""

    key: str  # short hash naming this root + config
    runtime: Path  # 0700 directory holding the socket and the status file
    socket: Path
    status: Path
    state: Path  # $KROUTE_HOME: logs, shadow log
    log: Path


def key(root: Path, config_file: Path | None) -> str:
    """Return the short name of a daemon: a hash of its repository root and config file."""
    text = f"{root}\0{config_file or ''}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def state_dir(env: Mapping[str, str]) -> Path:
    """Return $KROUTE_HOME, else $XDG_STATE_HOME/kroute, else ~/.local/state/kroute."""
    if env.get("KROUTE_HOME"):
        return Path(env["KROUTE_HOME"])
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / "kroute"
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".local" / "state" / "kroute"


def runtime_dir(env: Mapping[str, str], uid: int) -> Path:
    """Return $XDG_RUNTIME_DIR/kroute, else /tmp/kroute-<uid>."""
    if env.get("XDG_RUNTIME_DIR"):
        return Path(env["XDG_RUNTIME_DIR"]) / "kroute"
    return Path("/tmp") / f"kroute-{uid}"


def places(root: Path, config_file: Path | None, env: Mapping[str, str], uid: int) -> Places:
    """Return the socket, status and log paths of the daemon for `root`. A runtime dir too
    deep for a socket path falls back to /tmp/kroute-<uid>."""
    name = key(root, config_file)
    runtime = runtime_dir(env, uid)
    if len(str(runtime / f"{name}.sock")) > MAX_SOCKET_PATH:
        runtime = Path("/tmp") / f"kroute-{uid}"
    state = state_dir(env)
    return Places(
        key=name,
        runtime=runtime,
        socket=runtime / f"{name}.sock",
        status=runtime / f"{name}.json",
        state=state,
        log=state / "logs" / f"{name}.log",
    )


def private_dir(path: Path) -> Path:
    """Create `path` (and parents) and make it 0700. Returns it."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    return path
