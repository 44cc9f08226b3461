"""Relevance filter against adjacency pollution (DESIGN 8, seed 3).

Given a focus file and candidate chunks, score each chunk by additive signals and keep the
chunks at or above a threshold. A chunk about code the focus *imports* (rather than
*defines*) is pushed below zero, so a reviewer is not shown an imported crate's internals as
if they belonged to the focus.

Pure core: standard library only, no I/O, no clock, environment or randomness; never prints.

Reason strings, in signal order (the order of the table in DESIGN 8):
- `path_match`                  the normalized focus path occurs in source or doc_id
- `filename_match:<base name>`  e.g. `filename_match:db.go`
- `defined_match:<symbol>`      the first defined symbol (focus order) the text mentions
- `token_overlap:<J>`           J = the Jaccard index itself (not 0.4 x J), 4 decimals,
                                e.g. `token_overlap:0.2000`; only when J > 0
- `prefix_match:<prefix>`       the focus file's package directory (see `prefix`) begins
                                source or doc_id, e.g. `prefix_match:crates/queryd`
- `import_penalty:<symbol>`     the first imported symbol (focus order) the text mentions

A symbol spelled like an English word (lowercase letters only) or shorter than 3 characters
is mentioned only where the text marks it as code (backticks, `name(`, `::`, `x.name`,
`name.x`); `Imported.Name` mentions the import, never a defined `Name`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

DEFAULT_THRESHOLD = 0.3
COMPARE_DECIMALS = 6  # relevance and threshold are compared after rounding to this
REPORT_DECIMALS = 4  # relevance (and the Jaccard in reasons) is reported at this


def _words(*groups: str) -> frozenset[str]:
    """Return the whitespace-separated words of all groups."""
    return frozenset(word for group in groups for word in group.split())


# English function words plus Rust, TypeScript/JavaScript, Go and Python keywords.
# Content words stay out on purpose, including ones that look generic: the DESIGN 8
# headline pins the list down. Focus tokens are {catalogd, registry, connector} (`use`,
# `pub`, `struct` are keywords). "the Connector holds a pool" must give {connector, holds,
# pool} (`the` out, `a` too short): J = 1/5, 0.6 + 0.4 x 0.2 = 0.68. "Registry stores dataset
# manifests keyed by name with schema versions" must give 8 tokens so that J = 1/10 and
# -0.5 + 0.4 x 0.1 = -0.46: exactly `by` and `with` are stopwords there, so `name`,
# `schema`, `keyed`, `stores`, `dataset`, `manifests`, `versions` must never be added here.
STOPWORDS: frozenset[str] = _words(
    # English function words: articles, pronouns, prepositions, conjunctions, auxiliaries.
    """
    an the this that these those it its he him his she her hers we us our ours you your
    yours they them their theirs me my mine who whom whose which what when where why how
    there here then than and or but nor so yet if else not no of in on at by for with from
    to into onto upon about above below over under between among through during before
    after since until within without against across along around behind beyond off out up
    down per via is are was were be been being am do does did done has have had having will
    would shall should can could may might must all any each every some such both either
    neither only own same other very too also just
    """,
    # Rust keywords (strict, reserved and weak).
    """
    as async await break const continue crate dyn else enum extern false fn for if impl in
    let loop match mod move mut pub ref return self struct super trait true type unsafe use
    where while abstract become box do final macro override priv typeof unsized virtual
    yield try union static
    """,
    # TypeScript / JavaScript keywords (reserved and contextual).
    """
    case catch class debugger default delete export extends finally function import
    instanceof new null switch this throw typeof var void undefined implements interface
    package private protected public declare namespace module readonly keyof infer is
    satisfies of
    """,
    # Go keywords.
    """
    chan defer fallthrough func go goto map range select
    """,
    # Python keywords (hard and soft).
    """
    and assert class def del elif except global lambda none nonlocal or pass raise with
    """,
)

_TOKEN = re.compile(r"[a-z0-9_]+")
_MIN_TOKEN_LENGTH = 2
_IDENTIFIER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")


@dataclass(frozen=True, slots=True)
class Focus:
    """The file under edit: its path, content and symbols (defined wins over imported)."""

    path: str
    content: str = ""
    defined: tuple[str, ...] = ()
    imported: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Chunk:
    """One candidate chunk; `raw` is the request's object, echoed back with every member."""

    source: str
    doc_id: str
    text: str
    raw: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}), hash=False)


