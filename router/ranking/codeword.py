"""Code-shaped words: the words inside code identifiers (`useEffect`), the type names a task
writes (`ReaderStateContext`), and the forms documents write flags, macros, operators,
quantities and keywords in (`-Xfoo` and `-X foo` meet, `10ms` gives `10`).

Pure: every function here is a function of its arguments alone.
"""

from __future__ import annotations

import re

from router.core import text
from router.ranking.stemmer import stem
from router.ranking.wordlist import FUNCTION_WORDS


def heads(words: list[str]) -> dict[str, str]:
    """Return head stem -> type name stem for the type names among `words`: identifiers
    in PascalCase of two words or more (`ReaderStateContext`, `HTTPServer`), whose last word
    names what kind of thing the name is (a context, a server). A function's name
    (`useEffect`, `getContent`) opens with its verb, and a snake-cased or underscored
    one (`WeatherPlugin_GetForecast`) may end in one: neither counts."""
    heads: dict[str, str] = {}
    for word in words:
        for name in _IDENTIFIER.findall(word):
            joined = words_of_identifier(name)
            if not name[0].isupper() or "_" in name or len(joined) < 2:
                continue
            named = text.tokens(name)
            head = text.tokens(joined[-1])
            if len(named) == 1 and len(head) == 1 and head[0] not in FUNCTION_WORDS:
                heads.setdefault(stem(head[0]), stem(named[0]))
    return heads


# Where a camel-cased identifier's words meet: `readerStateContext`, `HTTPServer` (normalizing
# splits `parse_args` already).
_IDENTIFIER_JOINS = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


_LOWER = b"abcdefghijklmnopqrstuvwxyz"
_UPPER = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_DIGITS = b"0123456789"
# every lower-case letter to `a`, every capital to `A`, every digit to `0`, all else as it is
_SHAPES = bytes.maketrans(
    _LOWER + _UPPER + _DIGITS, b"a" * len(_LOWER) + b"A" * len(_UPPER) + b"0" * len(_DIGITS)
)
# A word holding a case change inside it: a code identifier (`useEffect`, `HTTPServer`). The
# lookahead scans one word from its start only (`\b`), so the search is linear in the text.
_IDENTIFIER = re.compile(r"\b(?=\w*?(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z]))\w++")
# The capital of a case change (`[a-z0-9][A-Z]`, or `[A-Z][A-Z][a-z]`): a pattern opening with
# a character class is searched for at C speed, where _IDENTIFIER tries every word's start
# (a fifth of a catalog's load was that scan).
_CASE_CHANGE = re.compile(r"[A-Z](?:(?<=[a-z0-9][A-Z])|(?<=[A-Z][A-Z])(?=[a-z]))")
_WORD_REST = re.compile(r"\w*")


def identifiers(raw: str) -> list[str]:
    """Return the words of `raw` holding a case change (`useEffect`, `HTTPServer`), in
    order: `_IDENTIFIER.findall(raw)`, found from each case change's capital outwards to the
    ends of its word (a run of `\\w`: letters, digits and `_`); back to its start by the
    same pattern run over the text reversed."""
    found: list[str] = []
    at = 0
    search, rest = _CASE_CHANGE.search, _WORD_REST.match
    backwards = ""
    last = len(raw) - 1
    while (match := search(raw, at)) is not None:
        capital = match.start()
        if not backwards:
            backwards = raw[::-1]
        before = rest(backwards, last - capital)  # `\w*` always matches
        after = rest(raw, capital)
        start = capital + 1 - (before.end() - (last - capital)) if before else capital
        end = after.end() if after else capital
        found.append(raw[start:end])
        at = end
    return found


def parts(raw: str) -> str:
    """Return the ranker's words of a text as written (not normalized) beyond its normalized
    words, space-joined, "" when there are none: the words inside its code identifiers,
    normalized (a document saying `useEffect` is also about an effect, as a task naming it
    is: `of_task`), then the forms of its code-shaped words (`forms`)."""
    # Most prose holds no identifier: its letters' shapes, read in C calls, say so at once
    # (a regular expression's scan over every body would cost a fifth of a catalog's load).
    shapes = raw.encode("utf-8", "ignore").translate(_SHAPES)
    found = ""
    if b"aA" in shapes or b"0A" in shapes or b"AAa" in shapes:
        named = [part for word in identifiers(raw) for part in words_of_identifier(word)]
        found = text.normalize(" ".join(named))
    shaped = _forms(raw, shapes)
    if not shaped:
        return found
    return f"{found} {' '.join(shaped)}" if found else " ".join(shaped)


