"""What a change request asks for: the noun phrase after its verb ("Add a CITATION.cff so
...", "set up my Neovim config with ...", "In our Unreal project, add a C++ actor component").

Silence uses it (`silence.lacking`): a request to make or change something the catalog has
never named ("an Alexa skill", "AWS WAF") is out of its scope unless the words it shares
with an entry say otherwise, while a question, or a request about something the catalog
knows, is judged by evidence alone. Pure: a function of the text.
"""

from __future__ import annotations

import re

# Verbs that open a request to make or change something. "review", "explain", "let" and
# "help" are left out: what follows them is the user's own work or a question.
REQUEST_VERBS = frozenset(
    """
    add build create make write generate implement introduce provision set turn put post send
    start install configure enable disable deploy publish ship wire hook integrate embed expose
    support allow instrument record schedule automate bump upgrade update move change convert
    replace switch migrate port rewrite refactor rename remove delete drop split merge wrap fix
    cache log track validate enforce sync store
    """.split()
)
# What may open a request before its verb: politeness, "can you", "I'd like to" and the like.
_OPENING = re.compile(
    r"^(?:(?:please|pls|ok|okay|now|also|then|so|hey|quick(?:ly)?)\b[,:]?\s*)*"
    r"(?:(?:can|could|would|will) you (?:please )?|"
    r"(?:i|we) (?:really )?(?:want|need|would like|'d like|'d love|have) (?:you )?to |"
    r"(?:i|we)'d like (?:you )?to |let's |lets |help me |go ahead and )?"
    r"(?:please )?",
    re.IGNORECASE,
)
# A fronted phrase before the verb: "In our Unreal Engine 5 project, add ...".
_FRONTED = re.compile(r"^(?:in|for|on|inside|within|across|at|from)\b[^,]{0,80},\s*", re.I)
# Particles that belong to the verb ("set up", "turn on"), not to what it asks for.
_PARTICLE = re.compile(r"^(?:up|on|off|out|in|together|back)\b\s*", re.IGNORECASE)
# Where the phrase naming what is asked for ends: a preposition other than "of" (which binds
# inside a noun phrase: "a Code of Conduct"), a clause's conjunction, or punctuation.
_PHRASE_END = re.compile(
    r"\s(?:to|for|in|into|on|onto|with|from|at|by|between|under|inside|via|against|across|"
    r"next\s+to|alongside|beside|behind|over|through|around|"
    r"so|that|which|who|when|whenever|where|because|while|if|unless|until|before|after|since|"
    r"as|and|or|but|then|than|without|instead|e\.g\.|i\.e\.)\b|[,;:()!?]|\.(?:\s|$)|$",
    re.IGNORECASE,
)
# "Make sure", "make certain": a check asked for, not a thing.
_IDIOM = re.compile(r"^(?:sure|certain)\b", re.IGNORECASE)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_FENCE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
# A size or count written as one word: "400px-wide", "24-row", "5-minute". It says how much,
# not what: a catalog need not hold it.
MEASURE = re.compile(
    r"^(?:\d[\d.,]*[a-z%]{0,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"twenty|thirty|fifty|hundred|thousand|dozen|half|couple|few|several)(?:-[a-z]+)*$",
    re.IGNORECASE,
)
_WORD = re.compile(r"^([A-Za-z]+(?:-[A-Za-z]+)?)\b\s*(.*)$", re.DOTALL)


def asked(task: str) -> str | None:
    """Return the phrase naming what the task's first request sentence asks to make or
    change, measures ("400px-wide") left out, or None when no sentence opens with a request
    verb (a question, a report, a review). The phrase may be empty ("Fix it.")."""
    for sentence in _SENTENCES.split(_FENCE.sub(" ", task)):
        rest = _OPENING.sub("", sentence.strip(), count=1)
        rest = _FRONTED.sub("", rest, count=1)
        opening = _WORD.match(rest)
        if opening is None or _verb(opening.group(1)) not in REQUEST_VERBS:
            continue
        if _IDIOM.match(opening.group(2)):
            continue
        rest = _PARTICLE.sub("", opening.group(2), count=1)
        end = _PHRASE_END.search(rest)
        phrase = rest[: end.start()] if end else rest
        return " ".join(w for w in phrase.split() if not MEASURE.match(w.strip("`'\"")))
    return None


def _verb(word: str) -> str:
    """Return a request's opening word as a verb to look up: lower-cased, a "re-" dropped
    ("re-record" asks to record)."""
    word = word.lower()
    return word[3:] if word.startswith("re-") else word
