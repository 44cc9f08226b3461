"""A meaning model held back: a test decides when the meaning process may read it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def held_model(tmp_path: Path) -> tuple[Path, Path]:
    """Return (a model directory whose model.onnx is a named pipe, the packaged model): a
    process loading it waits at the pipe until the test writes the packaged model in.
    Needs the meaning extra (its model packages)."""
    from router.meaning import model

    packaged, _ = model._installed(model.MODEL_DIST, model.MODEL_FILE)
    tokenizer, _ = model._installed(model.TOKENIZER_DIST, model.TOKENIZER_FILE)
    held = tmp_path / "held-model"
    held.mkdir()
    shutil.copyfile(tokenizer, held / model.TOKENIZER_NAME)
    os.mkfifo(held / model.MODEL_NAME)
    return held, packaged
