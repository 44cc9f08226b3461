"""router.meaning.model: the packaged model loads and embeds offline; a missing extra or
model file raises ModelUnavailableError with the fix; importing the router pulls in nothing heavy."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from router.base.errors import ModelUnavailableError
from router.meaning import model

MEANING_MODULES = ("onnxruntime", "tokenizers")
# one worker loads and quantizes the model once for the module (pyproject: addopts)
pytestmark = pytest.mark.xdist_group("meaning-model")
# onnx only quantizes the packaged model, once; numpy is the ranker's (a runtime dependency)
HEAVY = (*MEANING_MODULES, "onnx")
INSTALL_FIX = "pip install 'knowledge-router[meaning]'"


def meaning_imports(module: str) -> list[str]:
    """Return which of the extra's modules importing `module` pulls in, in a fresh
    interpreter (testing.process.heavy_imports, for the meaning extra)."""
    probe = f"import sys, {module}; print(*[m for m in {HEAVY!r} if m in sys.modules])"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    return result.stdout.split()


@pytest.fixture(scope="module")
def embedder() -> model.Embedder:
    """The packaged model (skipped, with the reason, without the extra)."""
    for name in MEANING_MODULES:
        pytest.importorskip(name, reason=f"the meaning extra is not installed ({name})")
    try:
        return model.load()
    except ModelUnavailableError as error:
        pytest.skip(f"the meaning extra is not installed: {error}")


@pytest.mark.process
@pytest.mark.parametrize(
    "module",
    [
        "router",
        "router.runtime.engine",
        "router.meaning",
        "router.meaning.model",
        "router.meaning.passage",
        "router.meaning.store",
        "router.meaning.space",
    ],
)
def test_importing_pulls_in_nothing_of_the_extra(module: str) -> None:
    assert meaning_imports(module) == []


def test_the_packaged_model_embeds_unit_vectors_of_384(embedder: model.Embedder) -> None:
    vectors = embedder.embed(["fix the flaky login test", "", "x " * 1000])
    assert embedder.dimensions == 384
    assert vectors.shape == (3, 384)
    assert str(vectors.dtype) == "float32"
    assert (vectors * vectors).sum(axis=1).tolist() == pytest.approx([1.0] * 3, abs=1e-5)
    assert embedder.embed([]).shape == (0, 384)


def test_a_paraphrase_is_nearer_than_an_unrelated_sentence(embedder: model.Embedder) -> None:
    task, paraphrase, unrelated = embedder.embed(
        [
            "fix the flaky login test",
            "repair an intermittently failing authentication test",
            "bake a chocolate cake for the party",
        ]
    )
    assert task @ paraphrase > task @ unrelated + 0.3


def test_the_same_texts_give_the_same_bytes_in_any_batch(embedder: model.Embedder) -> None:
    texts = ["short", "a longer sentence about database migrations " * 8, "add a CLI flag"]
    first = embedder.embed(texts)
    assert embedder.embed(texts).tobytes() == first.tobytes()
    alone = [embedder.embed([text])[0] for text in texts]
    for row, single in zip(first, alone, strict=True):
        assert row.tobytes() == single.tobytes()


@pytest.fixture(scope="module")
def quantized(embedder: model.Embedder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A work directory holding the packaged model's quantized form (skipped without the
    `onnx` package the quantizer needs)."""
    pytest.importorskip("onnx", reason="the meaning extra's onnx is not installed")
    workdir = tmp_path_factory.mktemp("models")
    model.load(workdir=workdir)
    return workdir


def test_the_packaged_model_is_quantized_once_into_the_work_directory(
    embedder: model.Embedder, quantized: Path
) -> None:
    (made,) = quantized.glob("*.onnx")
    assert made.name.endswith(f"-{model.QUANTIZED}.onnx") and made.stat().st_mode & 0o777 == 0o600
    stamp = made.stat().st_mtime_ns
    fast = model.load(threads=2, workdir=quantized)
    assert made.stat().st_mtime_ns == stamp  # made once, then read
    # another id than the float model's, so neither reads the other's vectors
    assert fast.model_id == embedder.model_id.replace("+t", f"+{model.QUANTIZED}+t")
    texts = ["fix the flaky login test", "rotate the signing keys", "x " * 400, ""]
    vectors = fast.embed(texts)
    # each text alone: the same bytes in any list, on one thread or two
    assert vectors.tobytes() == model.load(threads=1, workdir=quantized).embed(texts).tobytes()
    assert vectors[1].tobytes() == fast.embed(texts[1:2])[0].tobytes()
    # close to the float model's vectors, though not equal
    assert (vectors * embedder.embed(texts)).sum(axis=1).min() > 0.97


