"""Typed exceptions, and the error document a failed request answers. The core raises these
and never prints; the CLI turns them into `Error: <what happened>. <what to do>` with exit 1.

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


class MalformedJsonError(RequestError):
    """The body is not JSON at all."""


class UnansweredError(DaemonError):
    """The daemon took the request but did not answer it in time: it stops at the same
    deadline, so asking again would only queue the same work behind it."""


class OutrunError(DaemonError):
    """Another start got there first: the daemon it spawned serves the target, or is still
    starting, and the one this start spawned has stood down."""


class ExtraMissingError(KrouteError):
    """The `mcp` SDK is not installed."""

    def __init__(self) -> None:
        super().__init__(
            "the MCP server needs the mcp extra",
            "Install it: pip install 'knowledge-router[mcp]'",
        )


class ToolUnavailableError(KrouteError):
    """This kroute has no endpoint for a tool."""

    def __init__(self, tool: str, endpoint: str) -> None:
        super().__init__(
            f"{tool} is not available in this kroute (it has no {endpoint} endpoint)",
            "Upgrade knowledge-router",
        )


class ModelUnavailableError(KrouteError):
    """The embedding path cannot run: the extra is not installed, or the model is missing
    or unreadable. The message names what is missing and the fix."""


class ShadowError(KrouteError):
    """The shadow log cannot be written or read, or a record or request is inconsistent."""


def document(code: str, message: str) -> dict[str, dict[str, str]]:
    """Return the JSON document of a failed request (the daemon's and the in-process
    answer's one error shape): `{"error": {"code": ..., "message": ...}}`."""
    return {"error": {"code": code, "message": message}}


def message_of(answer: object) -> str:
    """Return the message of an error document, "" for anything else."""
    failure = answer.get("error") if isinstance(answer, dict) else None
    message = failure.get("message") if isinstance(failure, dict) else None
    return str(message) if message is not None else ""


class InstallError(KrouteError):
    """A settings file or hook cannot be merged safely."""
