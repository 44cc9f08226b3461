"""The tools `kroute mcp` serves: each tool's name, what it is for and the arguments it takes
(`TOOLS`), and the check of a call's arguments against them (`checked`), made before anything
is asked: an unknown argument, a missing or mistyped one are each refused with one sentence
that says what to send instead."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from router.base.errors import RequestError
from router.core import shown


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of a tool: its name, its JSON type (`string`, `array` of strings or
    `integer` of at least 1), whether it is required, and what it is."""

    name: str
    type: str
    says: str
    required: bool = False

    def schema(self) -> dict[str, Any]:
        """Return the argument's JSON schema."""
        out: dict[str, Any] = {"type": self.type, "description": self.says}
        if self.type == "array":
            out["items"] = {"type": "string"}
        if self.type == "integer":
            out["minimum"] = 1
        return out


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its name, what it does (its description for the model), its arguments."""

    name: str
    says: str
    arguments: tuple[Argument, ...]

    def schema(self) -> dict[str, Any]:
        """Return the tool's input schema (no argument beyond those listed)."""
        return {
            "type": "object",
            "properties": {a.name: a.schema() for a in self.arguments},
            "required": [a.name for a in self.arguments if a.required],
            "additionalProperties": False,
        }


TASK = Argument("task", "string", "The task, in the words the user gave it.", required=True)
TOOLS = (
    ToolSpec(
        "route",
        "The few catalog documents worth reading before starting a task, each with the "
        "evidence that chose it, and how many more were withheld. The text is what kroute's "
        "hooks inject; the structured content holds the same pointers as data.",
        (
            TASK,
            Argument("paths", "array", "Files the task is about, relative to the repository."),
            Argument("budget", "integer", "The most pointers to offer, 5 by default."),
        ),
    ),
    ToolSpec(
        "explain",
        "Every catalog entry the task's words reach, with its score and each of the five "
        "tiers' share of it: structured routing fields, title and summary text, open_first, "
        "notes, and the body.",
        (TASK,),
    ),
    ToolSpec(
        "governing",
        "The catalog documents that govern a file (their `governs` paths or globs cover it): "
        "read them before editing it. A file outside the repository has none.",
        (Argument("path", "string", "A file of the repository, from its root.", required=True),),
    ),
    ToolSpec(
        "catalog",
        "The catalog's entries (id, path, kind, title and summary of each), only those of one "
        "kind when `kind` is given.",
        (Argument("kind", "string", "Only entries of this kind: decision, skill, rule, ..."),),
    ),
    ToolSpec(
        "why_not",
        "Why a catalog entry was or was not offered for a task: the task's words it holds and "
        "lacks, its place in the score order, and the step that withheld it.",
        (TASK, Argument("entry", "string", "The entry's id, or its path.", required=True)),
    ),
)
SPECS = {spec.name: spec for spec in TOOLS}


def checked(spec: ToolSpec, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Return a tool call's arguments once they hold what the tool takes (None values left
    out). Raises RequestError naming the first argument that does not, and what to send."""
    known = {a.name: a for a in spec.arguments}
    listed = ", ".join(f"`{a.name}`" for a in spec.arguments)
    for name in arguments:
        if name not in known:
            raise RequestError(
                f"`{spec.name}` takes no argument `{shown.flat(str(name))}`",
                f"Its arguments are {listed}",
            )
    given = {k: v for k, v in arguments.items() if v is not None}
    for argument in spec.arguments:
        if argument.name not in given:
            if argument.required:
                raise RequestError(
                    f"`{spec.name}` needs `{argument.name}`: {_lowered(argument.says)}",
                    f"Call it again with `{argument.name}`",
                )
            continue
        _check(spec, argument, given[argument.name])
    return given


def _check(spec: ToolSpec, argument: Argument, value: Any) -> None:
    """Raise RequestError when `value` is not of the argument's type."""
    if argument.type == "string":
        fits, wanted = isinstance(value, str), "text"
    elif argument.type == "array":
        fits = isinstance(value, list) and all(isinstance(v, str) for v in value)
        wanted = 'a list of text, such as ["src/app.py"]'
    else:
        fits = isinstance(value, int) and not isinstance(value, bool) and value >= 1
        wanted = "a whole number of at least 1"
    if not fits:
        given = shown.flat(json.dumps(value, ensure_ascii=False))
        # clipped with the one-character ellipsis: the error ends on the value, and three
        # full stops there would be taken off with the sentence's own (KrouteError)
        given = given if len(given) <= 60 else given[:59] + "\u2026"
        raise RequestError(
            f"`{argument.name}` of `{spec.name}` is {given}",
            f"Send {wanted}: {_lowered(argument.says)}",
        )


def _lowered(sentence: str) -> str:
    """Return a description as the end of a sentence: first letter lower-cased, no stop."""
    sentence = sentence.rstrip(".")
    return sentence[:1].lower() + sentence[1:]
