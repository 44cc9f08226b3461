"""The `kroute` command line, run as a real process in temp dirs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from router.catalog import config
from testing.paths import DEMO, FIXTURES
from testing.process import kroute, run

EM = "\u2014"


@pytest.mark.process
def test_eval_annex_fixtures_pass_four_of_four() -> None:
    result = kroute("eval", str(FIXTURES / "annex"), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "pass"
    assert (report["case_count"], report["passed_case_count"]) == (4, 4)


@pytest.mark.process
def test_explain_gives_seed_one_numbers() -> None:
    task = "rate limit and back off across multiple LLM providers"
    catalog = FIXTURES / "catalogs" / "annex-provider_backoff_route"
    result = kroute("route", "--catalog", str(catalog), "--explain", "--json", task)
    assert result.returncode == 0, result.stderr
    top = json.loads(result.stdout)["rows"][0]
    assert top["score"] == 146
    assert top["match_breakdown"] == {
        "structured": 108,
        "family_text": 12,
        "open_first": 8,
        "notes": 18,
        "body": 0,  # annex rows have no body: seed 1's numbers hold
    }
    note = FIXTURES / "catalogs" / "annex-note_match"
    result = kroute(
        "route", "--catalog", str(note), "--explain", "provider rate limit retry receipt"
    )
    top = json.loads(result.stdout)["rows"][0]
    assert top["score"] == 63
    assert top["matched_note_ids"] == ["note_provider_backoff"]


@pytest.mark.process
def test_headwater_route_loads_every_document(corpus: Path) -> None:
    catalog = corpus / "headwater"
    check = kroute("check", "--catalog", str(catalog), "--json")
    report = json.loads(check.stdout)
    assert report["entries"] == 409 and report["errors"] == 0  # the README is no entry
    text = kroute("route", "--catalog", str(catalog), "why is throttling applied at the edge")
    assert text.returncode == 0, text.stderr
    assert text.stdout.strip()
    as_json = kroute(
        "route", "--catalog", str(catalog), "--json", "why is throttling applied at the edge"
    )
    doc = json.loads(as_json.stdout)
    assert doc["catalog"]["entries"] == 409
    assert doc["text"].strip() in text.stdout


@pytest.mark.process
def test_malformed_yaml_is_named_with_its_line_and_the_rest_still_routes(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(DEMO, repo)
    broken = repo / "docs" / "decisions" / "0099-broken.md"
    broken.write_text("---\nid: TW-DR-0099\ntitle: Broken\nsummary: [unclosed\n---\n# Broken\n")
    check = kroute("check", cwd=repo)
    assert check.returncode == 1
    assert "docs/decisions/0099-broken.md:4: error:" in check.stdout
    routed = kroute("route", "rotate the webhook signing key", cwd=repo)
    assert routed.returncode == 0
    assert "docs/how-to/" in routed.stdout


@pytest.mark.process
def test_same_request_twice_gives_identical_bytes() -> None:
    args = ("route", "--catalog", str(DEMO), "--json", "retry a failed delivery")
    first, second = kroute(*args), kroute(*args)
    assert first.returncode == 0
    assert first.stdout == second.stdout


@pytest.mark.process
def test_task_from_stdin_and_text_form() -> None:
    result = kroute("route", "--catalog", str(DEMO), "-", stdin="rotate the webhook signing key\n")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    pointers = [line for line in lines if EM in line]
    assert pointers
    for i, line in enumerate(lines):
        if EM in line:
            assert EM not in lines[i + 1] and lines[i + 1].startswith("    ")
    assert "\x1b[" not in result.stdout  # not a terminal: no color


@pytest.mark.process
def test_route_filters_budget_and_withheld() -> None:
    result = kroute(
        "route", "--catalog", str(DEMO), "--json", "--budget", "1", "retry a failed delivery"
    )
    doc = json.loads(result.stdout)
    assert len(doc["pointers"]) == 1
    assert doc["withheld"] >= 1
    kind = kroute(
        "route", "--catalog", str(DEMO), "--json", "--kind", "how_to", "retry a failed delivery"
    )
    assert {p["kind"] for p in json.loads(kind.stdout)["pointers"]} == {"how_to"}
    none = kroute(
        "route", "--catalog", str(DEMO), "--json", "--kind", "nothing", "retry a failed delivery"
    )
    assert json.loads(none.stdout)["silence"]["reason"] == "filtered"


@pytest.mark.process
def test_init_writes_a_starter_and_never_overwrites(tmp_path: Path) -> None:
    first = kroute("init", cwd=tmp_path)
    assert first.returncode == 0
    written = (tmp_path / "kroute.toml").read_text()
    assert "[purposes.rationale]" in written
    check = kroute("check", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    second = kroute("init", cwd=tmp_path)
    assert second.returncode == 1
    assert second.stderr.startswith("Error: ") and "already exists" in second.stderr
    assert (tmp_path / "kroute.toml").read_text() == written


@pytest.mark.process
def test_errors_and_usage_errors_exit_one_and_two(tmp_path: Path) -> None:
    (tmp_path / "kroute.toml").write_text("[route]\norder = 'sideways'\n")
    bad = kroute("route", "anything", cwd=tmp_path)
    assert bad.returncode == 1
    assert bad.stderr.startswith("Error: kroute.toml: route.order is 'sideways'. Use one of")
    usage = kroute("route", "--budget", "zero", "x", cwd=tmp_path)
    assert usage.returncode == 2
    limit = kroute("route", "--catalog", str(DEMO), "--limit", "2", "x")
    assert limit.returncode == 2


@pytest.mark.process
def test_init_roots_every_usual_home_so_rules_added_later_are_routed(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "intro.md").write_text("# Webhook retries\n\nWe retry deliveries.\n")
    made = kroute("init", cwd=tmp_path)
    assert made.returncode == 0 and "found here: docs" in made.stdout
    assert config.load(tmp_path / "kroute.toml").roots == config.DEFAULT_ROOTS
    rules = tmp_path / ".cursor" / "rules"  # a home that did not exist at init
    rules.mkdir(parents=True)
    for n in range(3):
        (rules / f"r{n}.mdc").write_text(f"---\ndescription: rule {n}\n---\nBody {n}.\n")
    checked = kroute("check", cwd=tmp_path)
    assert checked.returncode == 0
    assert checked.stdout.strip().splitlines()[-1].startswith("4 entries (doc 1, rule 3)")


@pytest.mark.process
def test_check_names_catalog_files_outside_the_roots(tmp_path: Path) -> None:
    (tmp_path / "kroute.toml").write_text('roots = ["docs"]\n')
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nText.\n")
    rules = tmp_path / ".cursor" / "rules"
    rules.mkdir(parents=True)
    for n in range(2):
        (rules / f"r{n}.mdc").write_text("---\ndescription: x\n---\nBody.\n")
    skill = tmp_path / "tools" / ".claude" / "skills" / "lint"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: lint\ndescription: run the linter\n---\n")
    (tmp_path / "README.md").write_text("# Not a catalog file\n")  # plain pages elsewhere are not
    result = kroute("check", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.splitlines()[:2] == [
        ".cursor/rules: warning: 2 Cursor rules outside the catalog roots, so no route offers "
        'them; add ".cursor/rules" to roots in kroute.toml',
        "tools/.claude/skills: warning: 1 skill outside the catalog roots, so no route offers "
        'it; add "tools/.claude/skills" to roots in kroute.toml',
    ]
    assert result.stdout.strip().endswith("1 entry (doc 1); 0 errors, 2 warnings")
    excluded = 'roots = ["docs"]\nexclude = [".cursor/**", "tools/**"]\n'
    (tmp_path / "kroute.toml").write_text(excluded)  # left out on purpose: nothing to say
    assert kroute("check", cwd=tmp_path).stdout == "1 entry (doc 1); 0 errors, 0 warnings\n"


@pytest.mark.process
def test_check_counts_info_lines_apart_from_warnings() -> None:
    result = kroute("check", "--catalog", str(FIXTURES / "catalogs" / "messy"), "--json")
    document = json.loads(result.stdout)
    severities = [d["severity"] for d in document["diagnostics"]]
    assert "info" in severities
    assert document["warnings"] == severities.count("warning")
    assert document["errors"] == severities.count("error")


@pytest.mark.process
def test_check_outside_a_repository_gives_the_error_route_gives(tmp_path: Path) -> None:
    check = kroute("check", cwd=tmp_path)
    route = kroute("route", "anything", cwd=tmp_path)
    assert check.returncode == route.returncode == 1
    assert check.stderr == route.stderr
    assert check.stderr.startswith(f"Error: No kroute.toml in {tmp_path.resolve()}")


@pytest.mark.process
def test_check_counts_entries_by_kind() -> None:
    result = kroute("check", "--catalog", str(DEMO))
    assert result.returncode == 0
    summary = result.stdout.strip().splitlines()[-1]
    assert "decision" in summary and "0 errors" in summary


@pytest.mark.process
def test_a_governed_path_offers_every_governing_document(corpus: Path) -> None:
    result = kroute(
        "route",
        "--catalog",
        str(corpus / "headwater"),
        "--json",
        "--budget",
        "1",
        "engine/crates/cli/src/main.rs",
    )
    doc = json.loads(result.stdout)
    # Every governing document is offered, outside the budget; the path's words add no
    # ranked pointer of their own (a path is an anchor, not a term).
    anchored = [p for p in doc["pointers"] if p["evidence"]["by"] == "anchor"]
    assert len(anchored) == 26 == len(doc["pointers"])
    assert all(p["evidence"]["anchors"] == ["engine/crates/cli/src/main.rs"] for p in anchored)


def headwater_judged(corpus: Path) -> list[str]:
    """Return `kroute eval`'s arguments for the headwater judged set on its catalog."""
    return [
        "--judged",
        str(FIXTURES / "judged" / "headwater.jsonl"),
        "--catalog",
        str(corpus / "headwater"),
        "--config",
        str(FIXTURES / "headwater" / "kroute.toml"),
    ]


