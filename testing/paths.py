"""Where the fixtures, the demo catalog and the shared corpora are."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
DEMO = FIXTURES / "catalogs" / "demo"
GOLDEN = FIXTURES / "golden"
# The shared corpora sit beside the checkout (../shared); KROUTE_SHARED overrides.
SHARED = Path(os.environ.get("KROUTE_SHARED", REPO.parent / "shared"))
CORPORA = SHARED / "corpora"
# A headless Chromium, where one is installed (Debian: chromium, or chromium-headless-shell):
# the tests that render the HTML report in a real browser skip, saying so, without one.
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-headless-shell")
