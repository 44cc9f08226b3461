"""YAML front matter: find it, parse it, and read what strict YAML rejects as the tools do.

Two lenient readings run only after strict YAML (libyaml's C loader) has failed: Cursor's
unquoted globs (`globs: **/*.py`) and plain values holding `: ` (`title: ADR003: Avoid
Default Exports`) are quoted (by `lenient`, which says how the tools mean them) and the block
parsed again; the file lines each changed are returned with the mapping.

Hostile YAML is refused: aliases that would expand a small block into a huge or recursive
value never reach the catalog.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from router.catalog.formats import lenient

try:  # the C loader is several times faster; fall back where libyaml is missing
    from yaml import CSafeLoader as _Base
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Base  # type: ignore[assignment]

_FENCE = re.compile(r"^---[ \t]*$")
_END = re.compile(r"^(---|\.\.\.)[ \t]*$")
# What may precede the `*` of an alias, besides white space; a `*` after anything else (as
# in the quoted glob '**/*.py') is text.
_BEFORE_ALIAS = "[{,:\ufeff"

# Aliases are bounded rather than refused: front matter does use `<<: *defaults` and list
# anchors (`governs: &paths [...]`, then `*paths`). What a bomb needs is many aliases or
# aliases standing for much, so both are bounded. The event stream is checked before
# anything is built, which costs microseconds however large the expansion would be.
MAX_ALIASES = 64  # alias uses in one block; `<<: *defaults` a few times is far below
# What the aliases of one block may stand for once expanded: a collection counts 1, a
# scalar 1 plus its length, so a bomb of many small values and one of a few long texts
# (`s: &s <60 KiB>`, then `[*s, *s, ...]`) are both refused; no more than a block may hold
# written out.
MAX_ALIAS_EXPANSION = 64 * 1024
# Characters in one block. The largest front matter of the corpora is under 3 KiB; parsing
# costs about a millisecond per KiB, and the lenient readings reparse, so a block of the
# whole 1 MiB a file may hold took 2 s.
MAX_BLOCK_CHARS = 64 * 1024


class FrontMatterError(ValueError):
    """Front matter that is not YAML or not a mapping; `line` is the file's 1-based line."""

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """A parsed front-matter block.

    `lenient_lines` and `colon_lines` are the file lines (1-based, the opening fence is line 1)
    read by the Cursor glob fallback and by the `: `-in-a-value fallback."""

    meta: dict[str, object]
    lenient_lines: tuple[int, ...] = ()  # file lines read by the Cursor fallback
    colon_lines: tuple[int, ...] = ()  # file lines whose value held an unquoted `: `


# What PyYAML's safe constructors raise, besides YAMLError, on values such as `2024-13-45`,
# `0x_` or `!!int x`.
_BUILD_ERRORS = (ArithmeticError, AttributeError, LookupError, TypeError, ValueError)


