"""`python -m bench`: the same as `python scripts/bench.py`."""

from bench.cli import main

main()