def test_without_the_quantizer_the_packaged_model_runs_as_it_ships(
    embedder: model.Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime.quantization", None)  # import fails
    plain = model.load(workdir=tmp_path)
    assert plain.model_id == embedder.model_id and not list(tmp_path.rglob("*.onnx*"))


def test_the_packaged_model_id_names_model_and_versions(embedder: model.Embedder) -> None:
    version = metadata.version(model.MODEL_DIST)
    assert embedder.model_id.startswith(f"{model.PACKAGED_NAME}@{version}+")
    assert model.load().model_id == embedder.model_id


def test_a_model_directory_loads_and_its_id_is_its_digest(
    embedder: model.Embedder, tmp_path: Path
) -> None:
    packaged = Path(str(metadata.distribution(model.MODEL_DIST).locate_file(model.MODEL_FILE)))
    tokenizer = metadata.distribution(model.TOKENIZER_DIST).locate_file(model.TOKENIZER_FILE)
    shutil.copy(packaged, tmp_path / "model.onnx")
    shutil.copy(Path(str(tokenizer)), tmp_path / "tokenizer.json")
    from_dir = model.load(str(tmp_path))
    assert from_dir.model_id.startswith("model@")
    assert from_dir.model_id != embedder.model_id
    texts = ["route a task to the documents that matter"]
    assert from_dir.embed(texts).tobytes() == embedder.embed(texts).tobytes()
    # an .onnx file alone takes the tokenizer beside it: the same model, the same id
    assert model.load(str(tmp_path / "model.onnx")).model_id == from_dir.model_id


def test_an_onnx_file_without_a_tokenizer_beside_it_uses_the_packaged_one(
    embedder: model.Embedder, tmp_path: Path
) -> None:
    packaged = Path(str(metadata.distribution(model.MODEL_DIST).locate_file(model.MODEL_FILE)))
    shutil.copy(packaged, tmp_path / "minilm.onnx")
    alone = model.load(str(tmp_path / "minilm.onnx"), threads=2)
    assert alone.model_id.startswith("minilm@")
    assert alone.embed(["x"]).tobytes() == embedder.embed(["x"]).tobytes()


def test_a_missing_model_path_is_unavailable_naming_it(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime", reason="the meaning extra is not installed")
    missing = tmp_path / "nowhere" / "model.onnx"
    with pytest.raises(ModelUnavailableError) as caught:
        model.load(str(missing))
    assert str(missing) in str(caught.value)
    assert "[meaning]" in caught.value.todo
    with pytest.raises(ModelUnavailableError, match=r"model\.onnx"):
        model.load(str(tmp_path))  # a directory without model.onnx


def test_a_file_that_is_no_model_is_unavailable(embedder: model.Embedder, tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"not an onnx file")
    with pytest.raises(ModelUnavailableError, match="cannot load the embedding model"):
        model.load(str(tmp_path / "model.onnx"))


def test_without_the_extra_load_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` fails
    with pytest.raises(ModelUnavailableError) as caught:
        model.load()
    missing = "numpy" if importlib.util.find_spec("numpy") is None else "onnxruntime"
    assert f"{missing} is missing" in str(caught.value)
    assert INSTALL_FIX in str(caught.value)


def test_without_the_model_package_load_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in MEANING_MODULES:
        pytest.importorskip(name, reason=f"the meaning extra is not installed ({name})")
    real = metadata.distribution

    def distribution(name: str) -> metadata.Distribution:
        if name == model.MODEL_DIST:
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "distribution", distribution)
    with pytest.raises(ModelUnavailableError) as caught:
        model.load()
    assert f"the package {model.MODEL_DIST} is not installed" in str(caught.value)
    assert INSTALL_FIX in str(caught.value)
