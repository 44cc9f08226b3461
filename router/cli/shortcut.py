"""`kroute route TASK`, `kroute status` and `kroute stop` answered by a running daemon without
click, the engine or anything but the standard library's built-in modules: a command that
only asks the daemon costs little more than the interpreter's start.

Only those exact command lines, with a kroute.toml found from the working directory and no
KROUTE_CONFIG, and only when that config's daemon runs this version, are answered here; in
every other case, and whenever anything is not as the common case has it, nothing is printed
and `answered` returns None: the full command line (click) answers, with its own output,
checks and errors. What is printed here is what it prints, byte for byte (tests compare
them). The request names the digest of the config file read here, so a daemon serving
another (the file edited since, or invalid and not taken up) refuses it (412) and click,
which reads and checks the file, answers instead.

Imports what the interpreter has loaded at start and `_json`, `_socket` and `router.client`
besides (no re, json, pathlib, socket or click: a test pins it), and `shown` to print a route.
"""

import os
import sys
import time

from router import __version__
from router.base.errors import DaemonError
from router.client import locate, presence, trust, wire

# Not typing's, and no __future__: each costs every command some milliseconds (`wire`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

try:  # json's C half: its scanner and string encoder, without the `re` json imports
    import _json
except ImportError:  # another interpreter: click answers
    _json = None  # type: ignore[assignment]

TIMEOUT = 5.0  # seconds, as `launcher.ask` and `client.call` wait by default
STOP_WAIT = 3.0  # seconds `launcher.stop` waits after each signal
SIGTERM, SIGKILL = 15, 9  # POSIX's numbers (`signal` imports enum: milliseconds)
OK = 200
# The settings files `kroute status` reads for installed hooks, per harness: its directory and
# its project, local (None: none) and user file (`registry.AGENTS`; a test pins them). Any
# that holds kroute's hook command (or a JSON escape that may spell one) is for click.
HOOK_SETTINGS = (
    (".claude", "settings.json", "settings.local.json", "settings.json"),
    (".codex", "hooks.json", None, "hooks.json"),
    (".gemini", "settings.json", None, "settings.json"),
)
HOOK_MARKS = (b"KROUTE_HOOK_BIN=", b"\\u")  # install.MARKER, and an escape that may spell it


class Daemon:
    """The running daemon of the config found from the working directory."""

    __slots__ = ("config_file", "digest", "key", "pid", "root", "runtime", "socket", "status")

    def __init__(self, root: str, config_file: str, digest: str, env: "Mapping[str, str]"):
        self.root = root
        self.config_file = config_file
        self.digest = digest  # `config.Config.digest` of the file as read here
        self.key = locate.key(root, config_file)
        self.runtime = locate.socket_dir(env, os.getuid(), self.key)
        self.socket = os.path.join(self.runtime, self.key + locate.SOCKET_SUFFIX)
        self.status = os.path.join(self.runtime, self.key + locate.STATUS_SUFFIX)
        self.pid = 0


def answered(args: "list[str]", env: "Mapping[str, str]") -> "int | None":
    """Return the exit status of the command line `args` once answered here, or None, having
    printed nothing, when click is to answer it (see the module's docstring)."""
    if _json is None or env.get("KROUTE_CONFIG"):
        return None
    command: Callable[[Daemon, Mapping[str, str]], int | None]
    if args == ["status"]:
        command = _status
    elif args == ["stop"]:
        command = _stop
    elif len(args) == 2 and args[0] == "route" and not args[1].startswith("-"):
        task = args[1]
        command = lambda daemon, _env: _route(daemon, task)  # noqa: E731
    else:
        return None
    if not _writes_utf8():
        return None
    try:
        daemon = _running(env)
        return None if daemon is None else command(daemon, env)
    # anything amiss, or not the user's own: click says what
    except (OSError, ValueError, KeyError, TypeError, DaemonError):
        return None


def _writes_utf8() -> bool:
    """Return whether stdout writes UTF-8, as click's echo then writes to it unchanged."""
    encoding = getattr(sys.stdout, "encoding", None) or ""
    return encoding.lower().replace("_", "-") in ("utf-8", "utf8")


def _running(env: "Mapping[str, str]") -> "Daemon | None":
    """Return the daemon of the kroute.toml found from the working directory when it runs
    this version; None otherwise. Raises OSError or ValueError when something cannot be
    read, DaemonError when the runtime dir or the socket is not the user's own."""
    found = locate.find_config(os.path.realpath(os.getcwd()))
    if found is None:
        return None
    with open(found, "rb") as handle:
        raw = handle.read()
    root, config_file = os.path.realpath(os.path.dirname(found)), os.path.realpath(found)
    daemon = Daemon(root, config_file, locate.digest(raw), env)
    trust.own_socket(daemon.socket)
    with open(daemon.status, encoding="utf-8") as handle:
        found_status = _decode(handle.read())
    if not isinstance(found_status, dict) or found_status.get("version") != __version__:
        return None
    daemon.pid = int(found_status.get("pid", 0))
    return daemon if daemon.pid > 0 else None


def _ask(daemon: Daemon, method: str, path: str, body: bytes = b"") -> "tuple[int, bytes]":
    """Return the status and body of the daemon's answer to one request naming the config's
    digest. Raises DaemonError when the process serving the socket is not the daemon the
    status file names (nothing is sent then), TimeoutError when no answer came within
    TIMEOUT."""
    deadline = time.monotonic() + TIMEOUT
    target = f"{path}?{wire.CONFIG_QUERY}={daemon.digest}"
    sent = wire.request(method, target, body, __version__, "cli", wire.granted(TIMEOUT))
    return wire.exchange(daemon.socket, sent, deadline, daemon.pid)


