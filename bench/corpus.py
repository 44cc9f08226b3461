"""The synthetic catalogs: entries written as real files whose words follow the two laws real
text follows: Zipf frequencies (rank r drawn in proportion to 1/r) over a vocabulary that
grows with the catalog (Heaps: V = 20 * sqrt(n) for n words written), with the 30 most
frequent ranks left out, as a stopword list removes them from real text. A fixed small
vocabulary would make every entry share most task words, which no real catalog does.

Nine entries in ten are Markdown files, one in ten a row of an annex JSON catalog. Each
Markdown file has a body of 300-1,500 words (Zipf words over the same vocabulary) in 3-6
`## ` sections of 40-120-word paragraphs, with now and then a bullet list or a fenced code
block; about a fifth of them are Nygard-style ADRs with no front matter at all (`# N. Title`,
`Date:`, Status, Context, Decision, Consequences). The front matter and the annex rows are
drawn exactly as before bodies existed, so `--no-bodies` writes the old catalogs byte for
byte, and both kinds of catalog are routed with the same tasks.
"""

from __future__ import annotations

import datetime
import itertools
import json
import random
import sys
from pathlib import Path
from typing import Any

SEED = 20261130
ROWS_PER_JSON = 100
JSON_SHARE = 0.1  # a tenth of the entries live in annex JSON catalogs
SHELVES = ("decisions", "specs", "how-to", "obligations", "evaluations")
TAXONOMY = """
[purposes.rationale]
intent = "explain why a choice was made"
answers = ["why is it this way", "what was rejected"]
[purposes.behavior]
intent = "state what the system does"
answers = ["what does this component do", "what may I rely on"]
[purposes.procedure]
intent = "walk through the steps of a task"
answers = ["how do I do this", "what are the steps"]
[purposes.obligation]
intent = "record what is missing or owed"
answers = ["what is missing", "who is this waiting on"]
[purposes.evidence]
intent = "report what was measured"
answers = ["what was measured", "what did the review find"]
[kinds]
decision = "rationale"
design_spec = "behavior"
how_to = "procedure"
obligation = "obligation"
evaluation = "evidence"
annex = "procedure"
[shelves]
"docs/decisions/**" = "decision"
"docs/specs/**" = "design_spec"
"docs/how-to/**" = "how_to"
"docs/obligations/**" = "obligation"
"docs/evaluations/**" = "evaluation"
"""


HEAPS_K = 20
WORDS_PER_ENTRY = 35  # title, summary, tags and routing together
STOPWORD_RANKS = 30


def vocabulary_size(entries: int) -> int:
    """Return Heaps' law vocabulary for a catalog of `entries` entries."""
    return int(HEAPS_K * (entries * WORDS_PER_ENTRY) ** 0.5)


def vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    """Return pronounceable made-up words: a vocabulary no stopword list touches."""
    onsets, vowels, codas = "bdfgklmnprstvz", "aeiou", ["", "n", "r", "s", "l", "k"]
    words: set[str] = set()
    while len(words) < size:
        syllables = rng.randint(2, 3)
        words.add(
            "".join(
                rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                for _ in range(syllables)
            )
        )
    return sorted(words)


class Zipf:
    """Draw words with Zipf-like frequencies (rank r has weight 1 / r)."""

    def __init__(self, words: list[str], rng: random.Random) -> None:
        self.words = words[STOPWORD_RANKS:]
        self.rng = rng
        self.cumulative = list(
            itertools.accumulate(1 / (rank + 1 + STOPWORD_RANKS) for rank in range(len(self.words)))
        )

    def draw(self, k: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.cumulative, k=k)


BODY_WORDS = (300, 1500)  # words of a Markdown body, drawn uniformly per document
SECTIONS = (3, 6)
PARAGRAPH_WORDS = (40, 120)
SENTENCE_WORDS = (6, 20)
BULLET_WORDS = (4, 12)
LIST_SHARE = 0.12  # of paragraphs, written as a bullet list instead
CODE_SHARE = 0.3  # of bodies, with one fenced code block
ADR_SHARE = 0.2  # of Markdown documents: Nygard ADRs without front matter
# Never an ADR where the document governs a path, so the governed paths (and so the tasks)
# are the same with and without bodies; the other nine in ten make up the share.
ADR_CHANCE = ADR_SHARE / 0.9
HEADINGS = {
    "decisions": (
        "Context",
        "Background",
        "Options considered",
        "Decision",
        "Rationale",
        "Alternatives",
        "Consequences",
        "Status",
    ),
    "specs": (
        "Overview",
        "Background",
        "Details",
        "Interfaces",
        "Behaviour",
        "Limits",
        "Rationale",
        "Open questions",
    ),
    "how-to": (
        "Background",
        "Prerequisites",
        "Steps",
        "Details",
        "Verification",
        "Troubleshooting",
        "Rollback",
    ),
    "obligations": ("Context", "What is missing", "Details", "Owner", "Deadline", "Status"),
    "evaluations": (
        "Background",
        "Method",
        "Details",
        "Results",
        "Findings",
        "Threats to validity",
        "Rationale",
    ),
}
ADR_STATUSES = (("Accepted", 0.75), ("Proposed", 0.1), ("Superseded", 0.1), ("Deprecated", 0.05))
ADR_EPOCH = datetime.date(2018, 1, 1)