# Code-shaped words: normalizing keeps only their letters and digits, and that loses what
# tells them apart. Each is read as written, into the forms documents write it in too.
# A flag: a dash opening a word (after space, `=`, a quote or a bracket), a letter, and
# either the rest of the word glued on (`-Xfoo`, `-race`) or a value written apart (`-X foo`).
# (The dash comes first and what stands before it is looked back at: a pattern opening with
# a literal is searched for at C speed, and every body is scanned.)
_FLAG = re.compile(r"-(?<![^\s=(\[`'\"]-)([A-Za-z])(\w*)(?:[ \t]+['\"]?([A-Za-z0-9]+))?")
# A macro's or a sigil's trailing bang (`println!`, `vec![..]`), not a `!=` or `!!`: the
# bang is searched for, the lower-case name it closes looked back at.
_BANG = re.compile(r"!(?<=[a-z0-9_]!)(?![=!])")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
# The `?` operator: after a call or an index (`f()?`), or standing alone (`the ? operator`);
# a question mark closing a word is prose.
_TRY = re.compile(r"\?(?<![^\s`()\]]\?)(?![\w?.])")
# Operators of two or more characters that stand whole (`++` of `i++`, `::`, `...`): a run of
# symbols that is one of them, not a piece of a longer run (`-->`, `====`).
# (Written as one symbol and then more, not `{2,}`: a pattern opening with a character class
# is searched for at C speed, one opening with a repeat is tried at every position.)
_SYMBOLS = re.compile(r"[-+*%=!?:.<>&|^~][-+*%=!?:.<>&|^~]+")
OPERATORS = frozenset(
    ("===", "!==", "...", "++", "::", "->", "=>", ":=", "<-", "!=", "==", "&&", "||", "??", "?.")
)
# A number glued to a short unit (`10ms`, `400px`, `64bit`): a document writes `10 ms` too.
# A capital unit (`2GB`) is an identifier already, and letters before digits (`E0123`,
# `SA1019`, `arm64`) are one name.
# (Opening with the digits, the pattern is searched for fast; the letter or digit a match may
# follow is looked at after.)
# Not after a letter, digit or `_` (`v1beta`, `E0123`: a name), which is looked back at
# after the first digit: the pattern opens with a character class (see _SYMBOLS).
_QUANTITY = re.compile(r"(\d(?<!\w\d)\d*)([a-z]{1,5})\b")
# A word written as code on its own (`` `any` ``); in a longer span (`` `it was there` ``) a
# function word is as often English as a keyword.
_CODE_WORD = re.compile(r"`([A-Za-z]{2,})`")


def forms(raw: str) -> tuple[str, ...]:
    """Return the forms of the code-shaped words of a text as written, one per occurrence,
    kind by kind: see `_forms`."""
    return tuple(_forms(raw, raw.encode("utf-8", "ignore").translate(_SHAPES)))


def _forms(raw: str, shapes: bytes) -> list[str]:
    """Return the forms of a text's code-shaped words (`shapes`: its bytes through _SHAPES):
    - a flag with its dash, glued to its value however written (`-Xfoo` and `-X foo` give
      `-xfoo`), the bare flag when it stands alone (`-x`), and a glued value split off when
      a capital or a digit shows where it starts (`-Xfoo` gives `-x` and `foo` too);
    - an identifier with its trailing bang (`println!`) and operators (`?`, `++`, `::`);
    - the number and the unit of a quantity (`10ms` gives `10` and `ms`);
    - a function word written as code (`coded`: `` `any` `` gives `` `any` ``).
    Values and units that are stopwords, function words or one character are left out."""
    found: list[str] = []
    if "-" in raw:
        for match in _FLAG.finditer(raw):
            letter, glued, apart = match.groups()
            flag = "-" + letter.lower()
            if not glued:
                found.append(flag)
                if apart and _is_word(apart.lower()):
                    found.append(flag + apart.lower())
                continue
            found.append(flag + glued.lower())
            if letter.isupper() or glued[0].isdigit():
                found.append(flag)
                if _is_word(glued.lower()):
                    found.append(glued.lower())
    if "!" in raw:
        for match in _BANG.finditer(raw):
            end = start = match.start()
            while start and raw[start - 1] in _NAME_CHARS:
                start -= 1
            if not (start and raw[start - 1].isalnum()) and not raw[start].isdigit():
                found.append(raw[start : end + 1])
    if "?" in raw:
        found.extend(_TRY.findall(raw))
    found.extend(run for run in _SYMBOLS.findall(raw) if run in OPERATORS)
    if b"0a" in shapes:
        for quantity in _QUANTITY.findall(raw):
            found.extend(part for part in quantity if _is_word(part))
    if "`" in raw:
        found.extend(
            coded(w) for w in map(str.lower, _CODE_WORD.findall(raw)) if w in FUNCTION_WORDS
        )
    return found


def _is_word(token: str) -> bool:
    """Return whether a lower-case token may be a route term: two characters or more, and
    neither a stopword nor a function word."""
    return (
        len(token) >= text.MIN_TOKEN_CHARS
        and token not in text.STOPWORDS
        and token not in FUNCTION_WORDS
    )


def coded(word: str) -> str:
    """Return the stem of a function word written as code (`any` -> `` `any` ``): apart from
    the word, which the index never holds, so that only an entry writing it as code does."""
    return f"`{word}`"


# An acronym's plural ("URLs", "APIs", "ADRs"): one word, whose "parts" (`UR`, `Ls`) are none.
_PLURAL_ACRONYM = re.compile(r"[A-Z]{2,}s")
EDGES = "\"'`([{<>}]).,;:!?*"  # what may surround a word in prose


def words_of_identifier(word: str) -> list[str]:
    """Return the words a code identifier joins (`useEffect` -> use, Effect), none when it
    is an acronym's plural."""
    if _PLURAL_ACRONYM.fullmatch(word.strip(EDGES)):
        return []
    return _IDENTIFIER_JOINS.split(word)


def with_parts(words: list[str]) -> list[str]:
    """Return the words, each code identifier followed by its parts: a task naming
    `ReaderStateContext` is about a React context, and a document says `context`."""
    out: list[str] = []
    for word in words:
        out.append(word)
        parts = words_of_identifier(word)
        if len(parts) > 1:
            out.extend(parts)
    return out
