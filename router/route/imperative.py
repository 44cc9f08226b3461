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
# What may open a request before its verb: politeness, "can you", "I'd like to", "how do I"
# and the like (a question how to make a thing asks for it as much as a request does).
_OPENING = (
    r"(?:(?:please|pls|ok|okay|now|also|then|so|hey|quick(?:ly)?)\b[,:]?[ \t]*)*"
    r"(?:(?:can|could|would|will) you (?:please )?|"
    r"how (?:do|can|should|would) (?:i|we|you) |(?:is there a|what's the|what is the) "
    r"(?:best |right |simplest )?way to |(?:i|we) (?:should|must) |"
    r"(?:i|we) (?:really )?(?:want|need|would like|'d like|'d love|have) (?:you )?to |"
    r"(?:i|we)'d like (?:you )?to |let's |lets |help me |go ahead and )?"
    r"(?:please )?"
)
# A fronted phrase before the verb: "In our Unreal Engine 5 project, add ...".
_FRONTED = r"(?:(?:in|for|on|inside|within|across|at|from)\b[^,\n]{0,80}+,[ \t]*)?"
# A sentence that opens with a request verb ("re-record" asks to record), found in one scan
# of the text: a pasted log of thousands of lines costs one pass, not a match per line.
_REQUEST = re.compile(
    r"(?:^|(?<=[.!?])[ \t])[ \t]*+"
    + _OPENING
    + _FRONTED
    + r"(?:re-)?(?:"
    + "|".join(sorted(REQUEST_VERBS, key=lambda v: (-len(v), v)))
    + r")\b(?![-'])[ \t]*(?P<rest>[^\n]*)",
    re.IGNORECASE | re.MULTILINE,
)
# Particles that belong to the verb ("set up", "turn on", "write down"), not to what it asks
# for; "to" before a destination ("migrate to Postgres") asks for the destination.
_PARTICLE = re.compile(
    r"^(?:(?:up|on|off|out|in|down|together|back)\b\s*)?(?:(?:over )?(?:to|onto|into)\s+)?",
    re.IGNORECASE,
)
# Where the phrase naming what is asked for ends: a preposition other than "of" (which binds
# inside a noun phrase: "a Code of Conduct"), a clause's conjunction, a time ("next week"),
# or punctuation.
_PHRASE_END = re.compile(
    r"\s(?:to|for|in|into|on|onto|off|with|from|at|by|between|under|inside|via|against|across|"
    r"next\s+to|alongside|beside|behind|over|through|around|"
    r"so|that|which|who|when|whenever|where|because|while|if|unless|until|before|after|since|"
    r"as|and|or|but|then|than|without|instead|e\.g\.|i\.e\.|"
    r"(?:next|this|last)\s+(?:week|month|sprint|quarter|release|year)|tomorrow|tonight|later|"
    r"soon|asap|again|everywhere|please)\b|[,;:()!?]|\.(?:\s|$)|$",
    re.IGNORECASE,
)
# "Make sure", "make certain": a check asked for, not a thing.
_IDIOM = re.compile(r"^(?:sure|certain)\b", re.IGNORECASE)
_FENCE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
# A size, count or version written as one word: "400px-wide", "24-row", "three", "v2". It says
# how much or which, not what: a catalog need not hold it.
MEASURE = re.compile(
    r"^(?:\d[\d.,]*[a-z%]{0,3}|v\d[\d.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"twenty|thirty|fifty|hundred|thousand|dozen|half|couple|few|several)(?:-[a-z]+)*$",
    re.IGNORECASE,
)


def asked(task: str) -> str | None:
    """Return the phrase naming what the task's first request sentence asks to make or
    change, measures ("400px-wide") left out, or None when no sentence opens with a request
    verb (a question, a report, a review). The phrase may be empty ("Fix it.")."""
    for request in _REQUEST.finditer(_FENCE.sub(" ", task)):
        rest = request.group("rest")
        if _IDIOM.match(rest):
            continue
        rest = " " + _PARTICLE.sub("", rest, count=1)  # a conjunction right away ends it too
        end = _PHRASE_END.search(rest)
        phrase = rest[: end.start()] if end else rest
        return " ".join(w for w in phrase.split() if not MEASURE.match(w.strip("`'\"")))
    return None
