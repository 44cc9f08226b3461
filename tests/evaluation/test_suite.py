"""Suites of judged sets (router.evaluation.suite, `kroute eval --suite`): every set, its mean and
its worst, beside BM25."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from router.base.errors import EvalError
from router.catalog import config
from router.evaluation import judged, suite
from router.route import fusion
from router.runtime.engine import Engine
from testing.paths import FIXTURES
from testing.process import kroute

DEMO = FIXTURES / "catalogs" / "demo"
SKILL = ".claude/skills/debug-webhook-delivery/SKILL.md"
HOWTO = "docs/how-to/redeliver-failed-webhook.md"


def write_lines(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    return path


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    """A suite of two sets over the demo catalog: one with an out-of-scope task, one with a
    task that forbids a document the route offers."""
    write_lines(
        tmp_path / "one.jsonl",
        [
            {"task": "retry a failed webhook delivery", "relevant": [SKILL]},
            {"task": "add a graphql api for billing", "relevant": []},
        ],
    )
    write_lines(
        tmp_path / "two.jsonl",
        [
            {"task": "retry a failed webhook delivery", "relevant": [HOWTO]},
            {
                "task": "retry a failed webhook delivery",
                "relevant": [],
                "scope": "skill",
                "not_relevant": [SKILL],
            },
        ],
    )
    (tmp_path / "suite.toml").write_text(
        '[[set]]\nname = "one"\ncatalog = "demo"\njudged = "one.jsonl"\n\n'
        '[[set]]\nname = "two"\ncatalog = "demo"\njudged = "two.jsonl"\n'
    )
    (tmp_path / "demo").symlink_to(DEMO.resolve())
    return tmp_path / "suite.toml"


def load(member: suite.Member, repo: str | None) -> Engine:
    return Engine.load(config.bare(member.catalog.resolve()))


def test_a_suite_reports_every_set_its_mean_and_its_worst(manifest: Path) -> None:
    report = suite.run(suite.read(manifest), load, "score", ("bm25",))
    one, two = report["sets"]["one"], report["sets"]["two"]
    assert set(one) == {"score", "bm25"}
    # set one: the skill first, the graphql request silent (BM25 speaks: `billing`, `api`)
    assert one["score"]["hit@1"] == 1.0
    assert one["score"]["out_of_scope_silent"] == 1.0
    assert one["bm25"]["out_of_scope_silent"] == 0.0
    assert one["score"]["false_activation"] is None  # nothing forbidden in set one
    # set two: the how-to within five but second; the skill-scoped task offers the forbidden
    # skill, which is a false activation and not an out-of-scope task
    assert two["score"]["hit@1"] == 0.0
    assert two["score"]["hit@5"] == 1.0
    assert two["score"]["out_of_scope_silent"] is None
    assert two["score"]["false_activation"] == 1.0
    assert report["mean"]["score"]["hit@1"] == 0.5
    assert report["worst"]["score"]["hit@1"] == 0.0
    assert report["worst"]["score"]["false_activation"] == 1.0
    assert report["mean"]["score"]["out_of_scope_silent"] == 1.0  # one set has such tasks
    table = suite.text(report)
    assert [line.split()[:2] for line in table.splitlines()[1:7]] == [
        ["one", "score"],
        ["one", "bm25"],
        ["two", "score"],
        ["two", "bm25"],
        ["mean", "score"],
        ["mean", "bm25"],
    ]


@pytest.mark.process
def test_the_cli_runs_a_suite(manifest: Path) -> None:
    done = kroute("eval", "--suite", str(manifest), "--baseline", "bm25", "--json")
    assert done.returncode == 0, done.stderr
    report = orjson.loads(done.stdout)
    assert set(report["sets"]) == {"one", "two"} and report["order"] == "score"
    mixed = kroute("eval", "--suite", str(manifest), "--catalog", str(DEMO))
    assert mixed.returncode == 2 and "--catalog" in mixed.stderr


@pytest.mark.process
def test_with_meaning_every_set_has_words_fused_and_the_model_and_each_set_is_held_out(
    manifest: Path,
) -> None:
    pytest.importorskip("onnxruntime", reason="the meaning extra is not installed")
    done = kroute("eval", "--suite", str(manifest), "--baseline", "bm25", "--meaning", "--json")
    assert done.returncode == 0, done.stderr
    report = orjson.loads(done.stdout)
    for name in ("one", "two"):
        assert set(report["sets"][name]) == {"score", "score+meaning", "meaning", "bm25"}
    weights = report["weights"]
    assert [float(w) for w in weights["means"]] == list(fusion.WEIGHTS)
    assert weights["chosen"] in fusion.WEIGHTS and weights["shipped"] == fusion.WORDS_WEIGHT
    for name, held in weights["held_out"].items():
        # the weight the other set chooses, and the held-out set's figures at it
        (other,) = {"one", "two"} - {name}
        words = report["sets"][other]["score"]
        measured = {float(w): [(f, words)] for w, f in weights["sets"][other].items()}
        assert held["weight"] == suite.choose(measured)
        at = weights["sets"][name][f"{held['weight']:.1f}"]
        assert held["fused"] == {k: at[k] for k in suite.CHOSEN_BY}
    shown = kroute("eval", "--suite", str(manifest), "--baseline", "bm25", "--meaning")
    assert shown.returncode == 0, shown.stderr
    assert "words' weight in the fused score" in shown.stdout
    assert "each set left out" in shown.stdout


def test_manifest_errors_name_the_set(tmp_path: Path) -> None:
    bad = tmp_path / "suite.toml"
    bad.write_text('[[set]]\nname = "x"\ncatalog = "nowhere"\njudged = "x.jsonl"\n')
    with pytest.raises(EvalError, match="'x' names the catalog"):
        suite.read(bad)
    bad.write_text('[[set]]\nname = "x"\n')
    with pytest.raises(EvalError, match="set 1 needs name, catalog and judged"):
        suite.read(bad)
    bad.write_text("[set\n")
    with pytest.raises(EvalError, match="cannot read the suite"):
        suite.read(bad)


def test_judged_lines_carry_scope_and_forbidden_documents(tmp_path: Path) -> None:
    good = write_lines(
        tmp_path / "g.jsonl",
        [{"task": "t", "relevant": [], "scope": "skill", "not_relevant": ["a/SKILL.md"]}],
    )
    (task,) = judged.read(good)
    assert task.not_relevant == ("a/SKILL.md",) and not task.out_of_scope
    bad = write_lines(tmp_path / "b.jsonl", [{"task": "t", "relevant": [], "scope": "maybe"}])
    with pytest.raises(EvalError, match=r"b\.jsonl:1"):
        judged.read(bad)


def test_a_weight_is_chosen_for_lowering_no_set_before_its_mean() -> None:
    words = {"hit@1": 0.5, "hit@5": 0.8}
    measured = {
        0.4: [({"hit@1": 0.4, "hit@5": 1.0}, words), ({"hit@1": 0.9, "hit@5": 1.0}, words)],
        0.6: [({"hit@1": 0.5, "hit@5": 0.8}, words), ({"hit@1": 0.6, "hit@5": 0.9}, words)],
        0.8: [({"hit@1": 0.5, "hit@5": 0.8}, words), ({"hit@1": 0.6, "hit@5": 0.9}, words)],
    }
    # 0.4 has the best means but lowers a set's hit@1; 0.6 and 0.8 tie: the higher
    assert suite.choose(measured) == 0.8
    del measured[0.6], measured[0.8]
    assert suite.choose(measured) == 0.4