def prose(words: list[str], rng: random.Random) -> str:
    """Return `words` as a paragraph of sentences, now and then with a comma."""
    out, at = [], 0
    while at < len(words):
        step = rng.randint(*SENTENCE_WORDS)
        if len(words) - at - step < 4:  # no sentence of a word or two at the end
            step = len(words) - at
        part = words[at : at + step]
        at += step
        if len(part) > 8 and rng.random() < 0.3:
            part[rng.randint(3, len(part) - 4)] += ","
        out.append(" ".join(part).capitalize() + ".")
    return " ".join(out)


def bullets(words: list[str], rng: random.Random) -> str:
    """Return `words` as a bullet list of 4-12-word items."""
    items, at = [], 0
    while at < len(words):
        step = rng.randint(*BULLET_WORDS)
        items.append("- " + " ".join(words[at : at + step]))
        at += step
    return "\n".join(items)


def code_block(words: list[str], rng: random.Random) -> str:
    """Return a small fenced code block naming six of `words`."""
    a, b, c, d, e, f = words
    kind = rng.randrange(4)
    if kind == 0:
        return f'```python\ndef {a}_{b}({c}):\n    return {c}.{d}("{e}", {f}=True)\n```'
    if kind == 1:
        return f"```sh\n{a} {b} --{c} {d}/{e}.toml\n{a} {f} --check\n```"
    if kind == 2:
        return f"```yaml\n{a}:\n  {b}: {c}\n  {d}: [{e}, {f}]\n```"
    return f'```json\n{{"{a}": "{b}", "{c}": {{"{d}": {rng.randint(1, 999)}, "{e}": "{f}"}}}}\n```'


def chunks(total: int, low: int, high: int, rng: random.Random) -> list[int]:
    """Return sizes between `low` and `high` adding up to `total` (at least `low`)."""
    out = []
    while total > high:
        step = rng.randint(low, min(high, total - low))
        out.append(step)
        total -= step
    return [*out, total]


def sections(headings: list[str], total: int, zipf: Zipf, rng: random.Random) -> list[str]:
    """Return the blocks of `total` body words under `headings`: paragraphs, now and then a
    bullet list, and in some bodies one code block."""
    low = PARAGRAPH_WORDS[0]
    spare = total - low * len(headings)
    cuts = sorted(rng.randint(0, spare) for _ in headings[1:])
    counts = [low + b - a for a, b in itertools.pairwise([0, *cuts, spare])]
    words = zipf.draw(total)
    code_at = rng.randrange(len(headings)) if rng.random() < CODE_SHARE else -1
    blocks, at = [], 0
    for number, (heading, count) in enumerate(zip(headings, counts, strict=True)):
        blocks.append(f"## {heading}")
        for step in chunks(count, *PARAGRAPH_WORDS, rng):
            part = words[at : at + step]
            at += step
            blocks.append(bullets(part, rng) if rng.random() < LIST_SHARE else prose(part, rng))
        if number == code_at:
            blocks.append(code_block(zipf.draw(6), rng))
    return blocks


def body(shelf: str, zipf: Zipf, rng: random.Random) -> tuple[str, int]:
    """Return the body of a document with front matter and its word count."""
    pool = HEADINGS[shelf]
    chosen = sorted(rng.sample(range(len(pool)), rng.randint(*SECTIONS)))
    total = rng.randint(*BODY_WORDS)
    return "\n\n".join(sections([pool[i] for i in chosen], total, zipf, rng)) + "\n", total


def nygard(number: int, title: str, zipf: Zipf, rng: random.Random) -> tuple[str, int]:
    """Return a Nygard-style ADR (no front matter) and its body word count."""
    date = ADR_EPOCH + datetime.timedelta(days=rng.randrange(8 * 365))
    status = rng.choices([s for s, _ in ADR_STATUSES], [w for _, w in ADR_STATUSES])[0]
    if status == "Superseded":
        status = f"Superseded by {rng.randint(number, number + 50)}." if number > 1 else "Accepted"
    headings = ["Context", "Decision", "Consequences"]
    if rng.random() < 0.3:
        headings.insert(1, "Options considered")
    total = rng.randint(*BODY_WORDS)
    blocks = [f"# {number}. {title}", f"Date: {date.isoformat()}", "## Status", status]
    return "\n\n".join(blocks + sections(headings, total, zipf, rng)) + "\n", total


