"""Requests as they arrive (JSON bodies) -> the typed records the engine answers.

Every member is checked here, once, for every entry point: a malformed request raises
RequestError naming the member and what to send instead, and nothing past this module
looks at a raw body again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import orjson

from router.base.errors import MalformedJsonError, RequestError
from router.catalog.config import MEANING_MODES, Config
from router.filters import intent, symbols
from router.filters.relevance import DEFAULT_THRESHOLD, Chunk, Focus
from router.route import contract

_ROUTE_USAGE = 'Send {"task": "..."}'


@dataclass(frozen=True, slots=True)
class FocusAsk:
    """The file a request is about: its path as sent, and its text when the request holds it
    (else the engine reads it, inside the repository only)."""

    path: str
    content: str | None = None


@dataclass(frozen=True, slots=True)
class RouteAsk:
    """A route request: the validated request (focus still unread), and whether the task's
    intent picks the strategy (`strategy: "auto"`) and, unless a budget was sent, the budget."""

    request: contract.Request
    focus: FocusAsk | None = None
    auto: bool = False
    budget_given: bool = False
    meaning: str = "off"  # the meaning mode for this route (the config's unless sent)


@dataclass(frozen=True, slots=True)
class ExplainAsk:
    """A request for seed 1's explain record."""

    request: contract.Request
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class RelevanceAsk:
    """A relevance-filter request (DESIGN 8)."""

    focus: Focus
    chunks: tuple[Chunk, ...]
    threshold: float = DEFAULT_THRESHOLD


def decode(raw: bytes) -> Any:
    """Return the decoded JSON of a body (None for an empty one). Raises MalformedJsonError."""
    try:
        return orjson.loads(raw) if raw else None
    except orjson.JSONDecodeError as error:
        raise MalformedJsonError(f"the body is not valid JSON: {error}", _ROUTE_USAGE) from None


def members(body: Any, usage: str = _ROUTE_USAGE) -> Mapping[str, Any]:
    """Return a body that must be a JSON object. Raises RequestError otherwise."""
    if not isinstance(body, Mapping):
        raise RequestError(f"the request must be a JSON object, not {_json_type(body)}", usage)
    return body


def route(body: Any, config: Config) -> RouteAsk:
    """Return the route request of a decoded body, with the config's defaults. Raises
    RequestError naming the member that is missing or of the wrong type."""
    body = members(body)
    task = body.get("task")
    if not isinstance(task, str):
        raise RequestError("`task` is missing or not text", _ROUTE_USAGE)
    paths = body.get("paths", [])
    if isinstance(paths, str):
        paths = [paths]
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise RequestError("`paths` must be a list of file paths", 'Send "paths": ["src/a.py"]')
    strategy = _text(body, "strategy")
    if strategy is not None and strategy != "auto" and strategy not in intent.DEFAULTS:
        raise RequestError(
            f"strategy is {strategy!r}", f"Use auto or one of {', '.join(intent.DEFAULTS)}"
        )
    request = contract.check(
        contract.Request(
            task=task,
            budget=_int(body, "budget", config.budget),
            order=_text(body, "order") or config.order,
            domain=_text(body, "domain"),
            cluster=_text(body, "cluster"),
            kind=_text(body, "kind"),
            purpose=_text(body, "purpose"),
            paths=tuple(paths),
            strategy=strategy,
            root=str(config.root),
        )
    )
    meaning = _text(body, "meaning") or config.meaning_mode
    if meaning not in MEANING_MODES:
        raise RequestError(f"meaning is {meaning!r}", f"Use one of {', '.join(MEANING_MODES)}")
    return RouteAsk(
        request,
        _focus(body.get("focus")),
        strategy == "auto",
        body.get("budget") is not None,
        meaning,
    )


