"""Which files a harness event says the agent opened (DESIGN 12: the shadow log's reads).

Pure and standard library only. Claude Code's PostToolUse on `Read` names the file it read;
Gemini CLI's AfterTool on `read_file` names it too; Codex CLI has no reading tool of its own
and reads with shell commands, so its PostToolUse on a shell tool names the files a reading
command (`cat`, `sed -n`, `head`, `nl`...) takes as arguments. Anything else opened nothing.
Which of those files are catalog documents is the catalog's to say (`router.logbook.opened`).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from router.client.payload import member
from router.core.text import looks_like_path

# The events kroute answers only to see what was opened: they print nothing, and their hook
# never waits for a daemon that starts or loads (router.integrations.hook.NO_WAIT).
EVENTS = {"claude": ("PostToolUse",), "codex": ("PostToolUse",)}
# Every event a read is seen in: those above, and Gemini CLI's AfterTool, which also routes
# (the documents governing the file read or written come with the tool's result).
OBSERVED = frozenset({("claude", "PostToolUse"), ("codex", "PostToolUse"), ("gemini", "AfterTool")})
READ_TOOLS = {"claude": ("Read",), "gemini": ("read_file",)}
# What Codex names its shell tool in hook payloads, across its versions.
SHELL_TOOLS = ("Bash", "shell", "local_shell", "exec_command", "unified_exec")
# Commands whose file arguments the agent reads: a document the agent opened with them is
# in its context. Search commands (grep, rg) and listings are not: they show lines or names.
READERS = frozenset(
    {"cat", "bat", "batcat", "head", "tail", "less", "more", "nl", "sed", "awk", "view"}
)
SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
# Words that start a new simple command in a shell line (shlex's punctuation tokens).
SEPARATORS = frozenset("|&;()<>")
MAX_COMMAND = 20_000  # characters of a shell command read; a longer one is a script
MAX_PATHS = 32  # files taken from one event


@dataclass(frozen=True, slots=True)
class Opened:
    """The files one event says the agent opened, as the payload names them (absolute, or
    relative to `cwd`), and the tool it used."""

    tool: str
    paths: tuple[str, ...]
    cwd: str | None


def observes(harness: str, event: str) -> bool:
    """Return whether reads are looked for in this event."""
    return (harness, event) in OBSERVED


def only_observes(harness: str, event: str) -> bool:
    """Return whether the event is answered only to see what was opened (it routes nothing
    and prints nothing)."""
    return event in EVENTS.get(harness, ())


def opened(harness: str, event: str, payload: Mapping[str, Any] | None) -> Opened | None:
    """Return the files the event says were opened, or None (not a read, or a payload that
    names none). Never raises."""
    if payload is None or not observes(harness, event):
        return None
    tool = _text(member(payload, "tool_name"))
    tool_input = member(payload, "tool_input")
    if not tool or not isinstance(tool_input, Mapping):
        return None
    cwd = _text(member(payload, "cwd"))
    if tool in READ_TOOLS.get(harness, ()):
        path = _text(member(tool_input, "file_path")) or _text(member(tool_input, "absolute_path"))
        return Opened(tool, (path,), cwd) if path else None
    if harness == "codex" and tool in SHELL_TOOLS:
        # a command run elsewhere than the session's directory names its files from there
        cwd = _text(member(tool_input, "workdir")) or cwd
        found = read_by_shell(member(tool_input, "command"))
        return Opened(tool, found, cwd) if found else None
    return None


def read_by_shell(command: object, depth: int = 0) -> tuple[str, ...]:
    """Return the path-like arguments of the reading commands (READERS) in a shell command
    line (a string, or an argv list), in order, without repeats: `sed -n '1,80p' a.md`,
    `cat a.md b.md | head`, `bash -lc "nl -ba a.md"`. A line shlex cannot split gives none."""
    if isinstance(command, list) and all(isinstance(word, str) for word in command):
        command = shlex.join(command)
    if not isinstance(command, str) or len(command) > MAX_COMMAND:
        return ()
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:  # an unclosed quote
        return ()
    found: dict[str, None] = {}
    for simple in _simple_commands(words):
        for path in _read_in(simple, depth):
            found.setdefault(path, None)
    return tuple(found)[:MAX_PATHS]


def _simple_commands(words: list[str]) -> list[list[str]]:
    """Return the simple commands of a split shell line: runs of words between separators."""
    commands: list[list[str]] = [[]]
    for word in words:
        if word and set(word) <= SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(word)
    return [c for c in commands if c]


def _read_in(words: list[str], depth: int) -> tuple[str, ...]:
    """Return the files one simple command reads (see `read_by_shell`)."""
    while words and "=" in words[0] and not words[0].startswith("="):
        words = words[1:]  # `LC_ALL=C cat a.md`: an assignment before the program
    if not words:
        return ()
    program = words[0].rsplit("/", 1)[-1]
    if program in SHELLS and depth == 0:
        for i, word in enumerate(words[1:-1], start=1):
            if word.startswith("-") and "c" in word:  # -c, -lc, -ic: the next word is a line
                return read_by_shell(words[i + 1], depth + 1)
        return ()
    if program not in READERS:
        return ()
    return tuple(w for w in words[1:] if not w.startswith("-") and looks_like_path(w))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