@dataclass(frozen=True, slots=True)
class Scored:
    """A chunk with its unrounded relevance and the reasons that produced it."""

    chunk: Chunk
    relevance: float
    reasons: tuple[str, ...]


def tokenize(text: str) -> frozenset[str]:
    """Return the lowercase `[a-z0-9_]` runs of 2+ characters in `text`, minus STOPWORDS."""
    return frozenset(
        token
        for token in _TOKEN.findall(text.lower())
        if len(token) >= _MIN_TOKEN_LENGTH and token not in STOPWORDS
    )


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Return |a & b| / |a | b|, or 0.0 when both sets are empty."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def normalize_path(path: str) -> str:
    """Return `path` with backslashes as `/` and any leading `./` and `/` removed."""
    out = path.replace("\\", "/")
    while out.startswith(("./", "/")):
        out = out[2:] if out.startswith("./") else out[1:]
    return out


# Directory names that say where sources live, not which package they belong to. A package
# directory made only of these (`src`, `lib/`, `pkg/internal`) is the whole project, so it
# gives no prefix; a trailing `src` after a package (`crates/queryd/src`, `axum/src`) is that
# package's source root, so the package is its parent.
GENERIC_ROOTS = frozenset({"src", "lib", "packages", "crates", "staging", "pkg", "internal", "app"})
_SOURCE_ROOT = "src"
_PATH_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def prefix(path: str) -> str:
    """Return the focus file's package directory, or "" when it has none.

    The package is the file's directory (`src/vs/base/common`, `src/net/http`,
    `staging/src/k8s.io/client-go/kubernetes/typed/core/v1`), without one trailing `src`
    (`crates/queryd/src/db.go` gives `crates/queryd`). A file at the top level, or in a
    directory made only of GENERIC_ROOTS (`src/main.rs`, `lib/view.js`), has no package: ""
    (which never matches).
    """
    segments = [segment for segment in normalize_path(path).split("/") if segment][:-1]
    if len(segments) > 1 and segments[-1] == _SOURCE_ROOT:
        segments = segments[:-1]
    if all(segment in GENERIC_ROOTS for segment in segments):
        return ""
    return "/".join(segments)


def _in_package(head: str, name: str) -> bool:
    """Return whether `name` starts with `head` followed by a separator (or nothing)."""
    return name.startswith(head) and (
        len(name) == len(head) or name[len(head)] not in _PATH_NAME_CHARS
    )


# A symbol spelled like an English word (lowercase letters only: `path`, `new`, `context`,
# `request`) or shorter than this (`t`, `g`, `os`, `re`, `Do`) is indistinguishable from
# prose, so it counts only where the chunk marks it as code: inside backticks, before `(`,
# next to `::`, or joined to an identifier by `.` (`path.join`, `self.path`).
_PLAIN_MIN_LENGTH = 3
_WORDLIKE = re.compile(r"[a-z]+")


def _wordlike(name: str) -> bool:
    return len(name) < _PLAIN_MIN_LENGTH or _WORDLIKE.fullmatch(name) is not None


def _is_ident(char: str) -> bool:
    return bool(char) and char in _IDENTIFIER_CHARS


def _marked_as_code(text: str, start: int, end: int) -> bool:
    """Return whether text[start:end] is marked as code (see _PLAIN_MIN_LENGTH)."""
    if text.count("`", 0, start) % 2 == 1 and "`" in text[end:]:
        return True
    after, before = text[end : end + 2], text[max(0, start - 2) : start]
    if after.startswith("(") or after == "::" or before == "::":
        return True
    if after[:1] == "." and _is_ident(after[1:2]):
        return True
    return before[-1:] == "." and _is_ident(before[:1])


def _qualifier(text: str, start: int) -> str:
    """Return the identifier written just before `.` at `start` (`Imported` in `Imported.N`)."""
    if start == 0 or text[start - 1] != ".":
        return ""
    head = start - 1
    while head > 0 and _is_ident(text[head - 1]):
        head -= 1
    return text[head : start - 1]


def _mentions(text: str, name: str, foreign: frozenset[str] = frozenset()) -> bool:
    """Return whether `text` mentions symbol `name`.

    An occurrence counts when not flanked by identifier characters, when marked as code if
    the name is word-like, and not when written `Q.name` with `Q` in `foreign` (that is a
    mention of the imported `Q`).
    """
    if not name:
        return False
    wordlike = _wordlike(name)
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        before = start == 0 or not _is_ident(text[start - 1])
        after = end == len(text) or not _is_ident(text[end])
        if (
            before
            and after
            and (not wordlike or _marked_as_code(text, start, end))
            and _qualifier(text, start) not in foreign
        ):
            return True
        start = text.find(name, start + 1)
    return False


