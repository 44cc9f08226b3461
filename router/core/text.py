"""Text normalization, tokens and path readings (DESIGN 4.3 and 6 step 2).

Pure: every function here is a function of its arguments alone.
"""

from __future__ import annotations

import re
import sys
import unicodedata

# Seed 1's stopword list, exactly. Changing it changes every score.
STOPWORDS = frozenset(
    ("a an and are as at be by for from in into is it of on or that the this to use with").split()
)
MIN_TOKEN_CHARS = 2

# Every run of characters that are not letters or digits: `_`, `/`, `-`, punctuation and
# whitespace alike. One pass: loading a catalog normalizes every body.
_SEPARATORS = re.compile(r"[\W_][\W_]*")  # not `[\W_]+`: see markup._STARS


# ASCII text, most of a catalog, is normalized by a translation table and a split: the same
# result as _SEPARATORS, at a third of the cost.
_ASCII_SEPARATORS = str.maketrans({chr(c): " " for c in range(128) if not chr(c).isalnum()})


# Bytes as _ASCII_SEPARATORS maps characters; bytes of characters beyond ASCII stay.
_ASCII_SEPARATOR_BYTES = bytes(b if b >= 128 or chr(b).isalnum() else ord(" ") for b in range(256))
_BEYOND_ASCII = re.compile(r"[^\x00-\x7f]")


def normalize(s: str) -> str:
    """Return `s` lowercased, with `_`/`/` runs, `-` and other punctuation turned into single
    spaces, and surrounding space removed."""
    lower = s.lower()
    if lower.isascii():
        return " ".join(lower.translate(_ASCII_SEPARATORS).split())
    # Beyond ASCII: the few distinct characters there that are no letter or digit become
    # spaces, then the UTF-8 bytes go through the ASCII table (every byte of a character
    # beyond ASCII is >= 128, so those of letters stay whole). The same as _SEPARATORS'
    # substitution, at a fraction of its cost on a whole body.
    for char in set(_BEYOND_ASCII.findall(lower)):
        if not char.isalnum():
            lower = lower.replace(char, " ")
    spaced = lower.encode("utf-8", "surrogatepass").translate(_ASCII_SEPARATOR_BYTES)
    return b" ".join(spaced.split()).decode("utf-8", "surrogatepass")


def tokens(s: str) -> tuple[str, ...]:
    """Return the tokens of `s`: normalized words that are not stopwords and have at least two
    characters, deduplicated, first occurrence kept."""
    return tokens_of_normal(normalize(s))


def tokens_of_normal(normal: str) -> tuple[str, ...]:
    """Return the tokens of an already normalized string (see `tokens`)."""
    seen: dict[str, None] = {}
    for word in normal.split():
        if len(word) >= MIN_TOKEN_CHARS and word not in STOPWORDS and word not in seen:
            seen[sys.intern(word)] = None  # one string per word however many fields hold it
    return tuple(seen)


def holds_phrase(field_normal: str, query_normal: str) -> bool:
    """Return whether `query_normal` occurs in `field_normal` at word boundaries.

    Both are normalized, so words are separated by exactly one space."""
    if not query_normal:
        return False
    return f" {query_normal} " in f" {field_normal} "


# Characters kept around a word when it is read as a path: letters, digits, `/` and `.`, and
# `_` too, because file names such as `__init__.py` start with it.
_PATH_EDGE = re.compile(r"^[^\w/.]+|[^\w/.]+$")
_POSSESSIVE = ("'s", "\u2019s")


def path_readings(word: str) -> tuple[str, ...]:
    """Return the distinct path readings of one whitespace-separated word, in the order of
    DESIGN 6 step 2, each step applied to the previous one: as written (surrounding
    punctuation stripped), without trailing dots, without a possessive `'s`, without
    everything from the first `:` (line numbers), and without trailing dots again.
    A URL gives none."""
    if "://" in word:
        return ()
    readings: list[str] = []

    def add(candidate: str) -> str:
        candidate = _PATH_EDGE.sub("", candidate)
        if candidate and candidate not in readings:
            readings.append(candidate)
        return candidate

    current = add(word)
    current = add(current.rstrip("."))
    if current.endswith(_POSSESSIVE):
        current = add(current[:-2])
    current = add(current.split(":", 1)[0])
    add(current.rstrip("."))
    return tuple(readings)


def may_be_path(word: str) -> bool:
    """Return whether a whitespace-separated word may have a path reading: it holds a `/` or
    a `.`. Every reading is a piece of the word (`path_readings`) and every path holds one
    or the other (`looks_like_path`), so the readings of most of a long task's words need
    not be made."""
    return "/" in word or "." in word


def looks_like_path(reading: str) -> bool:
    """Return whether a reading may name a file: it has a `/` or a dotted extension.

    Bare words ("docs", "api") are never anchors: a task saying "update the docs" must not
    reach every entry that governs `docs/`."""
    if "/" in reading:
        return reading.strip("/.") != ""
    stem, dot, ext = reading.rpartition(".")
    if dot and not stem and ext:  # a dotfile: `.gitignore`, `.env`
        return True
    return bool(dot and stem.strip(".") and ext)


# ----------------------------------------------------------------------------- shown text
# The one sanitizer of everything that leaves the process with catalog or log text in it:
# hook text, MCP results, CLI text and JSON, the HTML report, shadow lines when printed.

EM_DASH = "\u2014"  # consumers select pointer lines by this character: nowhere else
# Characters never shown to an agent or a terminal: controls (Cc: C0, DEL and C1, so ESC
# sequences and backspaces lose their escape), format characters (Cf: zero-width and bidi
# marks that hide or reorder text) and lone surrogates (Cs: no encoding can write them).
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})
KEPT_IN_LINES = frozenset("\n\t")  # what a multi-line text keeps of its whitespace controls
# The members of a JSON document that are multi-line text by design (what the hooks inject,
# the why-not sentence): built of `flat` fields, they keep their lines.
LINES_MEMBERS = frozenset({"text"})


def clean(value: str, *, lines: bool = False) -> str:
    """Return `value` with every control and format character dropped; one that is
    whitespace (a line break, a tab) counts as a space, except that with `lines` a newline
    and a tab are kept. Nothing else changes (see `flat` for one line of shown text)."""
    if value.isprintable():  # printable text holds no Cc, Cf, Cs or line break: the common case
        return value
    kept = KEPT_IN_LINES if lines else frozenset()
    return "".join(
        c
        if c in kept
        else " "
        if c.isspace() and not c.isprintable()
        else ""
        if unicodedata.category(c) in HIDDEN_CATEGORIES
        else c
        for c in value
    )


def flat(value: str) -> str:
    """Return `value` as one line an agent or a terminal may be shown: every control and
    format character dropped (one that is whitespace, such as a newline or a tab, counts as a
    space), whitespace runs as one space, surrounding space removed, and any em dash turned
    into a plain dash so that only the pointer separator carries one."""
    return " ".join(clean(value).replace(EM_DASH, "-").split())


def scrubbed(document: object, member: str = "") -> object:
    """Return a JSON-like document (dicts, lists, strings, numbers) with every string in it,
    keys too, passed through `clean`: on one line, except the members named in
    LINES_MEMBERS, which keep their newlines. JSON escaping alone would still hand an agent
    a bidi override or a zero-width character."""
    if isinstance(document, str):
        return clean(document, lines=member in LINES_MEMBERS)
    if isinstance(document, dict):
        return {clean(str(k)): scrubbed(v, str(k)) for k, v in document.items()}
    if isinstance(document, list | tuple):
        return [scrubbed(v, member) for v in document]
    return document