@pytest.mark.process
def test_eval_judged_prints_the_three_orders(corpus: Path) -> None:
    result = kroute("eval", *headwater_judged(corpus))
    assert result.returncode == 0, result.stderr
    rows = [line.split()[0] for line in result.stdout.splitlines()[1:4]]
    assert rows == ["diverse", "turns", "score"]


@pytest.mark.process
def test_eval_intent_prints_accuracy_and_confusions() -> None:
    result = kroute("eval", "--intent", str(FIXTURES / "intent" / "labelled.jsonl"))
    assert result.returncode == 0, result.stderr
    assert "expected \\ predicted" in result.stdout
    assert "accuracy" in result.stdout


@pytest.mark.process
def test_eval_baseline_bm25_runs_in_the_same_process(corpus: Path) -> None:
    result = kroute(
        "eval",
        *headwater_judged(corpus),
        "--baseline",
        "bm25",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    figures = report["baselines"]["bm25"]
    assert 0 < figures["hit@1"] <= figures["hit@5"] <= 1
    assert set(report["orders"]) == {"diverse", "turns", "score"}
    assert all("bm25" in task["rank"] for task in report["tasks"])


@pytest.mark.process
def test_eval_judged_routes_a_task_over_its_repo_folder(tmp_path: Path) -> None:
    for repo, title in (("one", "Rotate the signing keys"), ("two", "Rotate the tyres")):
        (tmp_path / repo / "adr").mkdir(parents=True)
        (tmp_path / repo / "adr" / "0001-rotate.md").write_text(
            f"# 1. {title}\n\n## Status\n\nAccepted\n\n## Decision\n\nWe rotate.\n"
        )
    tasks = tmp_path / "set.jsonl"
    lines = [
        {
            "task": "how often do we rotate signing keys",
            "relevant": ["one/adr/0001-rotate.md"],
            "repo": "one",
        },
        {"task": "when do the tyres rotate", "relevant": ["two/adr/0001-rotate.md"], "repo": "two"},
    ]
    tasks.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = kroute("eval", "--judged", str(tasks), "--catalog", str(tmp_path), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["orders"]["score"]["hit@1"] == 1.0
    missing = kroute("eval", "--judged", str(tasks), "--catalog", str(tmp_path / "one"))
    assert missing.returncode == 1 and "names repo 'one'" in missing.stderr


@pytest.mark.process
def test_relevance_command_gives_the_headline() -> None:
    request = FIXTURES / "relevance" / "headline.json"
    result = kroute("relevance", str(request), "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [c["relevance"] for c in doc["kept"]] == [0.68]
    assert [c["relevance"] for c in doc["dropped"]] == [-0.46, 0.0]
    text = kroute("relevance", "-", stdin=request.read_text())
    lines = text.stdout.splitlines()
    assert lines[0].split()[:2] == ["kept", "0.68"]
    assert [line.split()[:2] for line in lines[1:]] == [["dropped", "-0.46"], ["dropped", "0.00"]]
    strict = kroute("relevance", str(request), "--threshold", "0.9", "--json")
    assert json.loads(strict.stdout)["kept"] == []
    bad = kroute("relevance", "-", stdin='{"focus": {"path": "a"}, "chunks": []}')
    assert bad.returncode == 1 and bad.stderr.startswith("Error: ")


@pytest.mark.process
def test_route_with_focus_drops_the_import_only_entry() -> None:
    task = "change how invoice tax lines are computed"
    focus = str(DEMO / "src" / "billing" / "invoice.py")
    result = kroute(
        "route", "--catalog", str(DEMO), "--no-daemon", "--json", "--focus", focus, task
    )
    ids = [p["id"] for p in json.loads(result.stdout)["pointers"]]
    assert "TW-SPEC-invoice-builder" in ids and "TW-DR-0006" not in ids


@pytest.mark.process
@pytest.mark.parametrize(
    ("text", "starts"),
    [
        ("grep for `parse_config` under src/", "route: lexical"),
        ("hmm", "{"),  # no cue: the full envelope with the global fallback
    ],
)
def test_intent_command_tapers_its_output(text: str, starts: str) -> None:
    result = kroute("intent", text)
    assert result.returncode == 0
    assert result.stdout.startswith(starts)
    if starts == "{":
        envelope = json.loads(result.stdout)
        assert envelope["strategy"] == "global" and envelope["fallback"] is True


@pytest.mark.process
def test_route_json_records_the_intent_with_auto_strategy() -> None:
    result = kroute(
        "route",
        "--catalog",
        str(DEMO),
        "--no-daemon",
        "--json",
        "--strategy",
        "auto",
        "retry a failed delivery",
    )
    assert json.loads(result.stdout)["intent"]["skip"] == "short"


# --- decision records and skill triggers ----------------------------------------------------


def route_json(catalog: Path, task: str, *extra: str) -> dict[str, Any]:
    result = kroute("route", "--no-daemon", "--catalog", str(catalog), "--json", *extra, task)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert isinstance(document, dict)
    return document


@pytest.mark.process
def test_a_rotation_task_reaches_the_record_through_its_body(corpus: Path) -> None:
    repo = corpus / "adr" / "alphagov-govuk-infrastructure"
    doc = route_json(repo, "pods keep the old database password after a rotation")
    paths = [p["path"] for p in doc["pointers"]]
    record = "docs/architecture/decisions/0008-use-external-secrets-for-secrets-storage.md"
    assert record in paths
    evidence = doc["pointers"][paths.index(record)]["evidence"]
    assert any(group["field"].startswith("body (") for group in evidence["fields"])
    assert "body (" in doc["text"]


@pytest.mark.process
def test_a_superseded_record_names_its_successor_which_comes_first() -> None:
    doc = route_json(
        FIXTURES / "adr" / "alphagov-forms", "send emails with govuk notify or amazon ses"
    )
    ids = [p["id"] for p in doc["pointers"]]
    assert ids.index("ADR019-use-amazon-ses") < ids.index("ADR002-use-govuk-notify")
    old = doc["pointers"][ids.index("ADR002-use-govuk-notify")]
    assert old["superseded_by"] == "ADR019-use-amazon-ses"
    assert "[superseded by ADR019-use-amazon-ses]" in doc["text"]


@pytest.mark.process
def test_skill_rules_triggers_reach_their_skill_with_evidence() -> None:
    demo = FIXTURES / "catalogs" / "demo"
    cases = {
        "webhooks to acme are failing with 401": ("debug-webhook-delivery", "keyword phrase"),
        "why is the invoice for tenant acme higher than last month": (
            "answer-billing-question",
            "intent pattern",
        ),
        "drop the legacy_source column from events": ("write-migration", "intent pattern"),
    }
    for task, (skill, field) in cases.items():
        doc = route_json(demo, task)
        first = doc["pointers"][0]
        assert first["id"] == skill, task
        assert field in [g["field"] for g in first["evidence"]["fields"]], task
    # path patterns govern: an edit of a migration anchors the skill; exclusions subtract
    edit = route_json(demo, "fix it", "--path", "migrations/0002_refunded_at.sql")
    anchored = {p["id"] for p in edit["pointers"] if "anchors" in p["evidence"]}
    assert "write-migration" in anchored
    billing = route_json(demo, "fix it", "--path", "src/billing/tax.py")
    assert "answer-billing-question" in {p["id"] for p in billing["pointers"]}
    test_file = route_json(demo, "fix it", "--path", "src/billing/test_tax.py")
    assert "answer-billing-question" not in {p["id"] for p in test_file["pointers"]}


@pytest.mark.process
def test_conversational_words_and_path_syntax_reach_nothing(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "money.md").write_text(
        "---\nid: money\nsummary: Money is stored as integer cents\n---\n"
    )
    (docs / "style.md").write_text(
        "---\nid: style\ntitle: Why we write what we do\nsummary: We should do it our way\n"
        "relations:\n  governs: [src/api/payments.py]\n---\n"
    )
    for i in range(6):
        (docs / f"other{i}.md").write_text(
            f"---\nid: other{i}\nsummary: unrelated topic {i}\n---\n"
        )
    cents = route_json(tmp_path, "why do we store money as integer cents")
    assert [p["id"] for p in cents["pointers"]] == ["money"]
    assert not {"why", "do", "we"} & set(cents["terms"])
    (docs / "api.md").write_text("---\nid: api\ntitle: Payments API versioning\n---\n")
    hints = route_json(tmp_path, "add type hints to src/api/payments.py")
    # only the document governing the named file: nothing is about type hints
    assert [(p["id"], p["evidence"]["by"]) for p in hints["pointers"]] == [("style", "anchor")]


@pytest.mark.process
def test_a_pasted_log_of_five_thousand_words_routes() -> None:
    demo = FIXTURES / "catalogs" / "demo"
    noise = " ".join(f"frame{i} at worker.py:{i}" for i in range(1700))
    doc = route_json(demo, "webhook delivery keeps failing with 401 " + noise)
    assert len(doc["task"].split()) >= 5000
    assert doc["pointers"][0]["id"] == "debug-webhook-delivery"


@pytest.mark.process
@pytest.mark.parametrize(
    ("raised", "code", "says"),
    [
        ("ZeroDivisionError('boom')", 3, "kroute failed unexpectedly (ZeroDivisionError: boom)"),
        ("KeyboardInterrupt()", 130, "Interrupted."),
        (
            "errors.ConfigError('kroute.toml is odd', 'Fix it')",
            1,
            "Error: kroute.toml is odd. Fix it.",
        ),
    ],
)
def test_one_handler_around_main_gives_each_failure_its_exit_code(
    raised: str, code: int, says: str
) -> None:
    script = (
        "import sys\n"
        "from router.base import errors\n"
        "from router.runtime import engine\n"
        "def fail(*a, **k):\n"
        f"    raise {raised}\n"
        "engine.Engine.load = fail\n"
        "from router.cli import main\n"
        "sys.argv = ['kroute', 'route', '--no-daemon', 'retry a failed delivery']\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=DEMO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == code
    assert says in done.stderr and "Traceback" not in done.stderr
    if code == 3:
        log = Path(os.environ["KROUTE_HOME"]) / "logs" / "crash.log"
        assert str(log) in done.stderr
        assert "ZeroDivisionError: boom" in log.read_text()


@pytest.mark.process
def test_route_where_there_is_no_catalog_says_where_it_looked_and_starts_nothing(
    tmp_path: Path,
) -> None:
    empty = tmp_path / "nothing-here"
    (empty / "src").mkdir(parents=True)
    (empty / "src" / "notes.md").write_text("---\nsummary: rotate the signing key\n---\n")
    result = kroute("route", "rotate the signing key", cwd=empty)
    assert result.returncode == 1 and result.stdout == ""
    assert str(empty.resolve()) in result.stderr and "kroute init" in result.stderr
    assert "No document shares" not in result.stderr
    runtime = Path(os.environ["XDG_RUNTIME_DIR"]) / "kroute"
    assert not list(runtime.glob("*.json"))  # no daemon was started over it


@pytest.mark.process
def test_route_without_a_config_still_reads_the_default_roots(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "keys.md").write_text(
        "---\ntitle: Rotate the signing key\nsummary: Steps to rotate the webhook signing key.\n"
        "---\nRotate the webhook signing key.\n"
    )
    # a note that is not in a catalog root: without a config only the default roots count
    (repo / "scratch").mkdir()
    (repo / "scratch" / "keys.md").write_text(
        "---\ntitle: Rotate the signing key too\nsummary: Rotate the webhook signing key.\n---\n"
    )
    result = kroute("route", "--no-daemon", "rotate the webhook signing key", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert "scratch/keys.md" not in result.stdout
    assert "docs/keys.md" in result.stdout


def test_the_command_table_matches_the_commands() -> None:
    import click

    from router.cli import group

    ctx = click.Context(group.main)
    for name, listed in group.COMMANDS.items():
        command = group.main.get_command(ctx, name)
        assert command is not None and command.callback is not None, name
        assert command.callback.__module__ == listed.module, name
        assert group.first_sentence(command.help or "") == listed.help, name
        assert command.hidden == listed.hidden, name
    # every command a module registers is in the table, so --help lists it
    assert set(group.main.commands) == set(group.COMMANDS)


def help_loads(report: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `kroute --help` in a fresh interpreter and print `loaded:` and what `report` (an
    expression over sys.modules and sys.argv) lists."""
    probe = (
        "import sys\n"
        "from router.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('loaded:', *{report})\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.process
def test_help_imports_no_command_module() -> None:
    done = help_loads(
        "sorted(m for m in sys.modules if m.startswith('router.runtime')"
        " or m.endswith('_commands'))"
    )
    assert "Commands:" in done.stdout and "why-not" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "loaded:"


# What `kroute --help` need not load: each is imported by the functions that use it.
HELP_UNNEEDED = ("orjson", "tomllib", "router.catalog.config", "hashlib", "traceback")


@pytest.mark.process
def test_help_loads_click_and_the_command_table_only() -> None:
    done = help_loads("[m for m in sys.argv[1:] if m in sys.modules]", *HELP_UNNEEDED)
    assert done.stdout.strip().splitlines()[-1] == "loaded:"


def clicks_help(monkeypatch: pytest.MonkeyPatch, columns: int) -> str:
    """Return what click prints for `kroute --help` on a terminal `columns` wide."""
    import click

    from router.cli import group

    monkeypatch.setenv("COLUMNS", str(columns))
    return group.main.get_help(click.Context(group.main, info_name="kroute")) + "\n"


def test_the_stored_overview_is_clicks_help_from_80_columns_on(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    from router.cli import overview

    stored = Path(overview.HELP_FILE)
    if request.config.getoption("--update-golden"):
        stored.write_text(clicks_help(monkeypatch, overview.WIDE), encoding="utf-8")
    for columns in (overview.WIDE, 120, 300):
        assert clicks_help(monkeypatch, columns) == stored.read_text(encoding="utf-8"), (
            "the command table or its help changed: run `pytest --update-golden`"
        )
    # narrower, click wraps otherwise: that is why it answers there
    assert clicks_help(monkeypatch, 60) != stored.read_text(encoding="utf-8")


def run_help(columns: int, program: str = "kroute") -> subprocess.CompletedProcess[str]:
    probe = (
        "import sys\n"
        f"sys.argv = [{program!r}, '--help']\n"
        "from router.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('click loaded:', 'click' in sys.modules)\n"
    )
    env = {**os.environ, "COLUMNS": str(columns)}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.process
def test_help_on_a_wide_terminal_prints_the_overview_without_click() -> None:
    from router.cli import overview

    wide = run_help(100)
    stored = Path(overview.HELP_FILE).read_text(encoding="utf-8")
    assert wide.stdout == stored + "click loaded: False\n"
    # a narrow terminal, or another program name (`python -m router`), is click's to answer
    narrow = run_help(60)
    assert narrow.stdout.endswith("click loaded: True\n") and "Commands:" in narrow.stdout
    other = run_help(100, program="__main__.py")
    assert other.stdout.endswith("click loaded: True\n") and "Usage: " in other.stdout


@pytest.mark.process
def test_help_from_the_installed_script_matches_the_overview() -> None:
    from router.cli import overview

    script = Path(sys.executable).with_name("kroute")
    if not script.exists():
        pytest.skip("no kroute script beside this interpreter")
    done = subprocess.run(
        [str(script), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == Path(overview.HELP_FILE).read_text(encoding="utf-8")


# -- a closed pipe ------------------------------------------------------------------------------

KROUTE = Path(sys.executable).with_name("kroute")


def with_closed_stdout(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run kroute with its stdout a pipe nobody reads any more (`kroute ... | head -c1`
    once head has exited): its first write fails."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [str(KROUTE), *args],
            cwd=cwd,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write)


@pytest.mark.process
@pytest.mark.parametrize(
    "args",
    [("route", "rotate the webhook signing key", "--no-daemon"), ("shadow", "tail")],
)
def test_a_closed_pipe_ends_quietly(tmp_path: Path, args: tuple[str, ...]) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(DEMO, repo)
    assert (
        kroute("route", "rotate the webhook signing key", "--no-daemon", cwd=repo).returncode == 0
    )
    result = with_closed_stdout(*args, cwd=repo)
    assert result.returncode in (0, 141), result.stderr
    assert result.stderr == ""


# -- an unusable state or runtime directory ---------------------------------------------------


@pytest.mark.process
@pytest.mark.parametrize("unusable", ["XDG_RUNTIME_DIR", "HOME"])
def test_a_route_is_answered_in_process_when_no_daemon_can_be_had(
    tmp_path: Path, short_tmp: Path, unusable: str
) -> None:
    """A file stands where the runtime dir, or the home holding the state dir, must be (as
    root, a read-only directory would not stop kroute: this does)."""
    repo = tmp_path / "repo"
    shutil.copytree(DEMO, repo)
    blocker = short_tmp / "a-file"
    blocker.write_text("not a directory")
    env = {k: v for k, v in os.environ.items() if not (unusable == "HOME" and k == "KROUTE_HOME")}
    env[unusable] = str(blocker)
    result = run([str(KROUTE), "route", "rotate the webhook signing key"], cwd=repo, env=env)
    assert result.returncode == 0, result.stderr
    assert "rotate-webhook-signing-key.md" in result.stdout
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("note: routed in process") and str(blocker) in result.stderr
