"""Structure rules for the intent classifier (`router.filters.intent`). Data only: standard library.

`router.filters.cue` lists words and phrases. This module reads the shape of the sentence:
- clause cues (`CLAUSE_CUES`): a relative clause inside the question ("the queue the notifier
  consumes from"), a free relative ("whoever owns"), a fronted noun phrase picked up by a
  pronoun ("the ADR that replaced X, who wrote it?"), a back-reference ("that earlier one"),
  a tag question ("..., right?"), a polar question hedged with "really" or "actually", a claim
  attributed to a document ("like the runbook says"), failure analysis and judgement frames
  ("is it sound to", "what could go wrong"), and a request narrowed to one value;
- spans where cues do not count as asked for: a negated clause ("I don't need you to grep",
  "not the reporting API's cache") ignores every cue in it, and a reported claim ("the README
  claims everything starts") ignores the global scope words in it, because they describe the
  claim, not the request.

Every pattern is bounded (no nested unbounded repetition) so hostile inputs stay linear.
"""

from __future__ import annotations

import re

from router.filters.cue import (
    CLAUSE_START,
    DEEP_REASON,
    GLOBAL,
    LEXICAL,
    LOOKUP,
    MEDIUM,
    MULTI_HOP,
    OPENING,
    STRONG,
    VERIFICATION,
    WEAK,
    Cue,
    _cue,
)

# One word of a noun phrase: letters, digits and the punctuation of names (ADR-12, /v2/x).
_W = r"[\w/.-]{1,40}"
# Determiners that open a noun phrase a relative clause can hang on.
_DET = r"(?:the|a|an|any|each)"
# Nouns after which "that" introduces the content of a claim, not a relative clause.
_CONTENT_NOUNS = r"(?:claim|idea|fact|comment|line|assumption|impression|notion|sense|way|rule)"
# A subject inside a relative clause: a determiner or possessive and a short noun phrase, or a
# document id ("ADR-0042 introduced").
_SUBJECT = (
    rf"(?:(?:the|our|its|their|this|these|those|my|your)\s+(?:{_W}\s+){{0,3}}?"
    r"|[a-z]{2,10}-\d{1,6}\s+)"
)
# A verb form inside a relative clause: -s or -ed, or a verb followed by its preposition.
_VERB = r"(?:\w+(?:s|ed)\b|\w+\s+(?:from|to|into|on|with|by|for|in)\b|gets\b|got\b)"
# The word before a reduced relative's subject ends a noun, so it is no preposition or
# conjunction ("an overview of the hooks" is no clause).
_NOT_LINK = (
    r"(?!(?:of|on|in|for|to|from|with|by|at|about|under|into|across|and|or|is|are"
    r"|like|as|than|that|if|when|because|but|so)\b)"
)
# Relation verbs of a passive reduced relative ("the key introduced by the rewrite").
_RELATION = (
    r"(?:introduced|added|created|owned|used|written|maintained|emitted|consumed|published"
    r"|called|replaced|superseded|defined|linked|run|deployed|generated)"
)

# A relative clause on the very noun a wh-frame asks for ("what's the port the daemon listens
# on") names one thing, not a hop; it counts only when the noun sits deeper in the question.
_ASKED_NOUN = (
    rf"(?:^|,)\W*{OPENING}(?:what|where|which|who|when|how)\w*(?:'s|s)?"
    r"(?:\s+(?:is|are|was|were|does|do|did))?\s*$"
)

MULTI_HOP_CLAUSES: tuple[Cue, ...] = (
    _cue("free-relative", MULTI_HOP, STRONG, r"\b(?:whoever|whichever|whatever\s+(?!else\b)\w+)"),
    _cue(
        "relative-clause",
        MULTI_HOP,
        MEDIUM,
        # "the library that the reports service uses", "the service that owns the queue".
        rf"\b{_DET}\s+(?:{_W}\s+){{0,2}}?(?!{_CONTENT_NOUNS}\b){_W}\s+(?:that|which|who)\s+"
        rf"(?:{_SUBJECT})?{_VERB}",
        unless=_ASKED_NOUN,
    ),
    _cue(
        "reduced-relative",
        MULTI_HOP,
        MEDIUM,
        # "the queue the notifier consumes from", "the flag ADR-0042 introduced".
        rf"\b{_DET}\s+(?:{_W}\s+){{0,2}}?{_NOT_LINK}{_W}\s+{_SUBJECT}\w+(?:s|ed)\b"
        rf"|\b{_DET}\s+(?:{_W}\s+){{0,2}}?{_W}\s+{_RELATION}\s+(?:by|from|in)\b",
        unless=_ASKED_NOUN,
    ),
    _cue(
        "relation-of",
        MULTI_HOP,
        MEDIUM,
        r"\b(?:owners?|consumers?|producers?|callers?|maintainers?|dependents?|parent)\s+of\b"
        r"|\b(?:upstream|downstream)\s+(?:of|services?|sources?|dependenc(?:y|ies)|data|systems?"
        r"|callers?)\b|\bbehind\s+(?:the\s+|our\s+)?/[\w/.-]+"
        r"|\blinked (?:from|in)\b|\bfurther (?:down|up)\b",
    ),
    _cue(
        "fronted-phrase",
        MULTI_HOP,
        STRONG,
        # A noun phrase, a comma, then a question that refers back to it with a pronoun.
        r"^\W*(?:the|a|an|our|that)\s[^,?.!\n]{6,120}?,\s*(?:so\s+)?"
        r"(?:what|who|which|where|when|how)\b[^?.!\n]{0,80}?\b(?:it|its|it's|they|their|them)\b",
    ),
    _cue(
        "back-reference",
        MULTI_HOP,
        MEDIUM,
        r"\b(?:that|the)\s+(?:earlier|older|previous|prior|newer|later|new|old)\s+"
        r"(?:one|adr|decision|rfc|doc|record|version)\b|\bthat one\b"
        r"|\bdid (?:it|that|the new one|they) (?:replace|supersede|keep|change|drop)\b",
    ),
    _cue(
        "then-step",
        MULTI_HOP,
        MEDIUM,
        # A second step, or a second question that refers back to the first one's answer.
        # (Word-initial alternatives: a pattern that starts with a word scans fastest.)
        r"\bthen\s+(?:tell|find|give|show|look|check|get)\b"
        r"|\band\s+(?:which|what|who|where)\b[^?.!\n]{0,80}?\b(?:that|it|its|them|they)\b",
    ),
)