def explain(body: Any) -> ExplainAsk:
    """Return the explain request of `{task|problem, domain?, cluster?, kind?, purpose?,
    limit?}`. Raises RequestError for a malformed one."""
    body = members(body)
    problem = body.get("task", body.get("problem"))
    if not isinstance(problem, str):
        raise RequestError("`task` is missing or not text", _ROUTE_USAGE)
    limit = body.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise RequestError("`limit` must be a whole number of at least 1", "Fix the limit")
    request = contract.Request(
        task=problem,
        domain=_text(body, "domain"),
        cluster=_text(body, "cluster"),
        kind=_text(body, "kind"),
        purpose=_text(body, "purpose"),
    )
    return ExplainAsk(request, limit)


@dataclass(frozen=True, slots=True)
class WhyNotAsk:
    """A why-not request: the entry (an id or a path) and the route request it is read from."""

    entry: str
    route: RouteAsk


_WHY_NOT_USAGE = 'Send {"entry": "id-or-path", "task": "..."}'


def why_not(body: Any, config: Config) -> WhyNotAsk:
    """Return the why-not request of `{entry, task, ...the route request's members}`.
    Raises RequestError for a missing entry or a malformed route member."""
    body = members(body, _WHY_NOT_USAGE)
    entry = body.get("entry")
    if not isinstance(entry, str) or not entry.strip():
        raise RequestError("`entry` is missing or not text", _WHY_NOT_USAGE)
    return WhyNotAsk(entry.strip(), route(body, config))


def catalog_kind(body: Any, query: Mapping[str, list[str]]) -> str | None:
    """Return the kind a catalog listing asks for: `{"kind"}` in a body, else `?kind=` in
    the URL, else None (every kind). Raises RequestError for a kind that is not text."""
    if body is None:
        asked = query.get("kind")
        return asked[0] if asked and asked[0] else None
    return _text(members(body, 'Send {"kind": "..."} or nothing'), "kind")


def intent_text(body: Any) -> str:
    """Return the text of an intent request, `{text}` (or `{task}`). Raises RequestError."""
    body = members(body, 'Send {"text": "..."}')
    text = body.get("text", body.get("task"))
    if not isinstance(text, str):
        raise RequestError("`text` is missing or not text", 'Send {"text": "..."}')
    return text


def logged(body: Mapping[str, Any]) -> dict[str, Any]:
    """Return the request members worth logging (not the task, which has its own field)."""
    keep = ("budget", "order", "strategy", "paths", "domain", "cluster", "kind", "purpose")
    out = {k: body[k] for k in keep if body.get(k) is not None}
    focus = body.get("focus")
    if focus is not None:
        out["focus"] = focus.get("path") if isinstance(focus, Mapping) else focus
    return out


def _focus(value: Any) -> FocusAsk | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = {"path": value}
    if not isinstance(value, Mapping) or not isinstance(value.get("path"), str):
        raise RequestError('`focus` must be a path or {"path": ...}', "Fix the focus")
    content = value.get("content")
    if content is not None and not isinstance(content, str):
        raise RequestError("`focus.content` must be text", "Send the file's text or omit it")
    return FocusAsk(value["path"], content)


def _text(body: Mapping[str, Any], name: str) -> str | None:
    value = body.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise RequestError(f"`{name}` must be text", f"Send {name} as a string")
    return value


def _int(body: Mapping[str, Any], name: str, default: int) -> int:
    value = body.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RequestError(f"`{name}` must be a whole number", f"Send {name} as a number")
    if int(value) != value:
        raise RequestError(f"`{name}` must be a whole number, not {value}", "Drop the fraction")
    return int(value)


# -- relevance -------------------------------------------------------------------------------

_USAGE = 'send {"focus": {"path": "..."}, "chunks": [{"text": "..."}], "threshold": 0.3}'


