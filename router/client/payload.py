"""A hook's payload as the harness sends it: a JSON object whose members are snake_case or
camelCase. Standard library only: `kroute-hook` reads the working directory it names without
importing anything heavy, and the service reads the rest with it."""

import json

TYPE_CHECKING = False  # not typing's: importing it costs every hook process (bench --imports)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def decode(raw: "bytes | str") -> "dict[str, Any] | None":
    """Return the payload object, or None when it is not a JSON object."""
    try:
        value = json.loads(raw) if raw else None
    except (ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def member(payload: "Mapping[str, Any]", snake: str) -> "Any":
    """Return a payload member by its snake_case name or its camelCase twin."""
    if snake in payload:
        return payload[snake]
    head, *rest = snake.split("_")
    return payload.get(head + "".join(part.title() for part in rest))
