"""Stems: plurals, the -ed/-ing forms of a word and its British and American spellings
folded onto one stem, and the probe every word of a stem begins with.

Pure: every function here is a function of its arguments alone (`stem` caches `fold`).
"""

from __future__ import annotations

import re
import sys

MIN_STEM_CHARS = 4  # "mode" stays "mode": `mod` is a different word


_STEMS: dict[str, str] = {}
MAX_CACHED_STEMS = 1 << 21  # a catalog's vocabulary fits; a flood of new words resets it


def stem(token: str) -> str:
    """Return the plural-folded stem of a normalized token (cached: see `fold`)."""
    found = _STEMS.get(token)
    if found is None:
        if len(_STEMS) >= MAX_CACHED_STEMS:
            _STEMS.clear()
        found = _STEMS[token] = fold(token)
    return found


def fold(token: str) -> str:
    """Return the stem of a normalized token: plurals, the -ed/-ing forms of a word and its
    British and American spellings fold onto one stem.

    `retries`/`retried`/`retrying` -> `retry`, `caches`/`cached`/`caching` -> `cach`,
    `statuses` -> `status`, `embedded`/`embedding` -> `embed`; words ending in ss/us/is,
    short words, words holding digits and stems shorter than MIN_STEM_CHARS stay as they
    are. Only inflections fold, never derivations (`-ation`, `-ize`): those change what a
    word names. Both the index and the task go through this, so a stem only has to be the
    same for the forms of one word, not an English word itself."""
    if len(token) <= 3 or not token.isalpha():
        return token
    token = _one_spelling(token)
    if token.endswith(("ies", "ied")) and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("sses", "uses")):
        return token[:-2]
    if token.endswith("s") and not token.endswith(("ss", "us", "is")):
        token = token[:-1]
    token = _uninflected(token)
    if token.endswith("e") and len(token) - 1 >= MIN_STEM_CHARS:
        token = token[:-1]
    return sys.intern(token)


# British spellings and their American twins, as whole-word endings: catalogs and the people
# who prompt agents write both (`colour`/`color`, `licence`/`license`, `catalogue`/`catalog`,
# `serialise`/`serialize`, `centre`/`center`, `cancelled`/`canceled`). Each pattern asks for
# a few letters before the ending, so short words that merely end alike (`hour`, `raise`,
# `spelled`) stay as they are; both the index and the task fold, so a rewrite only has to be
# the same for the two spellings of one word. `probe` cuts a stem before what these rewrite:
# a new pattern needs its ending there and in test_stemmer's FOLDED_ENDINGS too.
_SPELLINGS = (
    (re.compile(r"(?<=[a-z]{3})our(s|ed|ing|ite|ites|able|ful)?$"), r"or\1"),
    (re.compile(r"(?<=[a-z]{3}[iy])s(e|ed|es|er|ers|ing|ation|ations)$"), r"z\1"),
    (re.compile(r"(?<=[a-z]{2}[cf])ence(s|d)?$"), r"ense\1"),
    (re.compile(r"(?<=[a-z]{3})ogue(s)?$"), r"og\1"),
    (re.compile(r"(?<=[a-z]{2}[tb])re(s)?$"), r"er\1"),
    (re.compile(r"(?<=[a-z]{2}[tb])red$"), "ered"),
    (re.compile(r"(?<=[a-z]{3}e)ll(ed|ing|er|ers)$"), r"l\1"),
)


def _one_spelling(token: str) -> str:
    """Return the American spelling of a word written the British way (else the word)."""
    for british, american in _SPELLINGS:
        token = british.sub(american, token)
    return token


def probe(stem_: str) -> str:
    """Return the start of `stem_` that every word folding onto it begins with (`fold`),
    cut before the letters a fold may have rewritten. A text whose lowercased letters lack
    the probe holds no word of that stem, so the ranker skips reading it word by word, and
    in a text it reads it stems only the words that begin with a probe.

    `fold` rewrites only a word's ending: a final `y` may have been `ies`/`ied`, a `z` an
    `s` (serialise), `ens` `enc` (licence), `or` `our` (colourful), `er` `re` (centre) or
    `ller` (traveller); everything else it does is cutting a suffix off. A flag's form is
    probed by its dash and letter (`-xfoo` may be written `-x foo`), a word written as code by
    its backtick (`` `some` `` may be `` `some View` ``)."""
    if stem_.startswith("-"):
        return stem_[:2]
    if stem_.startswith("`"):
        return "`"
    cut = len(stem_)
    if stem_.endswith("y"):
        cut -= 1
    if "z" in stem_:
        cut = min(cut, stem_.rindex("z"))
    if stem_.endswith("ens"):
        cut = min(cut, len(stem_) - 1)
    if stem_.endswith("er"):
        cut = min(cut, len(stem_) - 2)
    for ending in ("or", "orit", "orabl", "orful"):
        if stem_.endswith(ending):
            cut = min(cut, len(stem_) - len(ending) + 1)
    return stem_[:cut]


INFLECTIONS = ("ing", "ed")
_VOWELS = frozenset("aeiouy")


def _uninflected(token: str) -> str:
    """Return a token without its -ed or -ing ending when what is left is a stem: at least
    MIN_STEM_CHARS long and holding a vowel (`embedded` -> `embed`, `string` stays). A
    doubled final consonant is undone (`committed` -> `commit`), but not l, s or z, which
    words end in doubled (`installed` -> `install`)."""
    for ending in INFLECTIONS:
        if token.endswith(ending):
            base = token[: -len(ending)]
            if len(base) < MIN_STEM_CHARS or _VOWELS.isdisjoint(base):
                return token
            if len(base) > MIN_STEM_CHARS and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]
            return base
    return token
