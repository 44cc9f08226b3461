"""Route terms: the words of a task (or of an entry's text) that the route ranker reads.

Seed 1's tokens (`text.tokens`) were made for short problem statements; an agent's prompt is
conversation ("why do we ...", "can you please ..."). The ranker therefore drops function
words (`wordlist`), leaves path syntax to the anchors, folds plurals, -ed/-ing forms and
British and American spellings onto one stem (`stemmer`: "retried" meets "retries", "licence"
meets "license"), and reads the words inside code identifiers (`useEffect`). Code-shaped words
also give the forms documents write them in (`codeword`: `-Xfoo` and `-X foo` meet, `10ms`
gives `10`), and a function word is a term where the catalog writes it as code (`any` in a Go
catalog). The explain record keeps seed 1's tokens.

Pure: every function here is a function of its arguments alone (`read` caches what it made of
a word).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass

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
    heads = codeword.heads(prose + names)
    seen: dict[str, Term] = {}
    for token in text.tokens(" ".join(codeword.with_parts(prose))):
        if token not in FUNCTION_WORDS:
            key = stem(token)
            if key not in seen:
                seen[key] = Term(key, token, of_name=heads.get(key, ""))
    for words, weak in ((codeword.with_parts(names), False), (paths, True)):
        for token in text.tokens(" ".join(words)):
            if token not in FUNCTION_WORDS and token not in PATH_SYNTAX:
                key = stem(token)
                if key not in seen:
                    seen[key] = Term(key, token, weak=weak, of_name=heads.get(key, ""))
    # A function word may be a keyword of the catalog's language (`any`, `let`): it is a
    # term where an entry writes it as code (`coded`), which the ranker asks the catalog. A
    # contraction's stub ("re" of "we're") is not a word the task writes.
    for word in prose:
        token = word.strip(codeword.EDGES).lower()
        if token in FUNCTION_WORDS and len(token) >= text.MIN_TOKEN_CHARS and token.isalpha():
            key = codeword.coded(token)
            if key not in seen:
                seen[key] = Term(key, token, form=True)
    for token in codeword.forms(task):
        key = stem(token)
        if key not in seen:
            seen[key] = Term(key, token, form=True)
    return tuple(seen.values())


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