VERIFICATION_CLAUSES: tuple[Cue, ...] = (
    _cue(
        "tag-question",
        VERIFICATION,
        STRONG,
        r"[,;]\s*(?:right|correct|yes|true|yeah|no|isn't it|doesn't it|don't they|aren't they)"
        r"\s*\?|(?:^|[.?!]\s+)(?:correct|right|true|yes|accurate)\s*\?",
    ),
    _cue(
        "true-or-false",
        VERIFICATION,
        STRONG,
        r"\btrue? or false\b|\bfact or (?:fiction|myth)\b|\bfolklore\b|\bmyth\b",
    ),
    _cue(
        "as-stated",
        VERIFICATION,
        STRONG,
        r"\b(?:like|as)\s+(?:the|our|its|that|this)\s+(?:[\w.-]+\s+){0,2}?[\w.-]+\s+"
        r"(?:says?|said|states?|stated|claims?|claimed|promises?|describes?|documents?)\b",
    ),
    _cue(
        "polar-hedged",
        VERIFICATION,
        STRONG,
        # A yes/no question hedged with "really" or "actually": the asker doubts a claim.
        rf"{CLAUSE_START}{OPENING}(?:does|do|did|is|are|was|were|has|have|can|will)\b"
        r"[^.?!\n]{0,80}?\b(?:really|actually|truly|indeed|in fact)\b",
        unless=r"\b(?:sound|safe|wise|good idea)\b",
    ),
    _cue(
        "heard-that",
        VERIFICATION,
        MEDIUM,
        r"\bi (?:was|have been|'ve been) told\b|\bi (?:heard|read somewhere)\b"
        r"|\b(?:insists?|swears?)\b|\bsomeone (?:said|told|claimed|mentioned)\b",
    ),
    _cue(
        "polar-question",
        VERIFICATION,
        WEAK,
        rf"{CLAUSE_START}{OPENING}(?:does|do|did|is|are|has|have)\s+(?!it\b|this\b|that\b)\w+",
    ),
)

DEEP_REASON_CLAUSES: tuple[Cue, ...] = (
    _cue(
        "is-it-sound",
        DEEP_REASON,
        STRONG,
        r"\bis (?:it|this|that)\s+(?:\w+\s+)?(?:sound|safe|wise|smart|sane|reasonable|a good idea"
        r"|a bad idea|a mistake|premature|overkill)\b|\bhow (?:risky|safe|wise)\b"
        r"|\b(?:good|bad) idea\b",
    ),
    _cue(
        "failure-analysis",
        DEEP_REASON,
        STRONG,
        r"\bfailure modes?\b|\broot[- ]?causes?\b|\bwhat (?:could|can|might) go wrong\b"
        r"|\b(?:could|can|might|would|will)\s+(?:\w+\s+){0,3}?(?:still\s+)?"
        r"(?:fail|break|go wrong|desync|deadlock)\b|\bblast radius\b|\bfalls? over\b"
        r"|\bbreaks? down\b|\bpoke holes\b|\bholes? in (?:that|this|it)\b"
        r"|\bpoint of failure\b|\bthundering herd\b|\brace conditions?\b",
    ),
    _cue(
        "reasoning",
        DEEP_REASON,
        STRONG,
        r"\breasoning\b|\brationale\b|\bhold(?:s)? up\b|\bstill makes? sense\b|\bmechanism\b"
        r"|\blikely (?:cause|explanation|culprit)\b|\bwhat'?s going on\b"
        r"|\bhow would you (?:fix|approach|design|solve|handle)\b|\bdraw the line\b",
    ),
    _cue(
        "scale",
        DEEP_REASON,
        MEDIUM,
        r"\bscale to\b|\bat (?:\w+ )?scale\b|\bhurt us\b|\bbottlenecks?\b",
    ),
)

