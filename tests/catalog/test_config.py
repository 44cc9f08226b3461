"""kroute.toml: discovery, loading and every ConfigError (router.catalog.config)."""

from __future__ import annotations

from pathlib import Path

import pytest

from router.base.errors import ConfigError
from router.catalog import config
from router.catalog.config import DEFAULT_ROOTS
from testing import disk
from testing.paths import DEMO, FIXTURES

FULL = """\
roots = ["docs", ".cursor/rules"]
exclude = ["docs/archive/**", "**/*.draft.md"]

[route]
budget = 7
order = "turns"

[shadow]
mode = "shadow"

[intent.strategies.lookup]
budget = 3

[purposes.rationale]
intent = "why a choice was made"
answers = ["why is it this way", "what was rejected"]

[purposes.procedure]
intent = "the steps of a job"
answers = ["how do I do this"]

[kinds]
decision = "rationale"
how_to = { purpose = "procedure" }

[shelves]
"docs/decisions/**" = "decision"
"docs/how-to/**" = "how_to"
"""


def write(directory: Path, body: str | bytes) -> Path:
    """Write `body` as the kroute.toml of `directory`; return the file."""
    return disk.write(directory, "kroute.toml", body)


def test_load_full_config(tmp_path: Path) -> None:
    cfg = config.load(write(tmp_path, FULL))
    assert cfg.root == tmp_path.resolve()
    assert cfg.roots == ("docs", ".cursor/rules")
    assert cfg.exclude == ("docs/archive/**", "**/*.draft.md")
    assert (cfg.budget, cfg.order, cfg.shadow_mode) == (7, "turns", "shadow")
    assert cfg.intent == {"strategies": {"lookup": {"budget": 3}}}
    assert cfg.file == (tmp_path / "kroute.toml").resolve()
    assert len(cfg.digest) == 16 and cfg.digest != "none"
    tax = cfg.taxonomy
    assert [p.name for p in tax.purposes] == ["rationale", "procedure"]
    assert tax.purposes[0].answers == ("why is it this way", "what was rejected")
    assert tax.kinds == (("decision", "rationale"), ("how_to", "procedure"))
    assert tax.shelves == (("docs/decisions/**", "decision"), ("docs/how-to/**", "how_to"))


def test_empty_config_has_defaults(tmp_path: Path) -> None:
    cfg = config.load(write(tmp_path, ""))
    assert cfg.roots == DEFAULT_ROOTS
    assert cfg.exclude == ()
    assert (cfg.budget, cfg.order, cfg.shadow_mode) == (5, "score", "live")
    assert cfg.taxonomy.purposes == () and cfg.taxonomy.shelves == ()


def test_roots_relative_to_a_given_catalog_dir(tmp_path: Path) -> None:
    file = write(tmp_path / "elsewhere", 'roots = ["docs"]')
    catalog_dir = tmp_path / "repo"
    catalog_dir.mkdir()
    cfg = config.load(file, catalog_dir)
    assert cfg.root == catalog_dir.resolve()
    assert cfg.file == file.resolve()


def test_digest_follows_the_bytes(tmp_path: Path) -> None:
    a = config.load(write(tmp_path / "a", 'roots = ["docs"]'))
    b = config.load(write(tmp_path / "b", 'roots = ["docs"]'))
    c = config.load(write(tmp_path / "c", 'roots = ["docs"]  # changed'))
    assert a.digest == b.digest != c.digest


def test_bare_config() -> None:
    cfg = config.bare(Path("/some/where"))
    assert cfg.root == Path("/some/where")
    assert cfg.roots == (".",)
    assert cfg.file is None and cfg.taxonomy.purposes == ()


