"""Where a repository's daemon is found: the config file above a directory, the daemon's key,
the runtime dir that holds its socket and status file, and the state dir of its logs.

Standard library only and nothing beyond what the interpreter has loaded at start (no pathlib,
re or hashlib at import: each costs every hook process milliseconds); a path may be given as a
string or a `Path`. The shell shims find the same socket (`hooks/lib.sh`, `kroute_socket`); a
test computes it both ways.
"""

import os

# No `from __future__ import annotations` here or in the hook: importing __future__ costs
# every hook process time, so annotations naming what only type checkers import are quoted.
# SHA-256 from Python's own implementation where it has one: `hashlib` loads OpenSSL, which
# costs every hook process more; the digest is the same. (Not typing's TYPE_CHECKING:
# importing typing costs every hook process time too; mypy and ruff go by the name.) What
# each costs: `bench.py --imports`.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from hashlib import sha256
    from pathlib import Path
else:
    try:
        from _sha2 import sha256  # Python 3.12 on
    except ImportError:
        try:
            from _sha256 import sha256  # Python 3.11
        except ImportError:
            from hashlib import sha256

CONFIG_NAME = "kroute.toml"
# AF_UNIX paths are limited to 108 bytes on Linux (104 on macOS); stay well under both.
MAX_SOCKET_PATH = 100
SOCKET_SUFFIX = ".sock"
STATUS_SUFFIX = ".json"


def find_config(start: "str | os.PathLike[str]") -> str | None:
    """Return the nearest kroute.toml at or above the directory `start` (made absolute),
    or None."""
    directory = os.path.abspath(start)
    while True:
        candidate = os.path.join(directory, CONFIG_NAME)
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def key(root: "str | os.PathLike[str]", config_file: "str | os.PathLike[str] | None") -> str:
    """Return the short name of a daemon: a hash of its repository root and config file
    (None or "" for none)."""
    config = os.fspath(config_file) if config_file else ""
    return sha256(f"{os.fspath(root)}\0{config}".encode()).hexdigest()[:12]


def digest(config: bytes) -> str:
    """Return the digest of a config file's bytes, as `config.Config.digest` names it."""
    return sha256(config).hexdigest()[:16]


def runtime_dir(env: "Mapping[str, str]", uid: int) -> str:
    """Return the directory of the user's daemon sockets: $XDG_RUNTIME_DIR/kroute, else
    /tmp/kroute-<uid>."""
    if env.get("XDG_RUNTIME_DIR"):
        return os.path.join(env["XDG_RUNTIME_DIR"], "kroute")
    return f"/tmp/kroute-{uid}"


def socket_dir(env: "Mapping[str, str]", uid: int, name: str) -> str:
    """Return the runtime dir that holds the socket of the daemon `name` (see `key`): the
    user's, unless a socket path in it would be too long, then /tmp/kroute-<uid>."""
    runtime = runtime_dir(env, uid)
    if len(os.path.join(runtime, name + SOCKET_SUFFIX)) > MAX_SOCKET_PATH:
        return f"/tmp/kroute-{uid}"
    return runtime


def socket(
    root: "str | os.PathLike[str]",
    config_file: "str | os.PathLike[str] | None",
    env: "Mapping[str, str]",
    uid: int,
) -> str:
    """Return the socket of the daemon serving a resolved root and config file: what the
    shims' `kroute_socket` finds."""
    name = key(root, config_file)
    return os.path.join(socket_dir(env, uid, name), name + SOCKET_SUFFIX)


def state_dir(env: "Mapping[str, str]") -> "Path":
    """Return $KROUTE_HOME, else $XDG_STATE_HOME/kroute, else ~/.local/state/kroute."""
    from pathlib import Path

    if env.get("KROUTE_HOME"):
        return Path(env["KROUTE_HOME"])
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / "kroute"
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".local" / "state" / "kroute"


# A plain class with slots: a dataclass or a NamedTuple would import dataclasses (and inspect)
# or typing, which cost every hook process time (`bench.py --imports`).
class Places:
    """The files of one repository's daemon."""

    __slots__ = ("key", "log", "runtime", "socket", "state", "status")

    def __init__(
        self,
        *,
        key: str,
        runtime: "Path",
        socket: "Path",
        status: "Path",
        state: "Path",
        log: "Path",
    ) -> None:
        self.key = key  # short hash naming this root + config
        self.runtime = runtime  # 0700 directory holding the socket and the status file
        self.socket = socket
        self.status = status
        self.state = state  # $KROUTE_HOME: logs, shadow log
        self.log = log

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"Places({fields})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Places):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, name) for name in self.__slots__))


def places(
    root: "Path", config_file: "Path | None", env: "Mapping[str, str]", uid: int | None = None
) -> Places:
    """Return the socket, status and log paths of the daemon for `root`, for the user `uid`
    (default: the current one). A runtime dir too deep for a socket path falls back to
    /tmp/kroute-<uid>."""
    from pathlib import Path

    uid = os.getuid() if uid is None else uid
    name = key(root, config_file)
    runtime = Path(socket_dir(env, uid, name))
    state = state_dir(env)
    return Places(
        key=name,
        runtime=runtime,
        socket=runtime / (name + SOCKET_SUFFIX),
        status=runtime / (name + STATUS_SUFFIX),
        state=state,
        log=state / "logs" / f"{name}.log",
    )
