"""router.meaning.store: vectors cached on disk by model id and text digest; only new
texts are embedded; a corrupt or foreign file is an empty cache; the file is private."""

from __future__ import annotations

import hashlib
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="the meaning extra is not installed (numpy)")

from router.meaning.store import Vectors  # noqa: E402

MODEL = "fake@1"
WIDTH = 8


class Counting:
    """A deterministic stand-in Embedder that records the texts it is asked to embed."""

    dimensions = WIDTH

    def __init__(self) -> None:
        self.asked: list[str] = []

    def embed(self, texts: Sequence[str]) -> Any:
        self.asked.extend(texts)
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:WIDTH], np.uint8) for t in texts]
        matrix = np.array(rows, dtype=np.float32).reshape(len(texts), WIDTH) + 1.0
        return (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)


def test_fill_embeds_only_texts_not_cached(tmp_path: Path) -> None:
    fake = Counting()
    vectors = Vectors.open(tmp_path, MODEL)
    first = vectors.fill(["a", "b", "a"], fake)
    assert fake.asked == ["a", "b"]  # a repeated text is embedded once
    assert first.shape == (3, WIDTH)
    assert first[0].tobytes() == first[2].tobytes()
    assert vectors.fill(["b", "c"], fake)[0].tobytes() == first[1].tobytes()
    assert fake.asked == ["a", "b", "c"]


def test_a_restart_reads_the_saved_vectors(tmp_path: Path) -> None:
    fake = Counting()
    vectors = Vectors.open(tmp_path, MODEL)
    before = vectors.fill(["one", "two"], fake)
    vectors.save()
    again = Counting()
    after = Vectors.open(tmp_path, MODEL).fill(["two", "one", "three"], again)
    assert again.asked == ["three"]  # an edit re-embeds only what changed
    assert after[0].tobytes() == before[1].tobytes()
    assert after[1].tobytes() == before[0].tobytes()


def test_save_keeps_only_the_texts_of_the_last_fill(tmp_path: Path) -> None:
    vectors = Vectors.open(tmp_path, MODEL)
    vectors.fill(["old", "kept"], Counting())
    vectors.fill(["kept", "new"], Counting())
    vectors.save()
    reopened = Vectors.open(tmp_path, MODEL)
    assert len(reopened) == 2
    fake = Counting()
    reopened.fill(["old", "kept", "new"], fake)
    assert fake.asked == ["old"]


def test_progress_counts_the_texts_to_embed(tmp_path: Path) -> None:
    vectors = Vectors.open(tmp_path, MODEL)
    vectors.fill(["cached"], Counting())
    seen: list[tuple[int, int]] = []
    texts = ["cached", *(f"t{i}" for i in range(100))]
    vectors.fill(texts, Counting(), lambda done, total: seen.append((done, total)))
    assert seen[-1] == (100, 100)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert {total for _, total in seen} == {100}
    nothing_new: list[tuple[int, int]] = []
    vectors.fill(texts, Counting(), lambda done, total: nothing_new.append((done, total)))
    assert nothing_new == []


@pytest.mark.parametrize(
    "content", [b"", b"garbage", b"PK\x03\x04 truncated zip", b"\x93NUMPY not an npz"]
)
def test_a_corrupt_file_is_an_empty_cache_and_is_rewritten(tmp_path: Path, content: bytes) -> None:
    path = Vectors.open(tmp_path, MODEL).path
    path.write_bytes(content)
    vectors = Vectors.open(tmp_path, MODEL)
    assert len(vectors) == 0
    fake = Counting()
    vectors.fill(["x"], fake)
    vectors.save()
    assert fake.asked == ["x"]
    assert len(Vectors.open(tmp_path, MODEL)) == 1


def test_another_models_file_is_ignored(tmp_path: Path) -> None:
    theirs = Vectors.open(tmp_path, MODEL)
    theirs.fill(["x"], Counting())
    theirs.save()
    # a foreign file at our path (say, two ids that make the same file name)
    foreign = Vectors.open(tmp_path, "fake/1")
    assert foreign.path == theirs.path
    assert len(foreign) == 0
    assert len(Vectors.open(tmp_path, MODEL)) == 1


def test_the_file_name_is_safe_whatever_the_model_id(tmp_path: Path) -> None:
    vectors = Vectors.open(tmp_path, "../../etc/passwd model@1+ab")
    assert vectors.path.parent == tmp_path
    assert "/" not in vectors.path.name and " " not in vectors.path.name


def test_save_writes_a_private_file_in_a_private_directory(tmp_path: Path) -> None:
    directory = tmp_path / "state" / "meaning"
    vectors = Vectors.open(directory, MODEL)
    vectors.fill(["secret document"], Counting())
    vectors.save()
    assert stat.S_IMODE(vectors.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert [p.name for p in directory.iterdir()] == [vectors.path.name]  # no temporary left


def test_a_failed_save_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vectors = Vectors.open(tmp_path, MODEL)
    vectors.fill(["kept"], Counting())
    vectors.save()
    before = vectors.path.read_bytes()
    vectors.fill(["kept", "more"], Counting())

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", fail)
    with pytest.raises(OSError, match="disk full"):
        vectors.save()
    assert vectors.path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [vectors.path.name]


def test_an_empty_fill_saves_an_empty_cache(tmp_path: Path) -> None:
    vectors = Vectors.open(tmp_path, MODEL)
    assert vectors.fill([], Counting()).shape == (0, WIDTH)
    vectors.save()
    assert len(Vectors.open(tmp_path, MODEL)) == 0


def test_a_save_with_nothing_new_writes_nothing(tmp_path: Path) -> None:
    vectors = Vectors.open(tmp_path, MODEL)
    vectors.fill(["a", "b"], Counting())
    vectors.save()
    stamp = vectors.path.stat().st_mtime_ns
    again = Vectors.open(tmp_path, MODEL)
    again.fill(["b", "a"], Counting())
    assert not again.dirty
    again.save()
    assert vectors.path.stat().st_mtime_ns == stamp
    again.fill(["a"], Counting())  # b is dropped: the file changes
    assert again.dirty
    again.save()
    assert len(Vectors.open(tmp_path, MODEL)) == 1
