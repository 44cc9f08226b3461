"""Intent: which retrieval strategy a task text needs (DESIGN section 9, seed 4).

Pure core: no I/O, clock, environment or randomness; never prints; standard library only
(hooks import it). `classify` never raises on any `str`.

How a text is classified:
1. Every cue of `router.filters.cue` (words) and `router.filters.clause` (sentence structure)
   that matches adds its weight to its strategy, once per cue. A match does not count inside a
   negated clause ("I don't need you to grep"), nor, for global scope words, inside a reported
   claim ("the README claims everything starts"), nor where its cue's `unless` guard finds
   the clause before it ruling it out ("which channel should I" is no design question).
   Lookup cues are question frames: they do not add up (the strongest one counts), and when
   content cues of other strategies add up to at least MEDIUM, the frame weight is multiplied
   by `FRAME_DAMPING`. A lookup frame in a text of at most `FEW_WORDS` tokens adds the
   `few-words` cue. `Intent.cues` lists the cues that fired, plus `few-words` and
   `scoped-directory` when those apply.
2. The winner is the highest score (ties go to the narrower strategy, in `STRATEGIES` order).
3. Confidence = FLOOR + (1 - FLOOR) * agreement * strength, where
   agreement = (winner's share of all cue weight + winner's margin over the runner-up as a
   fraction of the winner) / 2, and strength = 1 - exp(-winner / SATURATION) grows with the
   winner's cue weight and saturates. No cue at all gives FLOOR. Rounded to 2 decimals.
4. Below `FALLBACK_BELOW` the strategy becomes `global` with `fallback=True` (the broadest
   strategy, so an unclear text degrades rather than mis-routes).
5. Skips (what the route does with them is the engine's business):
   `scoped-lexical` for an exact-match lookup in a named directory ("grep for X under src/"):
   an exact-match verb and a directory (`router.filters.cue.SCOPE_VERB`, `SCOPE_DIR`), with lexical
   cues of at least MEDIUM outscoring every other strategy. The strategy is then pinned to
   `lexical` and the confidence raised to at least `SCOPED_CONFIDENCE` (the surface form
   decides the outcome; seed 4, "when to skip");
   otherwise `short` when the text has fewer than `SHORT_TOKENS` tokens.

A token is a maximal run of non-whitespace characters (what `str.split()` returns).
Only the first `MAX_SCAN_CHARS` characters are searched for cues; tokens are counted on the
whole text (counting stops at `SHORT_TOKENS`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import islice
from types import MappingProxyType

from router.base.errors import ConfigError
from router.filters.clause import (
    CLAUSE_CUES,
    NEGATION,
    NEGATION_END,
    REPORTED,
    REPORTED_END,
    REPORTED_IGNORES,
    clause_before,
    inside,
    spans,
)
from router.filters.cue import (
    CUES,
    FEW_WORDS,
    FRAME_DAMPING,
    GLOBAL,
    LEXICAL,
    LOOKUP,
    MEDIUM,
    SCOPE_DIR,
    SCOPE_VERB,
    STRATEGIES,
    WEAK,
    Cue,
)

FLOOR = 0.3
SATURATION = 2.5
FALLBACK_BELOW = 0.6
CONFIDENT_AT = 0.9
SCOPED_CONFIDENCE = 0.95
SHORT_TOKENS = 20
MAX_SCAN_CHARS = 4000
REFINEMENTS: tuple[str, ...] = ("none", "verbal-rerank", "consensus-check")
SKIPS: tuple[str, ...] = ("short", "scoped-lexical")

_TOKEN = re.compile(r"\S+")
# Word cues first, then structure cues: `Intent.cues` lists them in this order.
ALL_CUES: tuple[Cue, ...] = CUES + CLAUSE_CUES
Spans = list[tuple[int, int]]


@dataclass(frozen=True, slots=True)
class StrategyDefaults:
    budget: int
    depth: int
    refinement: str


DEFAULTS: Mapping[str, StrategyDefaults] = MappingProxyType(
    {
        "lookup": StrategyDefaults(3, 3, "none"),
        "lexical": StrategyDefaults(5, 5, "none"),
        "verification": StrategyDefaults(3, 5, "consensus-check"),
        "multi-hop": StrategyDefaults(5, 8, "verbal-rerank"),
        "global": StrategyDefaults(8, 12, "none"),
        "deep-reason": StrategyDefaults(8, 12, "verbal-rerank"),
    }
)


@dataclass(frozen=True, slots=True)
class Intent:
    strategy: str
    token_budget: int  # the route budget: how many pointers
    retrieval_depth: int
    refinement_policy: str
    confidence: float
    rationale: str
    fallback: bool
    skip: str | None
    cues: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return as_dict(self)


def as_dict(intent: Intent) -> dict[str, object]:
    """Plain JSON-ready values (the `--json` envelope)."""
    return {
        "strategy": intent.strategy,
        "token_budget": intent.token_budget,
        "retrieval_depth": intent.retrieval_depth,
        "refinement_policy": intent.refinement_policy,
        "confidence": intent.confidence,
        "rationale": intent.rationale,
        "fallback": intent.fallback,
        "skip": intent.skip,
        "cues": list(intent.cues),
    }


def defaults_from_config(table: Mapping[str, object]) -> dict[str, StrategyDefaults]:
    """Overlay `[intent.strategies.<name>]` tables ({budget=, depth=, refinement=}) on DEFAULTS."""
    out = dict(DEFAULTS)
    for name, sub in table.items():
        where = f"[intent.strategies.{name}]"
        if name not in DEFAULTS:
            raise ConfigError(
                f"unknown strategy {name!r} in [intent.strategies]",
                f"use one of: {', '.join(STRATEGIES)}",
            )
        if not isinstance(sub, Mapping):
            raise ConfigError(f"{where} must be a table", "write budget=, depth=, refinement=")
        base = out[name]
        budget, depth, refinement = base.budget, base.depth, base.refinement
        for key, value in sub.items():
            if key in ("budget", "depth"):
                if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100:
                    raise ConfigError(
                        f"{where} {key} = {value!r} is not a whole number from 1 to 100",
                        f"set {key} to a number of pointers such as {getattr(base, key)}",
                    )
                if key == "budget":
                    budget = value
                else:
                    depth = value
            elif key == "refinement":
                if value not in REFINEMENTS:
                    raise ConfigError(
                        f"{where} refinement = {value!r} is not a known policy",
                        f"use one of: {', '.join(REFINEMENTS)}",
                    )
                refinement = str(value)
            else:
                raise ConfigError(
                    f"unknown key {key!r} in {where}", "use budget, depth or refinement"
                )
        out[name] = StrategyDefaults(budget, depth, refinement)
    return out


def _fires(cue: Cue, text: str, folded: str, negated: Spans, reported: Spans) -> bool:
    """Whether one match of `cue` counts: not inside a negated clause, not a scope word inside
    a reported claim, and not after what its `unless` guard rules out."""
    for match in cue.pattern.finditer(folded if cue.folded else text):
        at = match.start()
        if inside(at, negated):
            continue
        if cue.strategy in REPORTED_IGNORES and inside(at, reported):
            continue
        if cue.unless is not None and cue.unless.search(clause_before(folded, at)):
            continue
        return True
    return False


def _score(text: str, few_words: bool) -> tuple[dict[str, float], list[str]]:
    head = text[:MAX_SCAN_CHARS]
    folded = head.lower()
    negated = spans(folded, NEGATION, NEGATION_END)
    reported = spans(folded, REPORTED, REPORTED_END)
    fired = [c for c in ALL_CUES if _fires(c, head, folded, negated, reported)]
    other = sum(c.weight for c in fired if not c.frame and c.strategy != LOOKUP)
    damping = FRAME_DAMPING if other >= MEDIUM else 1.0
    scores = dict.fromkeys(STRATEGIES, 0.0)
    names: list[str] = []
    frame = 0.0
    for cue in fired:
        if cue.frame:
            frame = max(frame, cue.weight)
        else:
            scores[cue.strategy] += cue.weight
        names.append(cue.name)
    if frame and few_words:
        frame += WEAK
        names.append("few-words")
    scores[LOOKUP] += frame * damping
    if negated:
        names.append("negated-clause")
    return scores, names


def _confidence(winner: float, runner_up: float, total: float) -> float:
    if winner <= 0.0:
        return FLOOR
    agreement = (winner / total + (winner - runner_up) / winner) / 2.0
    strength = 1.0 - math.exp(-winner / SATURATION)
    return round(FLOOR + (1.0 - FLOOR) * agreement * strength, 2)


def _is_scoped(text: str, scores: Mapping[str, float]) -> bool:
    folded = text[:MAX_SCAN_CHARS].lower()
    lexical = scores[LEXICAL]
    if lexical < MEDIUM or any(v >= lexical for s, v in scores.items() if s != LEXICAL):
        return False
    return bool(SCOPE_VERB.search(folded) and SCOPE_DIR.search(folded))


def classify(text: str, defaults: Mapping[str, StrategyDefaults] = DEFAULTS) -> Intent:
    """Classify one task text. Deterministic; never raises on a str."""
    tokens = sum(1 for _ in islice(_TOKEN.finditer(text), SHORT_TOKENS))
    scores, names = _score(text, tokens <= FEW_WORDS)
    ranked = sorted(STRATEGIES, key=lambda s: (-scores[s], STRATEGIES.index(s)))
    winner, runner_up = ranked[0], ranked[1]
    total = sum(scores.values())
    confidence = _confidence(scores[winner], scores[runner_up], total)
    skip: str | None = None
    if _is_scoped(text, scores):
        skip = "scoped-lexical"
        winner, confidence = LEXICAL, max(confidence, SCOPED_CONFIDENCE)
        names.append("scoped-directory")
    elif tokens < SHORT_TOKENS:
        skip = "short"
    fallback = confidence < FALLBACK_BELOW
    strategy = GLOBAL if fallback else winner
    if not names:
        rationale = "no cue fired"
    else:
        rationale = f"{', '.join(names)}; {winner} {scores[winner]:g} of {total:g}"
    if fallback:
        rationale += "; below 0.6, fell back to global"
    if skip == "scoped-lexical":
        rationale += "; scoped exact-match lookup"
    elif skip == "short":
        rationale += f"; short ({tokens} tokens)"
    chosen = defaults.get(strategy) or DEFAULTS[strategy]
    return Intent(
        strategy=strategy,
        token_budget=chosen.budget,
        retrieval_depth=chosen.depth,
        refinement_policy=chosen.refinement,
        confidence=confidence,
        rationale=rationale,
        fallback=fallback,
        skip=skip,
        cues=tuple(names),
    )


def taper(intent: Intent) -> str:
    """Human output whose ceremony matches the confidence (DESIGN 9).

    >= 0.9: `route: <strategy>`. 0.6 to 0.9: one line, `route: <strategy> (<rationale>)`.
    Below 0.6: the JSON envelope (sorted keys, indent 2), `global` and `fallback` explicit.
    """
    if intent.confidence >= CONFIDENT_AT:
        return f"route: {intent.strategy}"
    if intent.confidence >= FALLBACK_BELOW:
        return f"route: {intent.strategy} ({intent.rationale})"
    return json.dumps(as_dict(intent), sort_keys=True, indent=2, ensure_ascii=False)
