"""Route terms: the words of a task (or of an entry's text) that the route ranker reads.

Seed 1's tokens (`text.tokens`) were made for short problem statements; an agent's prompt is
conversation ("why do we ...", "can you please ..."). The ranker therefore drops function
words (`wordlist`), leaves path syntax to the anchors, folds plurals, -ed/-ing forms and
British and American spellings onto one stem (`stemmer`: "retried" meets "retries", "licence"
meets "license"), and reads the words inside code identifiers (`useEffect`). Code-shaped words
also give the forms documents write them in (`codeword`: `-Xfoo` and `-X foo` meet, `10ms`
gives `10`), and a function word is a term where the catalog writes it as code (`any` in a Go
catalog). The explain record keeps seed 1's tokens.

Pure: every function here is a function of its arguments alone (`read` and `of_task` cache
what they made of a word).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

from router.core import text
from router.ranking import codeword
from router.ranking.stemmer import MAX_CACHED_STEMS, stem
from router.ranking.wordlist import FUNCTION_WORDS, PATH_SYNTAX


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


def of_task(task: str) -> tuple[Term, ...]:
    """Return the route terms of a task, first occurrence kept, one per stem.

    Words that read as paths are anchors first (DESIGN 6 step 2); their tokens other than
    path syntax ("src", "py") are weak terms, and a stem the task also writes as a word is
    a strong one. A dotted name with no `/` ("moment.js", "React.FC", "CITATION.cff") is
    read as a name: it may anchor, but what it names is what the task is about, so its
    tokens other than path syntax are strong terms."""
    reads: tuple[list[Word], list[Word], list[Word]] = ([], [], [])
    # a word's tokens are its own (separators never join two words), so a repeated word
    # adds no first occurrence: a long task's words are read once each
    known = _TASK_WORDS
    for word in dict.fromkeys(task.split()):
        each = known.get(word) or _read_word(word)
        reads[each.kind].append(each)
    prose, names, paths = reads
    seen = _terms(prose, names, paths)
    # A function word may be a keyword of the catalog's language (`any`, `let`): it is a
    # term where an entry writes it as code (`coded`), which the ranker asks the catalog.
    for each in prose:
        if each.coded and each.coded[0] not in seen:
            seen[each.coded[0]] = Term(each.coded[0], each.coded[1], form=True)
    for token in codeword.forms(task):
        key = stem(token)
        if key not in seen:
            seen[key] = Term(key, token, form=True)
    return tuple(seen.values())


def _terms(prose: list[Word], names: list[Word], paths: list[Word]) -> dict[str, Term]:
    """Return stem -> term of the tokens of a task's words, first occurrence kept: its prose
    words' first, then its names' and its paths' (weak) other than path syntax."""
    heads: dict[str, str] = {}
    for each in prose + names:
        for head, name in each.heads:
            heads.setdefault(head, name)
    seen: dict[str, Term] = {}
    for each in prose:
        for token in each.tokens:
            if token not in FUNCTION_WORDS:
                key = stem(token)
                if key not in seen:
                    seen[key] = Term(key, token, of_name=heads.get(key, ""))
    for group, weak in ((names, False), (paths, True)):
        for each in group:
            for token in each.tokens:
                if token not in FUNCTION_WORDS and token not in PATH_SYNTAX:
                    key = stem(token)
                    if key not in seen:
                        seen[key] = Term(key, token, weak=weak, of_name=heads.get(key, ""))
    return seen


PROSE, NAME, PATH = range(3)  # what a word of a task reads as (`Word.kind`)


class Word(NamedTuple):
    """What `of_task` makes of one whitespace-separated word of a task, whatever surrounds it.

    A named tuple: a long task reads a thousand of them, and a tuple is built in C."""

    kind: int  # PROSE, NAME (a dotted name, no `/`) or PATH
    tokens: tuple[str, ...]  # its tokens, each code identifier's parts after it (not a path's)
    heads: tuple[tuple[str, str], ...]  # (head stem, type name stem) of the type names it writes
    # the function word it is, as code (`codeword.coded`) and as written; () for none or for
    # a contraction's stub ("re" of "we're"), which is not a word the task writes
    coded: tuple[str, str] | tuple[()]


def _read_word(word: str) -> Word:
    """Return what `of_task` makes of `word`, kept for the next task that writes it."""
    if len(_TASK_WORDS) >= MAX_TASK_WORDS:
        _TASK_WORDS.clear()
    kind = PROSE if not _reads_as_path(word) else PATH if "/" in word else NAME
    with_parts = [word] if kind == PATH else codeword.with_parts([word])
    heads = () if kind == PATH else tuple(codeword.heads([word]).items())
    coded: tuple[str, str] | tuple[()] = ()
    token = word.strip(codeword.EDGES).lower()
    if (
        kind == PROSE
        and token in FUNCTION_WORDS
        and len(token) >= text.MIN_TOKEN_CHARS
        and token.isalpha()
    ):
        coded = (codeword.coded(token), token)
    read = _TASK_WORDS[word] = Word(kind, text.tokens(" ".join(with_parts)), heads, coded)
    return read


# Words kept between tasks: a user's prompts keep writing their project's words. A flood of
# new words (a pasted log) resets it rather than growing it without bound.
MAX_TASK_WORDS = 1 << 16
_TASK_WORDS: dict[str, Word] = {}


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
