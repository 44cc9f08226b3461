"""Route terms: the words of a task (or of an entry's text) that the route ranker reads.

Seed 1's tokens (`text.tokens`) were made for short problem statements; an agent's prompt is
conversation ("why do we ...", "can you please ..."). The ranker therefore drops function
words, leaves path syntax to the anchors, folds plurals, -ed/-ing forms and British and
American spellings onto one stem ("retried" meets "retries", "licence" meets "license"), and
reads the words inside code identifiers (`useEffect`). Code-shaped words also give the forms
documents write them in (`forms`: `-Xfoo` and `-X foo` meet, `10ms` gives `10`), and a
function word is a term where the catalog writes it as code (`any` in a Go catalog). The
explain record keeps seed 1's tokens.

Pure: every function here is a function of its arguments alone.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass

from router.core import text

# Words that carry the shape of a request, not its subject: pronouns, auxiliaries, wh-words,
# request and hedge words, contraction stubs ("don't" normalizes to "don t"), quantifiers and
# prepositions beyond seed 1's stopwords. None of them names what a document is about.
FUNCTION_WORDS = frozenset(
    """
    i me my mine myself we us our ours ourselves you your yours yourself he him his she her
    they them their theirs it its itself one ones someone anyone everyone somebody anybody
    what which who whom whose when where why how whether if then than so because since while
    whereas though although however but nor not no yes yeah yep nope ok okay
    do does did doing done don doesn didn have has having had haven hasn hadn
    am was were been being isn aren wasn weren won wouldn shouldn couldn can cannot cant
    could would should shall will may might must ll ve re
    please pls plz thanks thank thx hi hello hey hiya guys folks btw fyi imo asap tl dr
    want wants wanted wanting need needs needed needing let lets like likes liked
    just only really actually maybe perhaps probably basically simply kind sort quite
    also too very much many more most less least lot lots bit
    some any all every each other others another such same own both either neither
    there here now today currently already still yet again ever never always sometimes often
    even else instead rather
    thing things something anything everything nothing stuff way ways
    know think see look looking seem seems seemed try trying tried tell help sure mean means
    going gonna wanna gotta got get gets getting goes went
    about above after before over under between through during without within up down out
    off around across against along toward towards onto upon via per etc eg ie vs
    right wrong quick anyway somewhere
    using used
    """.split()
)
# Tokens of path syntax: source roots, build folders and file extensions. In a path they
# say where a file lives, not what the task is about ("src/api/payments.py" is about payments).
PATH_SYNTAX = frozenset(
    """
    src lib libs app apps pkg pkgs cmd internal packages package crates crate modules vendor
    dist build out bin target test tests spec specs index main init mod doc docs github
    py pyi ts tsx js jsx mjs cjs rs go rb java kt kts scala md mdc mdx rst json jsonl yaml yml
    toml txt sh bash zsh sql css scss less html htm vue svelte c h cc cpp hpp cs php swift m
    lock cfg ini conf xml gradle proto tf env log csv
    """.split()
)
# The actions of a change request. They rank (a document titled "Add X" is about adding),
# but no route speaks because of them: every task asks to add, fix or change something.
ACTION_WORDS = frozenset(
    """
    add adds added adding fix fixes fixed fixing change changes changed changing make makes
    made making create creates created creating update updates updated updating remove
    removes removed removing delete deletes deleted write writes wrote written writing set
    sets setting run runs ran running put puts show shows showed shown give gives keep keeps
    stop stops start starts starting turn turns move moves moved check checks review
    reviews work works worked find finds found new old time times
    """.split()
)
MIN_STEM_CHARS = 4  # "mode" stays "mode": `mod` is a different word


@dataclass(frozen=True, slots=True)
class Term:
    """One term of a task: its stem (what the index holds), the word the task wrote, and
    whether it came only from a path the task names (a weak term: it can lift an entry the
    task's own words reach, never make a route speak on its own)."""

    stem: str
    word: str
    weak: bool = False
    # when the term is the head of a type name the task writes (`context` of
    # `ReaderStateContext`): that name's stem, which the ranker looks up in the catalog
    of_name: str = ""
    # a form of a code-shaped word (`forms`) or a function word the catalog may write as
    # code: the ranker reads it only where some entry holds it
    form: bool = False


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
# a new pattern needs its ending there and in test_term's FOLDED_ENDINGS too.
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


def is_function_word(token: str) -> bool:
    """Return whether a normalized token is a function word (never a route term)."""
    return token in FUNCTION_WORDS


def of_task(task: str) -> tuple[Term, ...]:
    """Return the route terms of a task, first occurrence kept, one per stem.

    Words that read as paths are anchors first (DESIGN 6 step 2); their tokens other than
    path syntax ("src", "py") are weak terms, and a stem the task also writes as a word is
    a strong one. A dotted name with no `/` ("moment.js", "React.FC", "CITATION.cff") is
    read as a name: it may anchor, but what it names is what the task is about, so its
    tokens other than path syntax are strong terms."""
    prose: list[str] = []
    names: list[str] = []
    paths: list[str] = []
    # a word's tokens are its own (separators never join two words), so a repeated word
    # adds no first occurrence: a long task's words are read once each
    for word in dict.fromkeys(task.split()):
        if not _reads_as_path(word):
            prose.append(word)
        else:
            (paths if "/" in word else names).append(word)
    heads = _heads(prose + names)
    seen: dict[str, Term] = {}
    for token in text.tokens(" ".join(_with_parts(prose))):
        if token not in FUNCTION_WORDS:
            key = stem(token)
            if key not in seen:
                seen[key] = Term(key, token, of_name=heads.get(key, ""))
    for words, weak in ((_with_parts(names), False), (paths, True)):
        for token in text.tokens(" ".join(words)):
            if token not in FUNCTION_WORDS and token not in PATH_SYNTAX:
                key = stem(token)
                if key not in seen:
                    seen[key] = Term(key, token, weak=weak, of_name=heads.get(key, ""))
    # A function word may be a keyword of the catalog's language (`any`, `let`): it is a
    # term where an entry writes it as code (`coded`), which the ranker asks the catalog. A
    # contraction's stub ("re" of "we're") is not a word the task writes.
    for word in prose:
        token = word.strip(_EDGES).lower()
        if token in FUNCTION_WORDS and len(token) >= text.MIN_TOKEN_CHARS and token.isalpha():
            key = coded(token)
            if key not in seen:
                seen[key] = Term(key, token, form=True)
    for token in forms(task):
        key = stem(token)
        if key not in seen:
            seen[key] = Term(key, token, form=True)
    return tuple(seen.values())


def _heads(words: list[str]) -> dict[str, str]:
    """Return head stem -> type name stem for the type names among `words`: identifiers
    in PascalCase of two words or more (`ReaderStateContext`, `HTTPServer`), whose last word
    names what kind of thing the name is (a context, a server). A function's name
    (`useEffect`, `getContent`) opens with its verb, and a snake-cased or underscored
    one (`WeatherPlugin_GetForecast`) may end in one: neither counts."""
    heads: dict[str, str] = {}
    for word in words:
        for name in _IDENTIFIER.findall(word):
            joined = _words_of_identifier(name)
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
        named = [part for word in identifiers(raw) for part in _words_of_identifier(word)]
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
_EDGES = "\"'`([{<>}]).,;:!?*"  # what may surround a word in prose


def _words_of_identifier(word: str) -> list[str]:
    """Return the words a code identifier joins (`useEffect` -> use, Effect), none when it
    is an acronym's plural."""
    if _PLURAL_ACRONYM.fullmatch(word.strip(_EDGES)):
        return []
    return _IDENTIFIER_JOINS.split(word)


def _with_parts(words: list[str]) -> list[str]:
    """Return the words, each code identifier followed by its parts: a task naming
    `ReaderStateContext` is about a React context, and a document says `context`."""
    out: list[str] = []
    for word in words:
        out.append(word)
        parts = _words_of_identifier(word)
        if len(parts) > 1:
            out.extend(parts)
    return out


def read(normal: str) -> tuple[dict[str, int], set[str]]:
    """Return what the index keeps of an already normalized text, in one pass: stem ->
    occurrences (function words, stopwords and one-character words left out: what the
    ranker indexes), and seed 1's distinct tokens (function words included: the explain
    record's df counts them)."""
    words = normal.split()
    known = _WORDS
    if len(words) < FEW_WORDS:  # a field: a loop costs less than the sets below
        stems: dict[str, int] = {}
        tokens: set[str] = set()
        for word in words:
            found = known.get(word)
            if found is None:
                found = _classify(word)
            if found is _DROPPED:
                continue
            tokens.add(word)
            if found:
                stems[found] = stems.get(found, 0) + 1
        return stems, tokens
    # A body: each word is looked up and counted in C calls; only words never met before
    # are classified one by one.
    distinct = set(words)
    unseen = distinct.difference(known)
    if len(known) + len(unseen) >= MAX_CACHED_STEMS:
        _forget()
        unseen = distinct
    for word in unseen:
        _classify(word)
    counted = Counter(map(known.__getitem__, words))
    counted.pop("", None)  # function words: tokens, never stems
    counted.pop(_DROPPED, None)
    return counted, distinct.difference(_DROPPED_WORDS)


# Below this many words a text is read word by word (`read`).
FEW_WORDS = 64


# What `read` makes of a word it met before: its stem, "" for a function word (a token, never
# a stem), _DROPPED for a stopword or a one-character word. Loading a catalog meets the same
# few thousand words millions of times; one lookup replaces three tests and a fold.
_DROPPED = "\0"
_WORDS: dict[str, str] = {}
_DROPPED_WORDS: set[str] = set()  # the words _WORDS holds as _DROPPED


def _forget() -> None:
    _WORDS.clear()
    _DROPPED_WORDS.clear()


def _classify(word: str) -> str:
    if len(_WORDS) >= MAX_CACHED_STEMS:
        _forget()
    word = sys.intern(word)
    # one character is too little for a word, but an operator (`?`) is a form whole
    if (len(word) < text.MIN_TOKEN_CHARS and word.isalnum()) or word in text.STOPWORDS:
        found = _DROPPED
        _DROPPED_WORDS.add(word)
    elif word in FUNCTION_WORDS:
        found = ""
    else:
        found = stem(word)
    _WORDS[word] = found
    return found


def _reads_as_path(word: str) -> bool:
    if not text.may_be_path(word):
        return False
    return any(text.looks_like_path(r) for r in text.path_readings(word))
