"""The anchors kroute is timed beside: tantivy and bm25s (`engine`, run in a venv of their
own), tantivy behind kroute's HTTP server (`server`), and the bench's side of both (`beside`)."""

ANCHORS = ("tantivy", "bm25s")  # the PyPI packages, and the engines' names in the figures
SHORT = "short"  # the query set of the short tasks; the others are named by their length
TOP_K = 5  # the hits `engine` reads out of each anchor (its TOP)
