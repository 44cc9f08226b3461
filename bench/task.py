"""The tasks the bench routes: short bags of the catalog's own Zipf words, a tenth naming a
governed path, and long ones of 10 to 5,000 words with source paths and stack traces."""

from __future__ import annotations

import random

from bench import corpus

LENGTHS = (10, 100, 1000, 5000)
SOURCE_TOPS = ("src", "src", "lib", "app", "services", "tests")
SOURCE_EXTS = (".py", ".py", ".py", ".ts", ".go", ".rs")


def task_zipf(size: int, rng: random.Random) -> corpus.Zipf:
    """Return a Zipf drawer over the vocabulary of the catalog of `size` entries."""
    words = corpus.vocabulary(random.Random(corpus.SEED + size), corpus.vocabulary_size(size))
    return corpus.Zipf(words, rng)


def tasks(size: int, governed: list[str], count: int, stream: str = "") -> list[str]:
    """Return benchmark tasks: 3-8 Zipf words, a tenth naming a governed path. Another
    `stream` gives other tasks of the same kind."""
    rng = random.Random(f"{stream}-{corpus.SEED}-{size}" if stream else corpus.SEED - size)
    zipf = task_zipf(size, rng)
    out = []
    for n in range(count):
        words = zipf.draw(rng.randint(3, 8))
        if governed and n % 10 == 0:
            words.append(rng.choice(governed))
        out.append(" ".join(words))
    return out


def source_path(zipf: corpus.Zipf, governed: list[str], rng: random.Random) -> str:
    """Return a source path with a line number; a third of them a governed path."""
    if governed and rng.random() < 1 / 3:
        path = rng.choice(governed)
    else:
        parts = zipf.draw(rng.randint(2, 3))
        path = "/".join([rng.choice(SOURCE_TOPS), *parts]) + rng.choice(SOURCE_EXTS)
    return f"{path}:{rng.randint(1, 900)}"


def long_tasks(size: int, governed: list[str], length: int, count: int) -> list[str]:
    """Return `count` tasks of `length` words (whitespace-separated tokens) of Zipf words.
    From 100 words on, a few are source paths with line numbers; from 1,000 on, half of
    those come as a pasted stack trace, one `File "path", line N, in name` frame a line."""
    rng = random.Random(f"tasks-{corpus.SEED}-{size}-{length}")
    zipf = task_zipf(size, rng)
    out = []
    for _ in range(count):
        paths = 0 if length < 100 else max(3, length // 100)
        frames = []
        if length >= 1000:
            for _ in range(paths // 2):
                path, line = source_path(zipf, governed, rng).rsplit(":", 1)
                frames.append(f'  File "{path}", line {line}, in {"_".join(zipf.draw(2))}')
            paths -= len(frames)
        trace = ["Traceback (most recent call last):", *frames] if frames else []
        used = sum(len(line.split()) for line in trace)
        words = zipf.draw(length - used - paths)
        for _ in range(paths):
            words.insert(rng.randint(0, len(words)), source_path(zipf, governed, rng))
        if trace:
            at = rng.randint(0, len(words))
            words[at:at] = ["\n" + "\n".join(trace) + "\n"]
        task = " ".join(words)
        assert len(task.split()) == length, (len(task.split()), length)
        out.append(task)
    return out
