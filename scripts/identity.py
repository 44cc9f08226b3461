"""The digests of what a catalog's index holds and routes: `python scripts/identity.py
CATALOG_DIR [CATALOG_DIR ...]` (bench/identity.py)."""

import sys
from pathlib import Path

# This file's folder comes first on the path and holds no package: the checkout's root does.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from bench.identity import main  # noqa: E402

if __name__ == "__main__":
    main()
