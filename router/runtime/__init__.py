"""The engine over one catalog, and the evaluations that run it."""