def test_shipped_configs_load() -> None:
    demo = config.load(DEMO / "kroute.toml")
    assert len(demo.taxonomy.purposes) == 6
    headwater = config.load(FIXTURES / "headwater" / "kroute.toml")
    assert headwater.roots == ("docs",)
    assert headwater.taxonomy.shelf_kind("docs/decisions/0001-x.md") == "decision"


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ('roots = ["docs"', ["not valid TOML"]),
        (b'roots = ["\xff"]', ["not valid TOML"]),
        ('roots = "docs"', ["`roots`", "list of text"]),
        ("roots = [1, 2]", ["`roots`"]),
        ('exclude = "docs/old/**"', ["`exclude`"]),
        ("route = 3", ["`route`", "table"]),
        ('[route]\norder = "random"', ["route.order", "'random'", "diverse, turns, score"]),
        ("[route]\nbudget = -1", ["route.budget", "-1"]),
        ("[route]\nbudget = true", ["route.budget"]),
        ('[route]\nbudget = "5"', ["route.budget"]),
        ("[route]\nbudget = 2.5", ["route.budget"]),
        ('shadow = "live"', ["`shadow`", "table"]),
        ('[shadow]\nmode = "loud"', ["shadow.mode", "'loud'", "live, shadow, off"]),
        ("intent = 1", ["`intent`"]),
        ("purposes = 1", ["`purposes`"]),
        ('[purposes]\nrationale = "why"', ["`purposes.rationale`"]),
        ("[purposes.rationale]\nintent = 3", ["purposes.rationale.intent", "text"]),
        ('[purposes.rationale]\nanswers = "why"', ["purposes.rationale.answers"]),
        ("[purposes.rationale]\nanswers = [1]", ["purposes.rationale.answers"]),
        ("kinds = 1", ["`kinds`"]),
        ("[kinds]\ndecision = 3", ["kinds.decision", "purpose"]),
        ('[kinds.decision]\nwhy = "rationale"', ["kinds.decision"]),
        (
            '[purposes.rationale]\nintent = "x"\n[kinds]\ndecision = "behavior"',
            ["kinds.decision", "`behavior`", "not declared"],
        ),
        ('shelves = "docs/**"', ["`shelves`"]),
        ('[shelves]\n"docs/**" = 3', ['shelves."docs/**"', "kind"]),
        ('[shelves]\n"docs/adr/**" = ""', ['shelves."docs/adr/**"']),
        ('[shelves]\n"docs/adr/**" = ["decision"]', ['shelves."docs/adr/**"']),
        ("daemon = 30", ["`daemon`", "table"]),
        ("[daemon]\nidle_minutes = -1", ["daemon.idle_minutes", "-1"]),
        ('[daemon]\nidle_minutes = "30"', ["daemon.idle_minutes"]),
        ("[daemon]\nidle_minutes = true", ["daemon.idle_minutes"]),
        ("[daemon]\nidle_minutes = inf", ["daemon.idle_minutes", "inf"]),
        ("[daemon]\nidle_minutes = nan", ["daemon.idle_minutes", "nan"]),
    ],
)
def test_config_errors_name_the_member(tmp_path: Path, body: str | bytes, names: list[str]) -> None:
    with pytest.raises(ConfigError) as caught:
        config.load(write(tmp_path, body))
    message = str(caught.value)
    assert "kroute.toml" in message
    for name in names:
        assert name in message
    assert caught.value.todo  # every error says what to do


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ('root = ["docs"]', ["`root` is not a kroute.toml setting", "Did you mean `roots`?"]),
        ("[rout]\nbudget = 3", ["[rout] is not a kroute.toml setting", "Did you mean [route]?"]),
        ("[route]\nbuget = 3", ["`route.buget`", "Did you mean `budget`?"]),
        ('[shadow]\nmod = "off"', ["`shadow.mod`", "Did you mean `mode`?"]),
        ("[daemon]\nidle = 5", ["`daemon.idle`", "Did you mean `idle_minutes`?"]),
        ("[purposes.rationale]\nintents = 'x'", ["`purposes.rationale.intents`", "`intent`"]),
        ("zebra = 1", ["`zebra` is not a kroute.toml setting", "Use one of roots, exclude"]),
        ("[intent.strategies.lokup]\nbudget = 3", ["'lokup'", "lookup"]),
    ],
)
def test_unknown_keys_and_sections_are_errors_naming_the_nearest(
    tmp_path: Path, body: str, names: list[str]
) -> None:
    with pytest.raises(ConfigError) as caught:
        config.load(write(tmp_path, body))
    for name in names:
        assert name in str(caught.value)


def test_every_problem_of_a_config_is_reported_at_once(tmp_path: Path) -> None:
    body = 'root = ["docs"]\n[rout]\nbudget = 3\n[shadow]\nmode = "loud"\n[kinds]\nx = 3\n'
    with pytest.raises(ConfigError) as caught:
        config.load(write(tmp_path, body))
    message = str(caught.value)
    assert message.startswith("kroute.toml has 4 problems: (1) ")
    for name in ("`root`", "[rout]", "shadow.mode", "kinds.x"):
        assert name in message
    assert message.endswith("Fix each of them, then run kroute check.")


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        config.load(tmp_path / "absent.toml")


def test_kinds_without_purposes_are_not_checked(tmp_path: Path) -> None:
    cfg = config.load(write(tmp_path, '[kinds]\ndecision = "rationale"'))
    assert cfg.taxonomy.kinds == (("decision", "rationale"),)


@pytest.mark.parametrize(
    ("body", "minutes"),
    [
        ("", 30.0),
        ("[daemon]\nidle_minutes = 5", 5.0),
        ("[daemon]\nidle_minutes = 0.5", 0.5),
        ("[daemon]\nidle_minutes = 0", 0.0),
    ],
)
def test_daemon_idle_minutes(tmp_path: Path, body: str, minutes: float) -> None:
    """Defect 17: a daemon exits after `[daemon] idle_minutes` without a request (default 30,
    0 for never)."""
    assert config.load(write(tmp_path, body)).idle_minutes == minutes
