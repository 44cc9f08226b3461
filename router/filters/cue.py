"""Cue tables for the intent classifier (`router.filters.intent`). Data only: standard library.

A cue is a regular expression that, when it matches a task text, adds its weight to one
strategy's score. The lists are deliberately short and general: each names a way developers
phrase a kind of question, not a particular question.

Matching rules:
- Cues with `folded=True` match the lower-cased text; the others (identifiers, literals) match
  the text as written, because case is the evidence.
- A cue fires at most once per text, whatever the number of matches.
- Gaps inside a phrase ("all ... about") are bounded and stop at sentence punctuation, so a
  cue stays local. Repetitions are bounded or unambiguous, so no pattern backtracks badly on
  a hostile input (tests time the worst shapes found).
- `frame=True` marks a question frame ("what is", "where is", "how do I"): it says the text is
  a direct question but not what kind of answer it needs. Frames do not add up: only the
  strongest frame that fired counts. When content cues of other
  strategies add up to at least MEDIUM, frame weights are multiplied by `FRAME_DAMPING`
  (a lone WEAK hint such as an identifier does not override a question frame).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LOOKUP = "lookup"
LEXICAL = "lexical"
VERIFICATION = "verification"
MULTI_HOP = "multi-hop"
GLOBAL = "global"
DEEP_REASON = "deep-reason"

# Order is the tie-break when two strategies score the same (narrowest first).
STRATEGIES: tuple[str, ...] = (LOOKUP, LEXICAL, VERIFICATION, MULTI_HOP, GLOBAL, DEEP_REASON)

# Weights: how much one cue says about the strategy on its own.
STRONG = 3.0  # a phrase that names the strategy ("grep for", "summarize", "verify")
MEDIUM = 2.0  # a phrase that usually means it ("pros and cons" is strong; "compare" medium)
WEAK = 1.0  # a hint that other strategies also produce (an identifier, "history")
# A question frame says a text is a question, not what kind: multi-hop, verification and
# deep-reason questions open with "what" or "which" too. Once content cues of other strategies
# reach MEDIUM the frame stops counting (0.0), so it neither wins nor dilutes their confidence.
FRAME_DAMPING = 0.0
# A lookup frame in a text of at most this many tokens adds the `few-words` cue (WEAK).
FEW_WORDS = 12

# Calendar words after "every" make a schedule ("every sunday"), not a scope.
_TIME_UNIT = (
    r"(?:second|minute|hour|day|night|week|month|quarter|year|morning|evening|time|run|deploy"
    r"|release|build|sprint|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
)

# Where a clause starts: the text start, or after sentence punctuation, a colon or a newline.
CLAUSE_START = r"(?:^|[.?!:;\n]\s*)\W*"
# Polite or indirect openings that hide the question word ("quick q:", "hey sorry if this is
# obvious,", "can you tell me", "I keep forgetting,"), skipped before looking for it. Bounded
# and comma-delimited so the skip stays inside the opening.
OPENING = (
    r"(?:(?:(?:hey|hi|hello|ok|okay|so|um|yo|pls|please|quick (?:q|question)|q|question"
    r"|dumb question|i keep forgetting|i forget|i forgot"
    r"|(?:can|could|would) (?:you|u) (?:please |pls )?(?:tell|remind|show) me"
    r"|(?:please |pls )?(?:tell|remind|show) me"
    r"|(?:do|does) (?:you|u|anyone) (?:happen to )?know)\b|sorry[^,.?!:\n]{0,40},)[\s,:!-]*){0,3}"
)

# Bounded gap inside a phrase: up to 60 characters, not crossing . ? ! or a newline.
_GAP = r"[^.?!\n]{0,60}?"


@dataclass(frozen=True, slots=True)
class Cue:
    name: str
    strategy: str
    weight: float
    pattern: re.Pattern[str]
    folded: bool = True
    frame: bool = False
    # A match does not count when this pattern finds anything in the clause before it (the
    # text since the last . ? ! ; : or newline): the same words mean something else there.
    unless: re.Pattern[str] | None = None


def _cue(
    name: str,
    strategy: str,
    weight: float,
    regex: str,
    *,
    folded: bool = True,
    frame: bool = False,
    unless: str | None = None,
) -> Cue:
    guard = re.compile(unless) if unless is not None else None
    return Cue(name, strategy, weight, re.compile(regex), folded, frame, guard)


# Lexical: the answer is wherever an exact string occurs (BM25 / grep territory).
LEXICAL_CUES: tuple[Cue, ...] = (
    _cue("grep-verb", LEXICAL, STRONG, r"\b(?:grep|rg|ripgrep|ack)\b"),
    _cue(
        "find-containing",
        LEXICAL,
        STRONG,
        rf"\b(?:find|search|look|list|show|locate)\b{_GAP}\b(?:contain(?:s|ing)?|referenc(?:e|es|ing)"
        r"|mention(?:s|ing)?|matching|(?:has|have|with) the (?:string|phrase|text|word))\b",
    ),
    _cue("search-for", LEXICAL, MEDIUM, r"\bsearch\b(?:\s+\S+){0,3}?\s+for\b"),
    _cue(
        "exact-string",
        LEXICAL,
        MEDIUM,
        r"\b(?:exact|literal)\s+(?:string|phrase|text|match|name|word)\b"
        r"|\bthe (?:string|phrase|token|literal|symbol)\b",
    ),
    _cue(
        "usages-of",
        LEXICAL,
        MEDIUM,
        r"\b(?:usages?|uses|calls?|call sites?|occurrences?|references?|imports?) (?:of|to)\b",
    ),
    _cue("mentions", LEXICAL, WEAK, r"\b(?:mention(?:s|ed|ing)?|referenc(?:e|es|ed|ing))\b"),
    _cue(
        "quoted-literal",
        LEXICAL,
        MEDIUM,
        r"\"[^\"\n]{1,80}\"|(?<!\w)'[^'\n]{1,80}'(?!\w)",
        folded=False,
    ),
    _cue("backtick-literal", LEXICAL, MEDIUM, r"`[^`\n]{1,80}`", folded=False),
    _cue(
        "identifier",
        LEXICAL,
        WEAK,
        r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"  # snake_case
        r"|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b"  # UPPER_SNAKE
        r"|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b"  # CamelCase
        r"|\b[a-z]+[A-Z][A-Za-z0-9]*\b"  # lowerCamel
        r"|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b"  # dotted.name, file.ext
        r"|(?<![\w.-])[\w.-]{1,64}/[\w./-]+"  # a path
        r"|\b[A-Z]{2,10}(?:-[A-Z]{1,10}){0,3}-\d{1,6}\b",  # a document or ticket id (ADR-12)
        folded=False,
    ),
)

# Verification: a claim is stated and must be checked against the documents.
VERIFICATION_CUES: tuple[Cue, ...] = (
    _cue(
        "is-it-true",
        VERIFICATION,
        STRONG,
        r"\bis (?:it|this|that) (?:\w+ )?(?:true|correct|right|accurate)\b",
    ),
    _cue("verify", VERIFICATION, STRONG, r"\b(?:verify|validate|confirm)\b"),
    _cue(
        "check-that", VERIFICATION, STRONG, r"\b(?:check|ensure|make sure)\s+(?:that|whether|if)\b"
    ),
    _cue(
        "double-check",
        VERIFICATION,
        MEDIUM,
        r"\bdouble[- ]?check\b|\bmake sure\b|\bsanity[- ]check\b",
    ),
    _cue(
        "does-still", VERIFICATION, MEDIUM, rf"\b(?:does|do|is|are|did|has|have)\b{_GAP}\bstill\b"
    ),
    _cue(
        "still-holds",
        VERIFICATION,
        MEDIUM,
        r"\bstill (?:true|valid|accurate|correct|hold|holds|apply|applies"
        r"|in effect|current|the case)\b",
    ),
    _cue(
        "am-i-right",
        VERIFICATION,
        MEDIUM,
        r"\bam i (?:right|correct|wrong)\b|\bis that (?:right|correct|accurate|so)\b"
        r"|\b(?:is|are) (?:he|she|they|you) (?:right|correct|wrong)\b"
        r"|\bpretty sure\b",
    ),
    _cue("claim", VERIFICATION, WEAK, r"\b(?:claims?|asserts?|said that|says that)\b"),
)

# Multi-hop: the answer is reached through another document (succession, dependency).
MULTI_HOP_CUES: tuple[Cue, ...] = (
    _cue("in-place-of", MULTI_HOP, STRONG, r"\bin (?:place|lieu) of\b"),
    _cue(
        "supersedes",
        MULTI_HOP,
        STRONG,
        r"\bsupersed\w*|\bsupersession\b|\breplaced by\b|\bwhat replaced\b"
        r"|\b(?:obsoleted|deprecated) by\b",
    ),
    _cue(
        "came-before",
        MULTI_HOP,
        STRONG,
        r"\bcame (?:before|after)\b|\bpredecessor|\bsuccessor|\bbefore that one\b",
    ),
    _cue("depends-which", MULTI_HOP, STRONG, rf"\bdepends? on\b{_GAP}\b(?:which|that|what)\b"),
    _cue(
        "rests-on",
        MULTI_HOP,
        MEDIUM,
        r"\b(?:rests?|rested|based|built|builds?|relies|relied|rely|depends?|depended) on\b",
        # "can we rely on X", "is it safe to build on X" ask about trust, not a dependency.
        unless=r"\b(?:can|could|should|do|does|safe to|ok to|okay to)\s+(?:we|i|you)?\s*$",
    ),
    _cue("chain", MULTI_HOP, MEDIUM, r"\b(?:chain|lineage|trace\w*|led to|leads to|lead up to)\b"),
    _cue(
        "history",
        MULTI_HOP,
        WEAK,
        r"\b(?:history|introduced|origin(?:al|ally)?|evolv\w*|later ones?|earlier ones?)\b",
    ),
)

# Global: the answer aggregates a broad slice of the catalog.
GLOBAL_CUES: tuple[Cue, ...] = (
    _cue(
        "summarize",
        GLOBAL,
        STRONG,
        r"\bsummar(?:y|ies|i[sz]e[sd]?|i[sz]ing)\b|\brecap\b|\brundown\b",
    ),
    _cue(
        "overview",
        GLOBAL,
        STRONG,
        r"\boverview\b|\bbig picture\b|\bhigh[- ]level\b|\bbroad strokes\b",
    ),
    _cue("all-about", GLOBAL, STRONG, rf"\ball\b{_GAP}\babout\b|\beverything\b"),
    _cue(
        "list-every",
        GLOBAL,
        STRONG,
        r"\blist (?:all|every|each)\b|\bwhat are all\b"
        r"|\ball the (?:rules|decisions|docs|skills|specs)\b",
    ),
    _cue("tell-me-about", GLOBAL, MEDIUM, r"\btell me about\b|\bwhat do (?:our|the) docs say\b"),
    _cue(
        "walk-through",
        GLOBAL,
        MEDIUM,
        r"\bwalk me through\b|\bthe whole\b|\bentire\b|\bin general\b",
    ),
    _cue(
        "breadth",
        GLOBAL,
        WEAK,
        # "every sunday", "every 90 days", "which all regions": a schedule or a filler, not
        # a request to aggregate.
        rf"\bacross (?:all|the|every)\b|\bevery\b(?!\s+(?:\d|few|other|{_TIME_UNIT}))"
        r"|\ball\b(?<!which all)(?<!what all)",
    ),
)

# Deep-reason: a design question, a trade-off or a proof; retrieve generously and reason.
DEEP_REASON_CUES: tuple[Cue, ...] = (
    _cue("why-would", DEEP_REASON, STRONG, r"\bwhy (?:would|should|not|wouldn't|shouldn't)\b"),
    _cue("why", DEEP_REASON, MEDIUM, r"\bwhy (?:did|do|does|is|are|was|were)\b|\band why\b"),
    _cue("prove", DEEP_REASON, STRONG, r"\bprove\b|\bproof\b|\binvariants?\b"),
    _cue(
        "should-we",
        DEEP_REASON,
        STRONG,
        r"^\W*should\b|\bshould (?:we|i)\b|\bwould it be (?:better|worse|wise)\b"
        r"|\bis it worth\b|\bworth it\b",
        # "which channel should I post in", "who should I ping": a modal inside a question
        # about a fact, not a design judgement.
        unless=r"\b(?:who|whom|which|where|when)\b",
    ),
    _cue(
        "trade-off",
        DEEP_REASON,
        STRONG,
        r"\btrade-?offs?\b|\bpros\s*(?:and|/|&)\s*cons\b|\bdownsides?\b|\brisks?\b"
        r"|\bimplications?\b|\bcost us\b",
    ),
    _cue("compare", DEEP_REASON, MEDIUM, r"\bcompar(?:e|ed|ing|ison)\b|\bversus\b|\bvs\b"),
    _cue(
        "what-if",
        DEEP_REASON,
        MEDIUM,
        r"\bwhat happens if\b|\bwhat if\b|\bthink (?:through|about)\b|\breason about\b|\brethink\b"
        r"|\bwhat would\b|\bhow should (?:we|i)\b|\bdesign (?:question|choice|decision)s?\b",
    ),
    _cue("better", DEEP_REASON, WEAK, r"\bbetter\b|\bbest (?:way|approach|option)\b"),
)

# Lookup: a short direct question with one answer. These are frames (see module doc).
LOOKUP_CUES: tuple[Cue, ...] = (
    _cue(
        "where-is",
        LOOKUP,
        MEDIUM,
        r"\bwhere(?:'s|s| is| are| do| does| can)\b"
        r"|\bwhich (?:file|doc|module|dir|directory|one)\b",
        frame=True,
    ),
    _cue(
        "wh-question",
        LOOKUP,
        # MEDIUM: a question word opening a clause (after any polite opening) is a direct
        # question on its own; content cues of other strategies still damp it.
        MEDIUM,
        rf"{CLAUSE_START}{OPENING}(?:what|where|which|who|when|how)\b",
        frame=True,
    ),
    _cue(
        "asks-for-fact",
        LOOKUP,
        MEDIUM,
        # An indirect question: "remind me which", "do you know where", "tell me what".
        r"\b(?:tell|remind|show) (?:me|us)\W+(?:\w+\W+){0,2}?(?:which|what|where|who|when|how)\b"
        r"|\b(?:do|does|would) (?:you|u|anyone) (?:happen to )?know"
        r" (?:which|what|where|who|when|how)\b",
        frame=True,
    ),
    _cue("how-do-i", LOOKUP, MEDIUM, r"\bhow (?:do|can|to)\b|\bsteps? to\b", frame=True),
    _cue(
        "what-is",
        LOOKUP,
        WEAK,
        r"\bwhat(?:'s|s| is| are| does)\b|\bwho (?:owns|maintains|wrote)\b|\bwhen (?:was|did)\b",
        frame=True,
    ),
)

CUES: tuple[Cue, ...] = (
    LEXICAL_CUES + VERIFICATION_CUES + MULTI_HOP_CUES + GLOBAL_CUES + DEEP_REASON_CUES + LOOKUP_CUES
)

# Scoped exact-match lookup (skip "scoped-lexical"): an exact-match verb, and a named directory
# introduced by under/in/inside/within, or given to grep/rg later in the same sentence. A
# directory is a path with a slash that does not end in a file extension, or a word followed
# by dir/directory/folder/tree.
SCOPE_VERB = re.compile(r"\b(?:grep|rg|ripgrep|ack|find|search|look|list|locate|show)\b")
_DIR = (
    r"[`'\"]?(?:[\w.-]{1,64}/(?:[\w-]{1,64}/){0,8}[\w-]{0,64}"
    r"|[\w.-]{1,64}/?[`'\"]?\s+(?:dir|directory|folder|tree))(?![\w.])"
)
SCOPE_DIR = re.compile(
    rf"\b(?:under|in|inside|within|beneath|below)\s+(?:the\s+)?{_DIR}"
    # "search docs/ for X": the directory given straight to the verb.
    rf"|\b(?:grep|rg|search|look|find)\s+(?:in\s+|through\s+)?(?=[\w.-]{{1,64}}/){_DIR}"
    rf"|\b(?:grep|rg)\b{_GAP}\s{_DIR}"
)
