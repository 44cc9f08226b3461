"""Typed exceptions. The core raises these and never prints; the CLI turns them into
`Error: <what happened>. <what to do>` with exit 1.

Standard library only, and no `__future__` import: the hook imports it.
"""


class KrouteError(Exception):
    """Base of every error the router raises on purpose.

    `what` says what happened; `todo` says what the user can do about it.
    """

    def __init__(self, what: str, todo: str = "") -> None:
        super().__init__(what)
        self.what = what.rstrip(".")
        self.todo = todo.rstrip(".")

    def __str__(self) -> str:
        if self.todo:
            return f"{self.what}. {self.todo}."
        return f"{self.what}."


class ConfigError(KrouteError):
    """kroute.toml (or a value in it) is unreadable or invalid."""


class CatalogError(KrouteError):
    """A catalog root cannot be read at all (a single bad file is a diagnostic, not this)."""


class RequestError(KrouteError):
    """A route, explain, intent or relevance request is malformed."""


class EvalError(KrouteError):
    """An evaluation case file or judged set is malformed."""


class DaemonError(KrouteError):
    """The daemon is not running, died, or could not be reached or started."""


class StateError(DaemonError):
    """A directory or file kroute keeps state in (state, shadow log, logs, snapshots,
    runtime) is not the user's alone: another user owns it, may write in it, or it is a
    symbolic link."""


class UnansweredError(DaemonError):
    """The daemon took the request but did not answer it in time: it stops at the same
    deadline, so asking again would only queue the same work behind it."""


class InstallError(KrouteError):
    """A settings file or hook cannot be merged safely."""