def _decode(text: str) -> "Any":
    """Return the JSON document `text` holds. Raises ValueError when it holds none."""
    value, end = _scanner()(text, 0)
    if text[end:].strip():
        raise ValueError("trailing data")
    return value


_SCAN: "list[Any]" = []


def _scanner() -> "Any":
    """Return json's C scanner, made once (as json.loads reads: strict, floats and ints)."""
    if not _SCAN:

        class Reading:
            strict = True
            object_hook = None
            object_pairs_hook = None
            parse_float = float
            parse_int = int
            parse_constant = float  # NaN, Infinity
            memo: "dict[str, str]" = {}  # noqa: RUF012  (read by the scanner, as json's is)

        _SCAN.append(_json.make_scanner(Reading()))  # type: ignore[arg-type]
    return _SCAN[0]


def _echo(text: str) -> int:
    """Print `text` and a newline as click's echo does, and return 0; a reader gone away
    ends quietly with the shell's 141, as the full command line does."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141  # group.CLOSED_PIPE
    return 0


# -- the commands -------------------------------------------------------------------------------


def _route(daemon: Daemon, task: str) -> "int | None":
    """`kroute route TASK`: the route's text, as `catalog_commands.route` prints it."""
    encoded = _json.encode_basestring_ascii(task)
    body = f'{{"task": {encoded}, "paths": []}}'.encode("ascii")  # json.dumps of the same
    code, answer = _ask(daemon, "POST", "/v1/route", body)
    if code != OK:
        return None
    document = _decode(answer.decode("utf-8"))
    from router.core import shown

    report = shown.clean(document["text"], lines=True)
    if sys.stdout.isatty() and not os.environ.get("NO_COLOR"):
        report = shown.dim_evidence(report)
    return _echo(report)


def said_running(report: "Mapping[str, Any]") -> str:
    """Return what `kroute status` prints of a running daemon's status (its lines, no
    newline at the end)."""
    loaded = report.get("load") or {}
    how = (
        "still loading the catalog"
        if report.get("phase") == "loading"
        else f"{report['entries']} entries (loaded from {loaded.get('from', '?')} "
        f"in {loaded.get('seconds', 0):.1f} s)"
    )
    lines = [
        f"running: pid {report['pid']}, {how}, "
        f"{report['routes']} routes served, up {report['uptime_s']:.0f} s",
        f"  root {report['root']}",
        f"  socket {report['socket']}",
    ]
    if report.get("updating"):
        lines.append(
            "  updating: changes seen on disk are being read; routes use the catalog before"
        )
    errors, stale = report.get("errors") or 0, report.get("stale") or 0
    if errors or stale:
        lines.append(f"  {errors} errors, {stale} stale files: kroute check says which")
    meaning = report.get("meaning") or {}
    mode = meaning.get("mode") or "off"
    if mode != "off":
        if meaning.get("ready"):
            state = "vectors ready"
        elif meaning.get("error"):
            state = f"unavailable ({meaning['error']}); routes use words"
        else:
            state = "not ready yet; routes use words"
        lines.append(f"  meaning {mode}: {state}")
    return "\n".join(lines)


def _status(daemon: Daemon, env: "Mapping[str, str]") -> "int | None":
    """`kroute status` of a running daemon, when no harness's settings hold kroute's hooks
    (their checks are click's)."""
    if _hooks_may_be_installed(daemon.root, env):
        return None
    code, answer = _ask(daemon, "GET", "/v1/status")
    if code != OK:
        return None
    report = _decode(answer.decode("utf-8"))
    text = said_running(report)
    if "\x1b" in text:  # click strips what reads as a terminal's escape off a pipe
        return None
    return _echo(text)


def _hooks_may_be_installed(root: str, env: "Mapping[str, str]") -> bool:
    """Return whether a harness's settings file may hold kroute's hooks (`checkup.installed`
    reads them): one that holds HOOK_MARKS or is not UTF-8."""
    home = env["HOME"] if "HOME" in env else os.path.expanduser("~")
    for directory, project, local, user in HOOK_SETTINGS:
        places = [(root, project), (root, local), (home, user)]
        for top, name in places:
            if name is None:
                continue
            try:
                with open(os.path.join(top, directory, name), "rb") as handle:
                    held = handle.read()
            except OSError:  # absent or unreadable: `checkup.installed` skips it too
                continue
            try:
                held.decode("utf-8")
            except UnicodeDecodeError:
                return True
            if any(mark in held for mark in HOOK_MARKS):
                return True
    return False


def _stop(daemon: Daemon, env: "Mapping[str, str]") -> "int | None":
    """`kroute stop` of a running daemon that no other start is racing (`launcher.stop`): ask
    it to shut down, wait for it to exit (signalling it past STOP_WAIT), remove its files."""
    suffix = presence.START_LOCK_SUFFIX  # a daemon still starting is click's
    if any(
        name.startswith(f"{daemon.key}.") and name.endswith(suffix)
        for name in os.listdir(daemon.runtime)
    ):
        return None
    code, _ = _ask(daemon, "POST", "/v1/shutdown")
    if code != OK:
        return None
    presence.halt(daemon.pid, (None, SIGTERM, SIGKILL), STOP_WAIT)
    root_file = os.path.join(daemon.runtime, daemon.key + presence.ROOT_SUFFIX)
    for leftover in (daemon.status, daemon.socket, root_file):
        try:  # noqa: SIM105  (contextlib imports what this module is kept from)
            os.unlink(leftover)
        except FileNotFoundError:
            pass
    return _echo("stopped")