def _first_held(
    text: str, names: Sequence[str], foreign: frozenset[str] = frozenset()
) -> str | None:
    return next((name for name in names if _mentions(text, name, foreign)), None)


PATH_MATCH_WEIGHT = 1.0
FILENAME_MATCH_WEIGHT = 0.6
FILENAME_MIN_LENGTH = 3  # base names shorter than this never match
DEFINED_MATCH_WEIGHT = 0.6
TOKEN_OVERLAP_WEIGHT = 0.4
PREFIX_MATCH_WEIGHT = 0.3
IMPORT_PENALTY_WEIGHT = -0.5


def _score(focus: Focus, focus_tokens: frozenset[str], chunk: Chunk) -> Scored:
    path = normalize_path(focus.path)
    total = 0.0
    reasons: list[str] = []

    path_match = bool(path) and (path in chunk.source or path in chunk.doc_id)
    if path_match:
        total += PATH_MATCH_WEIGHT
        reasons.append("path_match")

    base = path.rsplit("/", 1)[-1]
    if len(base) >= FILENAME_MIN_LENGTH and base in chunk.text:
        total += FILENAME_MATCH_WEIGHT
        reasons.append(f"filename_match:{base}")

    own = _first_held(chunk.text, focus.defined, frozenset(focus.imported))
    if own is not None:
        total += DEFINED_MATCH_WEIGHT
        reasons.append(f"defined_match:{own}")

    overlap = jaccard(focus_tokens, tokenize(chunk.text))
    if overlap > 0:
        total += TOKEN_OVERLAP_WEIGHT * overlap
        reasons.append(f"token_overlap:{overlap:.{REPORT_DECIMALS}f}")

    head = prefix(path)
    if (
        not path_match
        and head
        and (_in_package(head, chunk.source) or _in_package(head, chunk.doc_id))
    ):
        total += PREFIX_MATCH_WEIGHT
        reasons.append(f"prefix_match:{head}")

    if own is None:
        foreign = _first_held(chunk.text, focus.imported)
        if foreign is not None:
            total += IMPORT_PENALTY_WEIGHT
            reasons.append(f"import_penalty:{foreign}")

    return Scored(chunk=chunk, relevance=total, reasons=tuple(reasons))


def score(focus: Focus, chunk: Chunk) -> Scored:
    """Return the chunk's summed signals (unrounded) and reasons; never raises."""
    return _score(focus, tokenize(focus.content), chunk)


def _passes(relevance: float, threshold: float) -> bool:
    return round(relevance, COMPARE_DECIMALS) >= round(threshold, COMPARE_DECIMALS)


def split(
    focus: Focus, chunks: Sequence[Chunk], threshold: float = DEFAULT_THRESHOLD
) -> tuple[list[Scored], list[Scored]]:
    """Return (kept, dropped): kept when relevance >= threshold at 6 decimals.

    Input order is kept within each list. Never raises.
    """
    focus_tokens = tokenize(focus.content)
    kept: list[Scored] = []
    dropped: list[Scored] = []
    for chunk in chunks:
        scored = _score(focus, focus_tokens, chunk)
        (kept if _passes(scored.relevance, threshold) else dropped).append(scored)
    return kept, dropped


# --- the answer --------------------------------------------------------------------------


def _report(value: float) -> float:
    return round(value, REPORT_DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0


def _echo(scored: Scored) -> dict[str, object]:
    chunk = scored.chunk
    out: dict[str, object] = (
        dict(chunk.raw)
        if chunk.raw
        else {"source": chunk.source, "doc_id": chunk.doc_id, "text": chunk.text}
    )
    out["relevance"] = _report(scored.relevance)
    out["reasons"] = list(scored.reasons)
    return out


def answer(focus: Focus, chunks: Sequence[Chunk], threshold: float) -> dict[str, object]:
    """Return `{kept, dropped, threshold}`: each chunk echoed with relevance and reasons.

    Each chunk keeps all members it arrived with (a chunk built without `raw` echoes source,
    doc_id and text), plus `relevance` (4 decimals) and `reasons` (a list); input order is
    kept in both lists. Never raises.
    """
    kept, dropped = split(focus, chunks, threshold)
    return {
        "kept": [_echo(scored) for scored in kept],
        "dropped": [_echo(scored) for scored in dropped],
        "threshold": threshold,
    }
