"""The text embedded for a catalog entry. Pure: no numpy, no model."""

from __future__ import annotations

from router.catalog.entry import Entry

# The opening of the body that joins title and summary: enough to say what a document
# without a summary is about. On adr-dev the model alone reached hit@1 0.629 without it,
# 0.829 with 200 words, 0.771 with 100; fused with the words' order (what is shipped), 100
# words did best (0.857 / 0.943 at hit@1 / hit@5, against 0.829 / 0.914 with 200), and cost
# two thirds of the time to embed.
BODY_WORDS = 100


def of(entry: Entry) -> str:
    """Return `title. summary` (either alone when the other is empty, the id when both
    are) followed by the first BODY_WORDS words of the body's sections."""
    title, summary = entry.title.strip(), entry.summary.strip()
    head = f"{title}. {summary}" if title and summary else (title or summary or entry.id)
    words = " ".join(section.text for section in entry.body).split()[:BODY_WORDS]
    return f"{head} {' '.join(words)}".strip()