class _CheckedLoader(_Base):
    """The safe loader, with every failure to build a value raised as a ConstructorError
    carrying the node's mark. Used only to find the line once the fast loader has failed."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except _BUILD_ERRORS as error:
            tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
            value = node.value if isinstance(node, yaml.ScalarNode) else getattr(node, "id", "node")
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read {value!r} as {tag} ({error})", node.start_mark
            ) from error


def split(text: str) -> str | None:
    """Return the front-matter text of a Markdown file, or None when it has none.

    A byte-order mark before the opening `---` is ignored, so text decoded as `utf-8` rather
    than `utf-8-sig` splits the same. Raises FrontMatterError (line 1) when the opening fence
    has no closing one."""
    return parts(text)[0]


def parts(text: str) -> tuple[str | None, str]:
    """Return (the front-matter text or None, the body after the closing fence or the whole
    text). Raises FrontMatterError as `split` does."""
    lines = text.splitlines()
    if not lines or not _FENCE.match(lines[0].lstrip("\ufeff")):
        return None, text
    for number, line in enumerate(lines[1:], start=1):
        if _END.match(line):
            return "\n".join(lines[1:number]), "\n".join(lines[number + 1 :])
    raise FrontMatterError("front matter opened with `---` is never closed", 1)


def parse(block: str) -> FrontMatter:
    """Return the mapping of a front-matter block (the text between the fences).

    An empty block is an empty mapping. Strict YAML comes first; only when it fails are
    Cursor's bare globs and plain values holding `: ` quoted, the block parsed again, and the
    changed file lines returned in `lenient_lines` and `colon_lines`.

    Raises FrontMatterError with the file line when the block is not YAML even so, when it is
    not a mapping, when it is longer than MAX_BLOCK_CHARS (line 1), or when its aliases would
    expand too far or refer to themselves."""
    if len(block) > MAX_BLOCK_CHARS:
        raise FrontMatterError(
            f"front matter is {len(block)} characters, over the {MAX_BLOCK_CHARS // 1024} KiB "
            "limit; move the long values into the body",
            1,
        )
    if not block.strip():
        return FrontMatter({})
    globs: tuple[int, ...] = ()
    colon: tuple[int, ...] = ()
    try:
        meta = _load(block)
    except yaml.YAMLError as strict_error:
        meta, globs, colon = _load_leniently(block, strict_error)
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise FrontMatterError(
            f"front matter must be a mapping of fields, not a {type(meta).__name__}", 2
        )
    return FrontMatter({str(k): v for k, v in meta.items()}, globs, colon)


def _load(text: str) -> Any:
    """Return the YAML value of `text`, after refusing alias abuse when it may hold aliases.

    Raises yaml.YAMLError when it is not YAML, FrontMatterError on alias abuse."""
    if _may_hold_aliases(text):
        _refuse_alias_abuse(text)
    try:
        return yaml.load(text, Loader=_Base)
    except _BUILD_ERRORS:
        pass
    try:  # again, to learn which value could not be built, and where
        return yaml.load(text, Loader=_CheckedLoader)
    except _BUILD_ERRORS as error:  # pragma: no cover - raised outside construct_object
        raise yaml.constructor.ConstructorError(
            None, None, f"cannot read a value ({error})", None
        ) from error


def _may_hold_aliases(text: str) -> bool:
    """Return whether `text` has a `*` where a YAML alias could begin: at the start, after
    white space, or after a flow indicator. Most blocks have no `*` at all."""
    at = text.find("*")
    while at >= 0:
        if at == 0 or text[at - 1].isspace() or text[at - 1] in _BEFORE_ALIAS:
            return True
        at = text.find("*", at + 1)
    return False


def _load_leniently(
    block: str, strict_error: yaml.YAMLError
) -> tuple[Any, tuple[int, ...], tuple[int, ...]]:
    """Return the value of a block strict YAML rejected, with bare globs and plain values
    holding `: ` quoted, and the file lines of each kind that were changed.

    Raises FrontMatterError: the strict error when nothing could be quoted, else the error of
    the quoted block (quoting keeps every line where it was, so its line is the file's)."""
    text, globs = lenient.bare_stars(block)
    text, colon = lenient.colon_values(text, _events)
    if not globs and not colon:
        raise _problem(strict_error, block) from None
    try:
        return _load(text), globs, colon
    except yaml.YAMLError as error:
        if globs and colon:  # a quoted "value" may have been text inside another scalar
            globs_only, _ = lenient.bare_stars(block)
            try:
                return _load(globs_only), globs, ()
            except yaml.YAMLError:
                pass
        raise _problem(error, text) from None


def _events(text: str) -> Iterator[yaml.Event]:
    """Return the parser events of `text`, read as the fast loader reads it (lazily, so
    yaml.YAMLError is raised while they are walked)."""
    return yaml.parse(text, Loader=_Base)


def _refuse_alias_abuse(text: str) -> None:
    """Raise FrontMatterError when the aliases of `text` are too many, would expand to too
    many values, or refer to a value that contains them (a recursive value).

    Walks the event stream, which never expands an alias. Returns quietly when `text` is not
    YAML or uses an undefined or repeated anchor: loading it reports that error."""
    tally = _AliasTally()
    try:
        for event in _events(text):
            if not tally.take(event):
                return
    except yaml.YAMLError:
        return


class _AliasTally:
    """What the aliases of one event stream stand for, event by event (`take`)."""

    def __init__(self) -> None:
        self.sizes: dict[str, int | None] = {}  # anchor -> expanded size; None while open
        self.stack: list[tuple[str | None, int]] = []  # open collections: anchor, size so far
        self.aliases = 0
        self.expanded = 0

    def take(self, event: yaml.Event) -> bool:
        """Count one event in; return False when the stream refers to an undefined anchor
        or repeats one (loading it reports that). Raises FrontMatterError on alias abuse."""
        if isinstance(event, yaml.DocumentStartEvent):
            self.sizes.clear()
        elif isinstance(event, yaml.AliasEvent):
            return self._alias(event)
        elif isinstance(event, yaml.NodeEvent):
            return self._node(event)
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, size = self.stack.pop()
            self._close(anchor, size)
        return True

    def _alias(self, event: yaml.AliasEvent) -> bool:
        self.aliases += 1
        if self.aliases > MAX_ALIASES:
            raise _refusal(f"more than {MAX_ALIASES} aliases", event)
        if event.anchor not in self.sizes:
            return False  # undefined alias
        target = self.sizes[event.anchor]
        if target is None:
            raise _refusal(f"*{event.anchor} refers to a value that contains it", event)
        self.expanded += target
        if self.expanded > MAX_ALIAS_EXPANSION:
            raise _refusal(
                f"they stand for more than {MAX_ALIAS_EXPANSION // 1024} KiB of values", event
            )
        self._add(target)
        return True

    def _node(self, event: yaml.NodeEvent) -> bool:
        anchor = event.anchor
        if anchor is not None:
            if anchor in self.sizes:
                return False  # repeated anchor
            self.sizes[anchor] = None
        if isinstance(event, yaml.CollectionStartEvent):
            self.stack.append((anchor, 1))
        else:
            self._close(anchor, 1 + len(event.value) if isinstance(event, yaml.ScalarEvent) else 1)
        return True

    def _close(self, anchor: str | None, size: int) -> None:
        if anchor is not None:
            self.sizes[anchor] = size
        self._add(size)

    def _add(self, size: int) -> None:
        if self.stack:
            anchor, so_far = self.stack[-1]
            self.stack[-1] = (anchor, so_far + size)


def _refusal(reason: str, event: yaml.Event) -> FrontMatterError:
    """Return the FrontMatterError refusing a front matter's aliases for `reason`."""
    mark = event.start_mark
    return FrontMatterError(
        f"front matter uses YAML aliases beyond what a catalog needs ({reason}); "
        "write the values out",
        mark.line + 2 if mark is not None else None,
    )


def _problem(error: yaml.YAMLError, block: str) -> FrontMatterError:
    """Return the FrontMatterError for a YAML error in `block`, at the file line to fix."""
    if isinstance(error, yaml.reader.ReaderError):  # a character YAML does not allow
        return FrontMatterError(
            f"front matter is not valid YAML: {error.reason}",
            block.count("\n", 0, error.position) + 2,
        )
    mark = getattr(error, "problem_mark", None)
    context_mark = getattr(error, "context_mark", None)
    # An unclosed bracket or quote is found only at the end of the block; the line where it
    # opened is the one to fix.
    at_end = mark is None or mark.index >= len(block.rstrip())
    if context_mark is not None and at_end:
        mark = context_mark
    line = mark.line + 2 if mark is not None else None  # +1 for 1-based, +1 for the fence
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    context = getattr(error, "context", None)
    text = f"{context}, {problem}" if context else str(problem)
    return FrontMatterError(f"front matter is not valid YAML: {text}", line)
