"""kroute's benchmark (DESIGN 13): synthetic catalogs written as real files, the probes that
time a daemon through its socket, the anchors it is set beside (tantivy, bm25s, curl), one
module per suite and the table they print. Figures, not assertions.

Run from a checkout, never installed with `router`: `python scripts/bench.py ...` (or
`python -m bench ...` from the checkout's root). Importing this package imports nothing: the
anchors' venv runs `bench.anchor.engine` with only the standard library, tantivy and bm25s.
"""