def front_matter(n: int, zipf: Zipf, rng: random.Random) -> tuple[list[str], list[str], str]:
    """Return the front matter lines of Markdown document `n` (without its closing `---`),
    its title's words and the source path it governs ('' for none)."""
    title_words = zipf.draw(rng.randint(3, 6))
    lines = [
        "---",
        f"id: SYN-{n:06d}",
        f"title: {' '.join(title_words).capitalize()}",
        f"summary: {' '.join(zipf.draw(rng.randint(12, 24)))}",
        f"tags: [{', '.join(zipf.draw(3))}]",
        f"status: {'draft' if n % 17 == 0 else 'current'}",
    ]
    if n % 3 == 0:
        lines += [
            "routing:",
            f"  problem_spaces: [{' '.join(zipf.draw(3))}]",
            f"  capabilities: [{' '.join(zipf.draw(2))}]",
        ]
    target = ""
    if n % 10 == 0:
        target = f"src/{'/'.join(zipf.draw(2))}/{zipf.draw(1)[0]}.py"
        lines += ["relations:", "  governs:", f"    - {target}"]
    return lines, title_words, target


def annex_rows(first: int, end: int, zipf: Zipf) -> list[dict[str, Any]]:
    """Return the annex rows `first` to `end` (exclusive) of a catalog."""
    return [
        {
            "slug": f"annex-{n:06d}",
            "display_name": " ".join(zipf.draw(4)),
            "description": " ".join(zipf.draw(16)),
            "tags": zipf.draw(3),
            "routing": {
                "problem_spaces": [" ".join(zipf.draw(3))],
                "capabilities": [" ".join(zipf.draw(2))],
                "domains": [zipf.draw(1)[0]],
            },
            "open_first": [{"summary": " ".join(zipf.draw(8))}],
        }
        for n in range(first, end)
    ]


def generate(root: Path, size: int, bodies: bool = True) -> dict[str, Any]:
    """Write a catalog of `size` entries under `root`, one file at a time; return what it
    holds: the governed source paths and the counts of documents, ADRs and body words.

    The front matter and the annex rows come from one random stream, the bodies and the
    choice of ADRs from another, so that the front matter is the same with or without
    bodies."""
    rng = random.Random(SEED + size)
    words = vocabulary(rng, vocabulary_size(size))
    zipf = Zipf(words, rng)
    body_rng = random.Random(f"bodies-{SEED}-{size}")
    body_zipf = Zipf(words, body_rng)
    (root / "kroute.toml").write_text('roots = ["docs"]\n' + TAXONOMY, encoding="utf-8")
    governed: list[str] = []
    json_rows = int(size * JSON_SHARE)
    files = size - json_rows
    adrs = body_words = 0
    made: set[Path] = set()
    for n in range(files):
        if n and n % 10_000 == 0:
            print(f"  wrote {n:,} of {files:,} Markdown files", file=sys.stderr, flush=True)
        shelf = SHELVES[n % len(SHELVES)]
        lines, title_words, target = front_matter(n, zipf, rng)
        title = " ".join(title_words).capitalize()
        if target:
            governed.append(target)
        path = root / "docs" / shelf / f"{n // 1000:03d}" / f"{n:06d}.md"
        if not bodies:
            text = "\n".join([*lines, "---", "", "# Synthetic", ""])
        elif n % 10 != 0 and body_rng.random() < ADR_CHANCE:
            adrs += 1
            slug = "-".join(title_words)
            path = (
                root / "docs" / "decisions" / "adr" / f"{n // 1000:03d}" / f"{adrs:04d}-{slug}.md"
            )
            text, count = nygard(adrs, title, body_zipf, body_rng)
            body_words += count
        else:
            text, count = body(shelf, body_zipf, body_rng)
            text = "\n".join([*lines, "---", "", f"# {title}", "", text])
            body_words += count
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_text(text, encoding="utf-8")
    for block in range(0, json_rows, ROWS_PER_JSON):
        rows = annex_rows(block, min(block + ROWS_PER_JSON, json_rows), zipf)
        path = root / "docs" / "annexes" / f"block-{block // ROWS_PER_JSON:05d}.catalog.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"annexes": rows}), encoding="utf-8")
    return {
        "governed": governed,
        "markdown": files,
        "adrs": adrs,
        "annex_rows": json_rows,
        "body_words": body_words,
    }
