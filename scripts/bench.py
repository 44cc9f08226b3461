"""kroute's benchmark: `python scripts/bench.py --help` (the `bench` package at the checkout's
root holds it; see bench/cli.py for every suite and option)."""

import sys
from pathlib import Path

# This file's folder comes first on the path and holds no package: the checkout's root does.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from bench.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
