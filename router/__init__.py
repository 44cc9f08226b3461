"""knowledge-router: which few documents an agent should read before it acts, and why."""

__version__ = "0.1.0"
