"""The relevance filter measured on real code (fixtures/relevance/realcode, see its README).

Each case pairs an excerpt of a public file (the focus) with chunks labelled `define` (about
what the file defines: must be kept), `import` (about what it only imports: must be dropped)
or `unrelated` (about something else in or near the project: must be dropped).
Run `python tests/filters/test_relevance_realcode.py` to print the per-language table.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass

from router.filters import relevance, symbols
from testing.paths import FIXTURES

REALCODE = FIXTURES / "relevance" / "realcode"
OVERALL_TARGET = 0.92  # the brief's bar for the whole set
LANGUAGE_TARGET = 0.85  # and for each language on its own
MIN_FILES, MIN_CHUNKS = 16, 90  # the set must stay at least this large to mean anything
LANGUAGE_GROUP = {"rust": "rust", "typescript": "ts/js", "javascript": "ts/js", "go": "go"}


@dataclass(frozen=True)
class Case:
    """One focus file of the set and its labelled chunks (label, source, text)."""

    id: str
    group: str
    path: str
    content: str
    chunks: tuple[tuple[str, str, str], ...]

    def focus(self) -> relevance.Focus:
        found = symbols.classify(self.content, self.path)
        return relevance.Focus(self.path, self.content, found.defined, found.imported)


def _cases() -> list[Case]:
    files = json.loads((REALCODE / "cases.json").read_text(encoding="utf-8"))["files"]
    return [
        Case(
            id=str(raw["id"]),
            group=LANGUAGE_GROUP.get(str(raw["lang"]), str(raw["lang"])),
            path=str(raw["path"]),
            content=(REALCODE / str(raw["excerpt"])).read_text(encoding="utf-8"),
            chunks=tuple((str(a), str(b), str(c)) for a, b, c in raw["chunks"]),
        )
        for raw in files
    ]


def measure() -> dict[str, dict[str, int]]:
    """Return {group: {"right": n, "total": n, "<label>_right": n, "<label>_total": n}}."""
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for case in _cases():
        focus, group = case.focus(), case.group
        for label, source, text in case.chunks:
            chunk = relevance.Chunk(source, f"{case.id}:{label}", text)
            kept = relevance.split(focus, [chunk])[0]
            right = bool(kept) == (label == "define")
            for row in (group, "all"):
                table[row]["right"] += right
                table[row]["total"] += 1
                table[row][f"{label}_right"] += right
                table[row][f"{label}_total"] += 1
    return {row: dict(counts) for row, counts in table.items()}


def _rate(counts: dict[str, int]) -> float:
    return counts["right"] / counts["total"]


def test_set_is_large_enough() -> None:
    cases = _cases()
    assert len(cases) >= MIN_FILES
    assert sum(len(case.chunks) for case in cases) >= MIN_CHUNKS
    assert {case.group for case in cases} == {
        "rust",
        "ts/js",
        "go",
        "python",
    }


def test_overall_and_per_language_rates() -> None:
    table = measure()
    assert _rate(table["all"]) >= OVERALL_TARGET, table
    for group in ("rust", "ts/js", "go", "python"):
        assert _rate(table[group]) >= LANGUAGE_TARGET, (group, table[group])


# Everyday sentences a reviewer or agent writes, none about the 16 files' code. Each holds
# words the files define or import as lowercase or short names (context, runtime, os,
# strings, sync, re, time, path, ready, new, call, from, request, session, g, t, ...).
EVERYDAY = (
    "Please re-read the context before you change anything.",
    "Don't forget to run the tests again after the merge.",
    "The runtime of the whole job went from ten minutes to two.",
    "Check the os version on the build machine first.",
    "We keep the strings short so the log stays readable.",
    "Let's sync with the team tomorrow at ten.",
    "The new path through the park is shorter.",
    "Give me a call when you are ready.",
    "This request came from the support queue.",
    "The session ended early because of the storm.",
    "It takes time to get the details right.",
    "Is this the right time to ship the change?",
    "I read the report and it looks fine to me.",
    "The header of the page needs a new logo.",
    "Send the draft to g and t before lunch, then we can review it.",
    "Copy the notes into the shared folder when the meeting is over.",
    "We should write down why the deadline moved.",
    "The value of the project is clear to everyone.",
    "Our next step is to plan the release and update the docs.",
    "Let the build finish, then open the report and share it.",
)


def test_everyday_sentences_match_no_symbol() -> None:
    assert len(EVERYDAY) == 20
    for case in _cases():
        focus = case.focus()
        for sentence in EVERYDAY:
            reasons = relevance.score(focus, relevance.Chunk("", "", sentence)).reasons
            assert not any(r.startswith(("import_penalty:", "defined_match:")) for r in reasons), (
                case.id,
                sentence,
                reasons,
            )


if __name__ == "__main__":
    for row, counts in sorted(measure().items()):
        parts = [f"{row:7} {counts['right']:3}/{counts['total']:3} = {_rate(counts):.2f}"]
        for label in ("define", "import", "unrelated"):
            parts.append(f"{label} {counts[f'{label}_right']}/{counts[f'{label}_total']}")
        print("  ".join(parts))