GLOBAL_CLAUSES: tuple[Cue, ...] = (
    _cue(
        "aggregate",
        GLOBAL,
        STRONG,
        r"\boverall\b|\bbroadly\b|\btl;?dr\b|\b(?:tour|map) of\b|\bfit together\b"
        r"|\brelate to (?:each other|one another)\b|\btalks? to what\b|\brecurring\b|\bthemes?\b"
        r"|\bkeep coming up\b|\bgeneral approach\b|\bsum (?:them|it|this|that) up\b"
        r"|\bend[- ]to[- ]end\b",
    ),
    _cue(
        "across-parts",
        GLOBAL,
        MEDIUM,
        r"\bacross (?:the |our |all )?(?:\w+ )?(?:services|repo|codebase|teams|backend|stack"
        r"|systems|docs|apis)\b",
    ),
)

LEXICAL_CLAUSES: tuple[Cue, ...] = (
    _cue("todo-tag", LEXICAL, STRONG, r"\b(?:TODO|FIXME|XXX|HACK)\([\w .-]{1,40}\)", folded=False),
    _cue("glob", LEXICAL, MEDIUM, r"\*\*?/|(?<![\w*])\*\.\w+|\w\*(?=[\s.]|$)"),
    _cue(
        "files-that-contain",
        LEXICAL,
        STRONG,
        r"\b(?:which|what|any|all|every|the)\s+(?:[\w-]+\s+)?(?:files?|docs?|pages?|modules?"
        r"|places?|lines?|configs?)\s+(?:that\s+)?(?:mention|reference|contain|import|match"
        r"|set|define)\w*\b|\b(?:anything|anywhere)\s+(?:still\s+)?(?:imports?|calls?"
        r"|references?|mentions?|uses?)\b",
    ),
)

LOOKUP_CLAUSES: tuple[Cue, ...] = (
    _cue(
        "one-value",
        LOOKUP,
        STRONG,
        # The asker narrows the answer to one fact ("just the number", "nothing more").
        r"\bjust (?:the|a|one)\s+(?:\w+\s+)?(?:number|value|name|path|command|answer|fact"
        r"|setting|limit|port|version|url|link|file|id)\b|\bonly need (?:the|one|a)\b"
        r"|\bjust need to know\b|\bnothing more\b|\bone fact\b",
    ),
)

CLAUSE_CUES: tuple[Cue, ...] = (
    LEXICAL_CLAUSES
    + VERIFICATION_CLAUSES
    + MULTI_HOP_CLAUSES
    + GLOBAL_CLAUSES
    + DEEP_REASON_CLAUSES
    + LOOKUP_CLAUSES
)

# A negation that rules out what follows ("I don't need you to grep", "not asking for an
# opinion", "rather than a summary"). Its span runs to the end of the clause, or to the
# turn that says what is wanted instead (", just", ", I want", " only").
NEGATION = re.compile(
    r"\b(?:don't|dont|do not|doesn't|won't)\s+(?:need|want)\b|\bnot (?:asking|looking|interested"
    r"|after)\b|\bno need\b|\brather than\b|\binstead of\b|(?:^|[.,;:]\s*)not\s+(?:the|a|an)\b"
)
NEGATION_END = re.compile(r"[.?!;\n]|,\s*(?:just|only|but|i|we|so|the)\b|\b(?:just|only)\b")

# A claim attributed to someone or something; its scope words belong to the claim.
REPORTED = re.compile(
    r"\b(?:says|said|saying|claims|claimed|states|stated|told|insists|insisted|believes)\b"
)
REPORTED_END = re.compile(r"[.?!;\n]")
# Strategies whose cues a reported claim does not carry (its "all" and "every" are its own).
REPORTED_IGNORES: frozenset[str] = frozenset({GLOBAL})


def spans(folded: str, start: re.Pattern[str], end: re.Pattern[str]) -> list[tuple[int, int]]:
    """Return (begin, stop) character spans that open at `start` and close at `end` (or the
    end of the text)."""
    out: list[tuple[int, int]] = []
    for match in start.finditer(folded):
        close = end.search(folded, match.end())
        out.append((match.start(), close.start() if close else len(folded)))
    return out


def inside(position: int, ranges: list[tuple[int, int]]) -> bool:
    """Whether `position` falls within one of `ranges`."""
    return any(begin <= position < stop for begin, stop in ranges)


# Characters that end a clause, for `Cue.unless`.
_CLAUSE_BREAKS = ".?!;:\n"


def clause_before(folded: str, position: int) -> str:
    """Return the text of the clause that `position` is in, up to `position`."""
    start = max(folded.rfind(c, 0, position) for c in _CLAUSE_BREAKS) + 1
    return folded[start:position]
