"""Text normalization, tokens and path readings (DESIGN 4.3 and 6 step 2).

Pure: every function here is a function of its arguments alone.
"""

from __future__ import annotations

import re
import sys

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