def _json_type(value: object) -> str:
    """Return the JSON name of a decoded value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _symbol_list(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise RequestError(f"{where} must be an array of strings", _USAGE)
    return tuple(dict.fromkeys(item for item in value if item))


def _parse_focus(obj: Mapping[str, Any]) -> Focus:
    if "focus" in obj and "focus_file" in obj and obj["focus"] != obj["focus_file"]:
        raise RequestError("the request has both focus and focus_file, and they differ", _USAGE)
    key = "focus" if "focus" in obj else "focus_file"
    if key not in obj:
        raise RequestError("the request has no focus", _USAGE)
    focus = obj[key]
    if not isinstance(focus, dict):
        raise RequestError(f"{key} must be an object, not {_json_type(focus)}", _USAGE)
    path = focus.get("path")
    if path is None:
        raise RequestError(f"{key}.path is missing", "give the path of the file under edit")
    if not isinstance(path, str) or not path.strip():
        raise RequestError(f"{key}.path must be a non-empty string", "give the file's path")
    content = focus.get("content", "")
    if not isinstance(content, str):
        raise RequestError(f"{key}.content must be a string, not {_json_type(content)}", _USAGE)
    found = symbols.classify(content, path)
    defined = found.defined
    if "defined_symbols" in focus:
        defined = _symbol_list(focus["defined_symbols"], f"{key}.defined_symbols")
    imported = found.imported
    if "imported_symbols" in focus:
        imported = _symbol_list(focus["imported_symbols"], f"{key}.imported_symbols")
    own = set(defined)
    imported = tuple(name for name in imported if name not in own)
    return Focus(path=path, content=content, defined=defined, imported=imported)


def _optional_string(chunk: Mapping[str, object], member: str, index: int) -> str:
    value = chunk.get(member)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RequestError(
            f"chunks[{index}].{member} must be a string, not {_json_type(value)}", _USAGE
        )
    return value


def _parse_chunks(obj: Mapping[str, Any]) -> list[Chunk]:
    if "chunks" not in obj:
        raise RequestError("the request has no chunks", _USAGE)
    raw_chunks = obj["chunks"]
    if not isinstance(raw_chunks, list):
        raise RequestError(f"chunks must be an array, not {_json_type(raw_chunks)}", _USAGE)
    if not raw_chunks:
        raise RequestError("chunks is empty", "send at least one chunk to score")
    chunks: list[Chunk] = []
    for index, raw in enumerate(raw_chunks):
        if not isinstance(raw, dict):
            raise RequestError(f"chunks[{index}] must be an object, not {_json_type(raw)}", _USAGE)
        text = raw.get("text")
        if not isinstance(text, str):
            raise RequestError(
                f"chunks[{index}] has no string text ({_json_type(text)})",
                'give every chunk a "text" string',
            )
        chunks.append(
            Chunk(
                source=_optional_string(raw, "source", index),
                doc_id=_optional_string(raw, "doc_id", index),
                text=text,
                raw=MappingProxyType(dict(raw)),
            )
        )
    return chunks


def _parse_threshold(obj: Mapping[str, Any]) -> float:
    if "threshold" not in obj:
        return DEFAULT_THRESHOLD
    value = obj["threshold"]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RequestError(f"threshold must be a number, not {_json_type(value)}", _USAGE)
    try:
        threshold = float(value)
    except OverflowError:
        threshold = math.inf
    if not math.isfinite(threshold):
        raise RequestError(f"threshold must be a finite number, not {threshold}", _USAGE)
    return threshold


def relevance(obj: object) -> RelevanceAsk:
    """Return the focus, chunks and threshold of a decoded JSON relevance request.

    Accepts `{focus | focus_file: {path, content?, defined_symbols?, imported_symbols?},
    chunks: [{text, source?, doc_id?, ...}], threshold?}`. Symbols not given are extracted
    from `content` by `symbols.classify`; a symbol both defined and imported is defined.
    Raises RequestError for: not an object; missing, non-array or empty chunks; a chunk that
    is not an object, lacks string text, or has a non-string source/doc_id (null is read as
    absent); missing or non-object focus; missing or empty focus.path; a non-string content;
    symbol lists that are not arrays of strings; focus and focus_file both given and
    different; a threshold that is not a number (booleans and null are not) or not finite.
    """
    obj = members(obj, _USAGE)
    chunks = _parse_chunks(obj)
    focus = _parse_focus(obj)
    return RelevanceAsk(focus, tuple(chunks), _parse_threshold(obj))
