"""Running the daemon in the foreground (`kroute serve`; `kroute start` detaches it): the
socket first, then the catalog loaded on a thread of its own (`Daemon.prepare`), the file
watcher, the keeper that exits an idle daemon, and the signals that stop it. The environment
is read here and nowhere below."""

from __future__ import annotations

import functools
import math
import os
import signal
import sys
import threading
import traceback
from collections.abc import Mapping

from router import __version__
from router.base.errors import ConfigError, DaemonError
from router.catalog.config import Config
from router.client import Target, locate, presence, trust
from router.serve import loader, server, watch
from router.serve.daemon import KEEPER_SECONDS, WATCH_READY_SECONDS, Daemon
from router.serve.update import timestamp

# Tests set this (seconds, 0 for never) instead of writing `[daemon] idle_minutes`.
IDLE_ENV = "KROUTE_IDLE_SECONDS"
# Tests set this to have a snapshot written however fast the cold load was (seconds).
SNAPSHOT_ENV = "KROUTE_SNAPSHOT_AFTER"


def serve(
    config: Config,
    env: Mapping[str, str],
    *,
    version: str = __version__,
    changes: watch.Changes = watch.changes,
) -> int:
    """Run the daemon in the foreground until shut down, idle for the config's idle time
    (`env`'s KROUTE_IDLE_SECONDS overrides it), or left without its root. Returns the exit
    status.

    Raises DaemonError when another daemon already serves this root, ConfigError when
    KROUTE_IDLE_SECONDS is not a number of seconds."""
    from router.serve import launcher

    try:
        return _serve(config, env, version=version, changes=changes)
    finally:
        # Whether it served or failed to start, it is no longer starting: `stop` (which
        # signals the pid a start lock names) must not find its lock.
        launcher.drop_start_lock(locate.places(config.root, config.file, env))


def _serve(config: Config, env: Mapping[str, str], *, version: str, changes: watch.Changes) -> int:
    """Run the daemon in the foreground: see `serve`. Returns the exit status."""
    from router import client
    from router.serve import launcher

    idle_seconds = _idle_override(env)
    snapshot_after = _seconds(env, SNAPSHOT_ENV, loader.SNAPSHOT_AFTER_SECONDS)

    t = client.target(config.root, config.file, env)
    places = t.places
    _claim(t, version)
    running = Daemon(
        config, places, version=version, idle_seconds=idle_seconds, snapshot_after=snapshot_after
    )
    watching = threading.Event()
    # Watch first, then read the catalog and answer: an edit made once `kroute start`
    # returns is never missed. A snapshot is read while the watches are being set.
    threading.Thread(
        target=_watch, args=(running, changes, watching), name="watcher", daemon=True
    ).start()

    def armed() -> None:
        watching.wait(WATCH_READY_SECONDS)

    old_umask = os.umask(0o177)  # the socket is created 0600
    try:
        listener = server.Server(str(places.socket), running)
    finally:
        os.umask(old_umask)
    os.chmod(places.socket, 0o600)
    _write_status(places, config, version, running.started_at)
    presence.write_root(places, config.root, config.file)
    launcher.drop_start_lock(places)  # started: from now on `stop` finds it by its status file
    print(
        f"{running.started_at} serving {config.root} on {places.socket}, loading the catalog",
        file=sys.stderr,
        flush=True,
    )
    threading.Thread(target=running.prepare, args=(armed,), name="loader", daemon=True).start()
    threading.Thread(
        target=running.vectors.run, args=(running.stop,), name="vectors", daemon=True
    ).start()

    def stopper() -> None:
        running.stop.wait()
        listener.shutdown()

    threading.Thread(target=stopper, name="stopper", daemon=True).start()
    threading.Thread(target=_keep, args=(running,), name="keeper", daemon=True).start()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: running.stop.set())
    try:
        listener.serve_forever(poll_interval=0.2)
    finally:
        running.stop.set()
        listener.server_close()
        running.vectors.close()  # its meaning process: it would notice the exit too, later
        if (client.read_status(t) or {}).get("pid") == os.getpid():
            client.clean(t)
        print(f"{timestamp()} stopped", file=sys.stderr, flush=True)
    return 0


def _claim(t: Target, version: str) -> None:
    """Make the daemon's state and runtime directories and take the serving lock, held until
    this process exits: of daemons spawned at once, the one that holds it serves, and none
    cleans up after another that is still starting. Raises DaemonError when another daemon
    holds the lock or serves the target."""
    from router import client
    from router.serve import launcher

    places = t.places
    trust.prepare(places.state, state=places.state)  # its logs, snapshots and prompts
    trust.private_dir(places.runtime)
    if launcher.hold_serving(places) is None:
        raise DaemonError(
            f"already running or starting: another daemon holds {presence.serving_lock(places)}",
            "Stop it first: kroute stop",
        )
    current, sentence = client.state(t, version)
    if current in ("running", "other-version"):
        raise DaemonError(f"already running: {sentence}", "Stop it first: kroute stop")
    client.clean(t)


def _watch(running: Daemon, changes: watch.Changes, watching: threading.Event) -> None:
    """Follow the catalog's changes for `running` until it stops, applying each burst once
    no snapshot is being written, and a census when one is due; `watching` is set once the
    watches are (or the watcher failed: it must not keep the daemon from serving)."""
    try:
        batches = watch.follow(running.watch_targets, running.stop, running.rearm, changes)
        busy = functools.partial(watch.git_busy, running.config.root)
        for batch in watch.bursts(batches, busy, running.pending.set):
            watching.set()
            if not (batch.resync or batch.paths):
                if running.census_due():
                    running.census()
                continue
            while not running.settled.wait(KEEPER_SECONDS):  # a snapshot being written
                if running.stop.is_set():
                    return
            running.apply(set(batch.paths), resync=batch.resync)
    except Exception:
        traceback.print_exc(file=sys.stderr)
    finally:
        watching.set()


def _keep(running: Daemon) -> None:
    """Stop `running` once it has a reason to exit (idle, its socket gone: `exit_reason`)."""
    while not running.stop.wait(KEEPER_SECONDS):
        reason = running.exit_reason()
        if reason is not None:
            print(f"{timestamp()} exiting: {reason}", file=sys.stderr, flush=True)
            running.stop.set()


def _idle_override(env: Mapping[str, str]) -> float | None:
    """Return the idle time KROUTE_IDLE_SECONDS sets (seconds, 0 for never), or None when it
    is unset. Raises ConfigError for a value that is not a number of seconds."""
    if not env.get(IDLE_ENV, "").strip():
        return None
    return _seconds(env, IDLE_ENV, 0.0, ", 0 for never")


def _seconds(env: Mapping[str, str], name: str, default: float, zero: str = "") -> float:
    """Return the seconds the variable `name` sets, `default` when it is unset. Raises
    ConfigError for a value that is not a number of seconds (`zero` says what 0 means)."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        raise ConfigError(f"{name} is {raw!r}", f"Set it to a number of seconds{zero}")
    return seconds


def _write_status(places: locate.Places, config: Config, version: str, started_at: str) -> None:
    presence.write_status(
        places.status,
        {
            "pid": os.getpid(),
            "socket": str(places.socket),
            "version": version,
            "root": str(config.root),
            "config": str(config.file) if config.file else None,
            "started_at": started_at,
        },
    )
