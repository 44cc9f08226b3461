"""Loading catalogs from real files: formats, diagnostics, refresh, fingerprint, corpora
(router.catalog.reader, DESIGN 4.1 and 4.2)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from subprocess import CompletedProcess

import pytest

from router.catalog import config, diagnostic, limit, reader, walk
from router.catalog.diagnostic import Diagnostic
from router.catalog.reader import MAX_FILE_BYTES, Catalog
from router.catalog.walk import SKIP_DIRS
from router.ranking.index import Index
from testing.disk import write
from testing.paths import CORPORA, DEMO, FIXTURES
from testing.process import kroute
from testing.wait import within

MESSY = FIXTURES / "catalogs" / "messy"


def doc(ident: str, title: str = "A title", extra: str = "") -> str:
    return f"---\nid: {ident}\ntitle: {title}\n{extra}---\n\n# {title}\n\nBody text.\n"


def load(root: Path) -> Catalog:
    return reader.load(config.bare(root))


def ids(cat: Catalog) -> list[str]:
    return [e.id for e in cat.entries]


def only(cat: Catalog, path: str) -> Diagnostic:
    found = [d for d in cat.diagnostics if d.path == path]
    assert len(found) == 1, cat.diagnostics
    return found[0]


# --- formats ---------------------------------------------------------------------------


@pytest.fixture
def every_format(tmp_path: Path) -> Path:
    write(tmp_path, "docs/decisions/0001-storage.md", doc("DEC-1", "Storage", "kind: decision\n"))
    write(tmp_path, "docs/plain.md", "---\ntitle: Plain\nsummary: no kind\n---\n")
    write(
        tmp_path,
        ".claude/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: PDF forms\nwhen_to_use: editing a form\n---\n",
    )
    write(tmp_path, ".cursor/rules/py.mdc", "---\ndescription: py\nglobs: **/*.py\n---\n")
    write(
        tmp_path,
        ".github/instructions/rust.instructions.md",
        "---\napplyTo: '**/*.rs'\ndescription: rust\n---\n",
    )
    write(
        tmp_path,
        "docs/techniques.catalog.json",
        json.dumps(
            {
                "annexes": [
                    {"slug": "backoff", "display_name": "Backoff", "description": "retry"},
                    {"slug": "quota", "display_name": "Quota", "kind": "technique"},
                ]
            }
        ),
    )
    return tmp_path


def test_each_format_gives_its_entries(every_format: Path) -> None:
    cat = load(every_format)
    assert cat.errors == ()
    by_id = {e.id: e for e in cat.entries}
    assert {i: (e.kind, e.path) for i, e in by_id.items()} == {
        "pdf": ("skill", ".claude/skills/pdf/SKILL.md"),
        "py": ("rule", ".cursor/rules/py.mdc"),
        "rust.instructions": ("instruction", ".github/instructions/rust.instructions.md"),
        "DEC-1": ("decision", "docs/decisions/0001-storage.md"),
        "plain": ("doc", "docs/plain.md"),
        "backoff": ("annex", "docs/techniques.catalog.json#backoff"),
        "quota": ("technique", "docs/techniques.catalog.json#quota"),
    }
    assert by_id["py"].governs == ("**/*.py",)
    assert by_id["rust.instructions"].governs == ("**/*.rs",)
    assert by_id["pdf"].open_first == ("editing a form",)
    assert by_id["backoff"].is_row and by_id["backoff"].file == "docs/techniques.catalog.json"
    # the Cursor fallback is a warning with the file line, never an error
    assert only(cat, ".cursor/rules/py.mdc").severity == diagnostic.WARNING
    assert only(cat, ".cursor/rules/py.mdc").line == 3


def test_entries_are_in_path_order(every_format: Path) -> None:
    cat = load(every_format)
    files = [e.file for e in cat.entries]
    assert files == sorted(files)
    assert list(cat.files) == sorted(cat.files)


def test_paths_are_relative_to_the_root(every_format: Path) -> None:
    cat = load(every_format / "docs")
    assert sorted(e.path for e in cat.entries if not e.is_row) == [
        "decisions/0001-storage.md",
        "plain.md",
    ]


def test_shelf_gives_kind_unless_front_matter_says(tmp_path: Path) -> None:
    write(tmp_path, "kroute.toml", '[shelves]\n"docs/decisions/**" = "decision"\n')
    write(tmp_path, "docs/decisions/0001.md", doc("D1"))
    write(tmp_path, "docs/decisions/0002.md", doc("D2", extra="kind: review_record\n"))
    write(tmp_path, "docs/decisions/0003.md", doc("D3", extra="doc_type: probe\n"))
    write(tmp_path, "docs/other.md", doc("O1"))
    cat = reader.load(config.load(tmp_path / "kroute.toml"))
    kinds = {e.id: e.kind for e in cat.entries}
    assert kinds == {"D1": "decision", "D2": "review_record", "D3": "probe", "O1": "doc"}


def test_a_bom_markdown_file_loads(tmp_path: Path) -> None:
    write(tmp_path, "docs/bom.md", b"\xef\xbb\xbf" + doc("with-bom").encode())
    cat = load(tmp_path)
    assert ids(cat) == ["with-bom"] and cat.diagnostics == ()


def test_a_bom_json_catalog_loads(tmp_path: Path) -> None:
    write(tmp_path, "docs/t.catalog.json", b'\xef\xbb\xbf{"annexes": [{"slug": "bom-row"}]}')
    write(tmp_path, "docs/package.json", b'\xef\xbb\xbf{"name": "not-a-catalog"}')
    cat = load(tmp_path)
    assert ids(cat) == ["bom-row"]
    assert cat.diagnostics == ()


# --- diagnostics -----------------------------------------------------------------------


def test_bad_yaml_is_an_error_with_the_file_line(tmp_path: Path) -> None:
    write(tmp_path, "docs/bad.md", "---\nid: bad\ntitle: fine\nsummary: [a, b\n---\n")
    cat = load(tmp_path)
    d = only(cat, "docs/bad.md")
    assert (d.severity, d.line) == ("error", 4)
    assert "YAML" in d.problem
    assert cat.entries == ()


def test_unclosed_front_matter_is_an_error_on_line_one(tmp_path: Path) -> None:
    write(tmp_path, "docs/open.md", "---\nid: open\ntitle: never closed\n\n# Body\n")
    d = only(load(tmp_path), "docs/open.md")
    assert (d.severity, d.line) == ("error", 1)


def test_front_matter_not_a_mapping(tmp_path: Path) -> None:
    write(tmp_path, "docs/list.md", "---\n- a\n- b\n---\n")
    d = only(load(tmp_path), "docs/list.md")
    assert d.severity == "error" and "mapping" in d.problem


def test_bad_json_is_an_error_with_the_line(tmp_path: Path) -> None:
    write(tmp_path, "docs/t.catalog.json", '{\n  "annexes": [\n    {"slug": "x",}\n  ]\n}\n')
    d = only(load(tmp_path), "docs/t.catalog.json")
    assert (d.severity, d.line) == ("error", 3)
    assert "JSON" in d.problem


def test_annexes_not_a_list(tmp_path: Path) -> None:
    write(tmp_path, "docs/t.catalog.json", '{"annexes": {"slug": "x"}}')
    d = only(load(tmp_path), "docs/t.catalog.json")
    assert d.severity == "error" and "`annexes`" in d.problem


def test_bad_annex_rows_are_skipped_and_the_others_load(tmp_path: Path) -> None:
    rows = [
        {"slug": "good-1"},
        "not an object",
        {"slug": "bad-tags", "tags": {"a": 1}},
        {"display_name": "no slug"},
        {"slug": "good-2"},
    ]
    write(tmp_path, "docs/t.catalog.json", json.dumps({"annexes": rows}))
    cat = load(tmp_path)
    assert ids(cat) == ["good-1", "good-2"]
    problems = [d.problem for d in cat.errors]
    assert len(problems) == 3
    assert problems[0].startswith("annexes[2]")
    assert problems[1].startswith("annexes[3]") and "`tags`" in problems[1]
    assert problems[2].startswith("annexes[4]") and "slug" in problems[2]


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("tags: {a: 1}\n", "`tags`"),
        ("routing: [x]\n", "`routing`"),
        ("notes: [{id: n, relevance: high}]\n", "`notes[1].relevance`"),
        ("relations:\n  governs: [{path: src}]\n", "`relations.governs`"),
    ],
)
def test_wrong_field_types_are_errors_naming_the_field(
    tmp_path: Path, extra: str, field: str
) -> None:
    write(tmp_path, "docs/typed.md", doc("typed", extra=extra))
    write(tmp_path, "docs/fine.md", doc("fine"))
    cat = load(tmp_path)
    d = only(cat, "docs/typed.md")
    assert d.severity == "error" and field in d.problem
    assert ids(cat) == ["fine"]


def test_non_utf8_is_an_error_with_the_line(tmp_path: Path) -> None:
    write(tmp_path, "docs/latin1.md", "---\nid: x\ntitle: Café\n---\n".encode("latin-1"))
    d = only(load(tmp_path), "docs/latin1.md")
    assert (d.severity, d.line) == ("error", 3)
    assert "UTF-8" in d.problem


def test_duplicate_ids_first_by_path_wins(tmp_path: Path) -> None:
    write(tmp_path, "docs/b/second.md", doc("SAME", "Second"))
    write(tmp_path, "docs/a/first.md", doc("SAME", "First"))
    write(tmp_path, "docs/c.catalog.json", json.dumps({"annexes": [{"slug": "SAME"}]}))
    cat = load(tmp_path)
    assert [(e.id, e.title) for e in cat.entries] == [("SAME", "First")]
    assert [d.path for d in cat.errors] == ["docs/b/second.md", "docs/c.catalog.json"]
    assert all("SAME" in d.problem and "docs/a/first.md" in d.problem for d in cat.errors)


def test_over_size_file_is_a_warning_and_skipped(tmp_path: Path) -> None:
    head = doc("big")
    write(tmp_path, "docs/big.md", head + "x" * (MAX_FILE_BYTES + 1 - len(head)))
    write(
        tmp_path,
        "docs/exact.md",
        head.replace("big", "exact") + "x" * (MAX_FILE_BYTES - len(head) - 2),
    )
    assert (tmp_path / "docs/big.md").stat().st_size == MAX_FILE_BYTES + 1
    assert (tmp_path / "docs/exact.md").stat().st_size == MAX_FILE_BYTES
    cat = load(tmp_path)
    d = only(cat, "docs/big.md")
    assert d.severity == "warning" and "1 MiB" in d.problem
    assert ids(cat) == ["exact"]


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_symlinks_leaving_the_root_are_warnings_and_skipped(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    write(outside, "leak.md", doc("leak"))
    write(outside, "dir/also.md", doc("also-leak"))
    write(repo, "docs/real.md", doc("real"))
    (repo / "docs" / "link.md").symlink_to(outside / "leak.md")
    (repo / "docs" / "linkdir").symlink_to(outside / "dir")
    cat = load(repo)
    assert ids(cat) == ["real"]
    assert {(d.path, d.severity) for d in cat.diagnostics} == {
        ("docs/link.md", "warning"),
        ("docs/linkdir", "warning"),
    }


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_a_symlink_leaving_its_root_for_elsewhere_in_the_repo(tmp_path: Path) -> None:
    write(tmp_path, "kroute.toml", 'roots = ["docs"]\n')
    write(tmp_path, "notes/private.md", doc("private"))
    write(tmp_path, "docs/real.md", doc("real"))
    (tmp_path / "docs" / "private.md").symlink_to(tmp_path / "notes" / "private.md")
    cat = reader.load(config.load(tmp_path / "kroute.toml"))
    assert ids(cat) == ["real"]
    assert only(cat, "docs/private.md").severity == "warning"


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_a_symlink_inside_the_root_is_followed(tmp_path: Path) -> None:
    # the link's name decides the format; the target's own name is not a catalog file
    write(tmp_path, "shared/target.txt", doc("through-link"))
    (tmp_path / "alias.md").symlink_to(tmp_path / "shared" / "target.txt")
    (tmp_path / "shared-link").symlink_to(tmp_path / "shared")  # a directory: not walked twice
    cat = load(tmp_path)
    assert [(e.id, e.path) for e in cat.entries] == [("through-link", "alias.md")]
    assert cat.diagnostics == ()


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_refresh_does_not_follow_a_symlink_out_of_the_root(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    write(outside, "leak.md", doc("leak"))
    write(repo, "docs/real.md", doc("real"))
    cfg = config.bare(repo)
    before = reader.load(cfg)
    (repo / "docs" / "link.md").symlink_to(outside / "leak.md")
    after = reader.refresh(cfg, before, ["docs/link.md"])
    assert ids(after) == ids(reader.load(cfg)) == ["real"]


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_refresh_forgets_the_warning_of_a_removed_symlink(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    write(outside, "leak.md", doc("leak"))
    write(repo, "docs/real.md", doc("real"))
    (repo / "docs" / "link.md").symlink_to(outside / "leak.md")
    cfg = config.bare(repo)
    before = reader.load(cfg)
    assert [d.path for d in before.diagnostics] == ["docs/link.md"]
    (repo / "docs" / "link.md").unlink()
    after = reader.refresh(cfg, before, ["docs/link.md"])
    assert after.diagnostics == reader.load(cfg).diagnostics == ()


def test_markdown_without_any_text_is_an_untyped_warning(tmp_path: Path) -> None:
    write(tmp_path, "docs/empty.md", "<!-- to be written -->\n\n")
    write(tmp_path, ".cursor/rules/bare.mdc", "Always be kind.\n")
    cat = load(tmp_path)
    assert cat.entries == () and cat.errors == ()
    assert "untyped" in only(cat, "docs/empty.md").problem
    assert only(cat, ".cursor/rules/bare.mdc").severity == "warning"


@pytest.mark.parametrize(
    ("relpath", "title"),
    [
        ("docs/getting-started.md", "getting started"),
        ("docs/release_notes.md", "release notes"),
        ("docs/payments/README.md", "payments"),
        ("docs/payments/_index.md", "payments"),
        ("docs/ingest/index.md", "ingest"),
    ],
)
def test_a_page_without_a_heading_takes_its_title_from_its_name(
    tmp_path: Path, relpath: str, title: str
) -> None:
    write(tmp_path, relpath, "Just prose, and no heading to title it.\n\n- and a list\n")
    cat = load(tmp_path)
    (item,) = cat.entries
    assert (item.title, item.summary) == (title, "Just prose, and no heading to title it.")
    assert not [d for d in cat.diagnostics if d.severity != diagnostic.INFO]


@pytest.mark.parametrize("nested", [True, False])
def test_skill_rules_in_either_shape_join_their_skill(tmp_path: Path, nested: bool) -> None:
    rules: dict[str, object] = {
        "pdf": {"promptTriggers": {"keywords": ["fill a form"]}},
        "orphan": {"fileTriggers": {"pathPatterns": ["src/**"]}},
        "draft": "to be written",
    }
    document = {"skills": rules} if nested else {"_comment": "activator rules", **rules}
    write(tmp_path, ".claude/skills/skill-rules.json", json.dumps(document))
    write(tmp_path, ".claude/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: PDF\n---\n")
    cat = load(tmp_path)
    by_id = {e.id: e for e in cat.entries}
    assert sorted(by_id) == ["orphan", "pdf"]
    assert by_id["pdf"].keywords == ("fill a form",) and by_id["pdf"].path.endswith("SKILL.md")
    (problem,) = [d for d in cat.diagnostics if d.path.endswith("skill-rules.json")]
    assert "draft" in problem.problem
    # under `skills` every member is a skill: one that is not an object is an error
    assert problem.severity == (diagnostic.ERROR if nested else diagnostic.WARNING)


def test_other_files_are_ignored_silently(tmp_path: Path) -> None:
    write(tmp_path, "docs/package.json", '{"name": "x", "version": "1.0.0"}')
    write(tmp_path, "docs/list.json", "[1, 2, 3]")
    write(tmp_path, "docs/number.json", "42")
    write(tmp_path, "docs/notes.txt", "---\nid: txt\n---\n")
    write(tmp_path, "docs/conf.yaml", "id: yaml\n")
    write(tmp_path, "docs/only.md", doc("only"))
    cat = load(tmp_path)
    assert ids(cat) == ["only"] and cat.diagnostics == ()


def test_loading_never_stops_on_a_bad_file(tmp_path: Path) -> None:
    write(tmp_path, "docs/a-bad-yaml.md", "---\nid: [\n---\n")
    write(tmp_path, "docs/b-good.md", doc("good-b"))
    write(tmp_path, "docs/c-bad.catalog.json", "{nope")
    write(tmp_path, "docs/d-latin.md", b"---\nid: \xe9\n---\n")
    write(tmp_path, "docs/e-types.md", doc("typed", extra="title: [a]\n"))
    write(tmp_path, "docs/f-good.catalog.json", '{"annexes": [{"slug": "good-f"}]}')
    write(tmp_path, "docs/g-good.md", doc("good-g"))
    cat = load(tmp_path)
    assert ids(cat) == ["good-b", "good-f", "good-g"]
    assert [d.path for d in cat.errors] == [
        "docs/a-bad-yaml.md",
        "docs/c-bad.catalog.json",
        "docs/d-latin.md",
        "docs/e-types.md",
    ]


def test_diagnostic_json_form() -> None:
    assert Diagnostic("a.md", "bad", "error", 3).as_dict() == {
        "path": "a.md",
        "problem": "bad",
        "severity": "error",
        "line": 3,
    }
    assert "line" not in Diagnostic("a.md", "untyped", "warning").as_dict()


# --- roots, exclude, skipped directories -----------------------------------------------


def test_exclude_globs(tmp_path: Path) -> None:
    write(
        tmp_path, "kroute.toml", 'roots = ["docs"]\nexclude = ["docs/archive/**", "*.draft.md"]\n'
    )
    write(tmp_path, "docs/archive/old.md", doc("old"))
    write(tmp_path, "docs/archive/deep/older.md", "---\nid: [broken\n---\n")
    write(tmp_path, "docs/next.draft.md", doc("draft"))
    write(tmp_path, "docs/sub/later.draft.md", doc("draft2"))
    write(tmp_path, "docs/kept.md", doc("kept"))
    cat = reader.load(config.load(tmp_path / "kroute.toml"))
    assert ids(cat) == ["kept"] and cat.diagnostics == ()


def test_only_the_configured_roots_are_read(tmp_path: Path) -> None:
    write(tmp_path, "kroute.toml", 'roots = ["docs", ".cursor/rules", "missing", "one.md"]\n')
    write(tmp_path, "docs/in.md", doc("in-docs"))
    write(tmp_path, ".cursor/rules/r.mdc", "---\ndescription: r\n---\n")
    write(tmp_path, "one.md", doc("single-file-root"))
    write(tmp_path, "notes/out.md", doc("outside-roots"))
    write(tmp_path, "README.md", "# not under a root\n")
    write(tmp_path, "docsx/out.md", doc("docsx"))
    cat = reader.load(config.load(tmp_path / "kroute.toml"))
    assert sorted(ids(cat)) == ["in-docs", "r", "single-file-root"]
    assert cat.diagnostics == ()


def test_default_roots(tmp_path: Path) -> None:
    write(tmp_path, "kroute.toml", "")
    for root, name in [
        ("docs", "a.md"),
        (".claude/skills/s", "SKILL.md"),
        (".claude/rules", "b.md"),
        (".cursor/rules", "c.mdc"),
        (".github/instructions", "d.instructions.md"),
        ("src", "e.md"),
    ]:
        write(tmp_path, f"{root}/{name}", f"---\nid: {root.replace('/', '-')}\n---\n")
    cat = reader.load(config.load(tmp_path / "kroute.toml"))
    assert sorted(ids(cat)) == sorted(
        [".claude-rules", ".claude-skills-s", ".cursor-rules", ".github-instructions", "docs"]
    )


@pytest.mark.parametrize("skipped", sorted(SKIP_DIRS))
def test_skip_dirs(tmp_path: Path, skipped: str) -> None:
    write(tmp_path, f"docs/{skipped}/pkg/README.md", doc("vendored"))
    write(tmp_path, f"{skipped}/x.md", "---\nid: [broken\n---\n")
    write(tmp_path, "docs/real.md", doc("real"))
    cat = load(tmp_path)
    assert ids(cat) == ["real"] and cat.diagnostics == ()
    assert not walk.is_catalog_path(config.bare(tmp_path), f"docs/{skipped}/pkg/README.md")


# --- refresh ---------------------------------------------------------------------------


def test_refresh_rereads_a_changed_file(tmp_path: Path) -> None:
    write(tmp_path, "docs/a.md", doc("a", "Old title"))
    write(tmp_path, "docs/b.md", doc("b"))
    cfg = config.bare(tmp_path)
    before = reader.load(cfg)
    write(tmp_path, "docs/a.md", doc("a", "New title"))
    after = reader.refresh(cfg, before, ["docs/a.md"])
    assert {e.id: e.title for e in after.entries} == {"a": "New title", "b": "A title"}
    assert after == reader.load(cfg)


def test_refresh_only_rereads_what_it_is_told(tmp_path: Path) -> None:
    write(tmp_path, "docs/a.md", doc("a", "Old"))
    cfg = config.bare(tmp_path)
    before = reader.load(cfg)
    write(tmp_path, "docs/a.md", doc("a", "New"))
    assert reader.refresh(cfg, before, []) == before


def test_refresh_drops_a_deleted_file_and_adds_a_new_one(tmp_path: Path) -> None:
    write(tmp_path, "docs/a.md", doc("a"))
    write(tmp_path, "docs/b.md", doc("b"))
    cfg = config.bare(tmp_path)
    before = reader.load(cfg)
    (tmp_path / "docs" / "a.md").unlink()
    write(tmp_path, "docs/c.md", doc("c"))
    after = reader.refresh(cfg, before, ["docs/a.md", "./docs/c.md"])
    assert ids(after) == ["b", "c"]
    assert "docs/a.md" not in after.files
    assert after == reader.load(cfg)


def test_refresh_ignores_files_outside_the_catalog(tmp_path: Path) -> None:
    write(tmp_path, "kroute.toml", 'roots = ["docs"]\nexclude = ["docs/old/**"]\n')
    write(tmp_path, "docs/a.md", doc("a"))
    cfg = config.load(tmp_path / "kroute.toml")
    before = reader.load(cfg)
    write(tmp_path, "src/x.md", doc("x"))
    write(tmp_path, "docs/old/y.md", doc("y"))
    write(tmp_path, "docs/z.txt", "text")
    after = reader.refresh(cfg, before, ["src/x.md", "docs/old/y.md", "docs/z.txt"])
    assert ids(after) == ["a"]
    assert after.fingerprint == before.fingerprint


def test_refresh_keeps_last_good_entries_stale_when_a_file_breaks(tmp_path: Path) -> None:
    write(tmp_path, "docs/a.md", doc("a", "Good title"))
    write(tmp_path, "docs/b.md", doc("b"))
    cfg = config.bare(tmp_path)
    good = reader.load(cfg)
    assert good.stale == ()

    write(tmp_path, "docs/a.md", "---\nid: a\ntitle: [half typed\n---\n")
    broken = reader.refresh(cfg, good, ["docs/a.md"])
    assert {e.id: e.title for e in broken.entries} == {"a": "Good title", "b": "A title"}
    assert broken.stale == ("a",)
    assert broken.files["docs/a.md"].stale
    d = only(broken, "docs/a.md")
    assert d.severity == "error" and d.line is not None
    # a fresh load has no good version to fall back on
    assert ids(reader.load(cfg)) == ["b"]

    # still broken on the next save: the last good entries stay
    again = reader.refresh(cfg, broken, ["docs/a.md"])
    assert again.stale == ("a",) and ids(again) == ["a", "b"]

    write(tmp_path, "docs/a.md", doc("a", "Fixed title"))
    fixed = reader.refresh(cfg, again, ["docs/a.md"])
    assert fixed.stale == () and fixed.diagnostics == ()
    assert {e.id: e.title for e in fixed.entries}["a"] == "Fixed title"


def test_refresh_of_a_new_broken_file_is_just_an_error(tmp_path: Path) -> None:
    write(tmp_path, "docs/b.md", doc("b"))
    cfg = config.bare(tmp_path)
    before = reader.load(cfg)
    write(tmp_path, "docs/a.md", "---\nid: [\n---\n")
    after = reader.refresh(cfg, before, ["docs/a.md"])
    assert ids(after) == ["b"] and after.stale == ()
    assert only(after, "docs/a.md").severity == "error"


def test_refresh_resolves_duplicates_again(tmp_path: Path) -> None:
    write(tmp_path, "docs/a.md", doc("same", "A"))
    write(tmp_path, "docs/b.md", doc("same", "B"))
    cfg = config.bare(tmp_path)
    before = reader.load(cfg)
    assert len(before.errors) == 1
    write(tmp_path, "docs/b.md", doc("other", "B"))
    after = reader.refresh(cfg, before, ["docs/b.md"])
    assert ids(after) == ["same", "other"] and after.errors == ()


# --- fingerprint and determinism -------------------------------------------------------


def test_fingerprint_changes_with_an_entry_and_not_otherwise(tmp_path: Path) -> None:
    write(tmp_path, "docs/a.md", doc("a", "Title"))
    write(tmp_path, "docs/b.md", doc("b"))
    base = load(tmp_path).fingerprint
    assert len(base) == 16

    # a non-catalog file, an untyped (empty) file: no entry changes
    write(tmp_path, "docs/notes.txt", "scratch")
    write(tmp_path, "docs/empty.md", "<!-- no heading, no front matter, no text -->\n")
    assert load(tmp_path).fingerprint == base
    # the body is routed on (the lowest tier), so editing it changes the fingerprint
    write(tmp_path, "docs/a.md", doc("a", "Title").replace("Body text.", "Rewritten body."))
    assert load(tmp_path).fingerprint != base
    write(tmp_path, "docs/a.md", doc("a", "Title"))
    assert load(tmp_path).fingerprint == base

    write(tmp_path, "docs/a.md", doc("a", "Another title"))
    changed = load(tmp_path).fingerprint
    assert changed != base

    write(tmp_path, "docs/a.md", doc("a", "Title", "tags: [x]\n"))
    assert load(tmp_path).fingerprint not in (base, changed)

    write(tmp_path, "docs/a.md", doc("a", "Title"))
    assert load(tmp_path).fingerprint == base


def test_fingerprint_follows_entry_order() -> None:
    from router.catalog.entry import Entry

    a = Entry(id="a", kind="doc", path="a.md", file="a.md")
    b = Entry(id="b", kind="doc", path="b.md", file="b.md")
    assert diagnostic.file_digest([a, b]) == diagnostic.file_digest([a, b])
    assert diagnostic.file_digest([a, b]) != diagnostic.file_digest([b, a])
    assert diagnostic.file_digest([a]) != diagnostic.file_digest([a, b])
    assert diagnostic.file_digest([]) == 0


def test_two_loads_are_equal(every_format: Path) -> None:
    write(every_format, "docs/broken.md", "---\nid: [\n---\n")
    first, second = load(every_format), load(every_format)
    assert first == second
    assert first.fingerprint == second.fingerprint
    assert first.diagnostics == second.diagnostics


# --- the messy real-world catalog ------------------------------------------------------


def test_messy_catalog_loads_all_but_the_broken_file() -> None:
    cat = reader.load(config.load(MESSY / "kroute.toml"))
    assert [(d.path, d.line) for d in cat.errors] == [("docs/how-to/release.md", 4)]
    assert "YAML" in cat.errors[0].problem
    by_id = {e.id: e for e in cat.entries}
    assert sorted(by_id) == [
        "DEC-0001",
        "changelog",
        "frontend",
        "house-style",
        "python",
        "rust.instructions",
        "src-root",
        "typescript",
    ]
    assert by_id["python"].governs == ("**/*.py",)
    assert by_id["frontend"].governs == ("*.vue", "*.jsx")
    # an empty description: the summary is the first paragraph of the rule's body
    assert by_id["src-root"].governs == ("/src/**",)
    assert by_id["src-root"].summary.startswith("Everything under src/ is deployed")
    assert by_id["typescript"].governs == ("**/*.ts", "web/**/*.tsx")
    assert by_id["house-style"].always_apply is True
    assert by_id["rust.instructions"].governs == ("**/*.rs",)
    assert by_id["DEC-0001"].kind == "decision"
    assert by_id["DEC-0001"].governs == ("src/jobs/**", "migrations/")
    assert by_id["changelog"].kind == "skill"
    warnings = {(d.path, d.line) for d in cat.diagnostics if d.severity == "warning"}
    assert warnings == {
        (".cursor/rules/python.mdc", 3),
        (".cursor/rules/frontend.mdc", 3),
        (".cursor/rules/typescript.mdc", 4),
    }
    # docs/README.md, titled prose, is the front page of the root `docs`: not an entry
    assert "front page" in only(cat, "docs/README.md").problem


@pytest.mark.process
def test_kroute_check_on_the_messy_catalog(copy_tree: Callable[[Path], Path]) -> None:
    repo = copy_tree(MESSY)
    result = kroute("check", "--json", "--catalog", str(repo))
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["errors"] == 1
    assert report["entries"] == 8
    assert report["kinds"] == {"decision": 1, "instruction": 1, "rule": 5, "skill": 1}
    errors = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert errors == [
        {
            "path": "docs/how-to/release.md",
            "line": 4,
            "problem": errors[0]["problem"],
            "severity": "error",
        }
    ]

    # fixing the one file makes the check pass (warnings do not fail it)
    release = repo / "docs" / "how-to" / "release.md"
    release.write_text(
        release.read_text("utf-8").replace(
            "summary: [Three steps] tag, build, publish",
            'summary: "[Three steps] tag, build, publish"',
        ),
        encoding="utf-8",
    )
    fixed = kroute("check", "--json", "--catalog", str(repo))
    assert fixed.returncode == 0, fixed.stdout
    assert json.loads(fixed.stdout)["entries"] == 9


# --- the shared corpora ----------------------------------------------------------------


def test_headwater_corpus(corpus: Path) -> None:
    cat = load(corpus / "headwater")
    # 409 typed documents; the corpus README at the top is its front page, not an entry
    assert len(cat.entries) == 409
    assert all(e.path.startswith("docs/") for e in cat.entries)
    assert cat.errors == ()


def test_headwater_kinds_match_its_catalog(corpus: Path) -> None:
    root = corpus / "headwater"
    cat = reader.load(config.load(FIXTURES / "headwater" / "kroute.toml", root))
    assert cat.errors == ()
    rows = [json.loads(line) for line in (root / "catalog.jsonl").read_text("utf-8").splitlines()]
    by_path = {e.path: e for e in cat.entries}
    assert set(by_path) == {row["path"] for row in rows}
    mismatched = [
        (row["path"], row["kind"], by_path[row["path"]].kind)
        for row in rows
        if (by_path[row["path"]].kind, by_path[row["path"]].id) != (row["kind"], row["id"])
    ]
    assert mismatched == []


def test_skills_corpus(corpus: Path) -> None:
    cat = load(corpus / "skills")
    assert len(cat.entries) == 383  # the corpus README at the top is its front page
    assert cat.errors == ()
    kinds = Counter(e.kind for e in cat.entries)
    assert kinds == {"skill": 209, "rule": 91, "instruction": 83}


def test_demo_catalog() -> None:
    cat = reader.load(config.load(DEMO / "kroute.toml"))
    assert cat.errors == ()
    assert len(cat.entries) >= 40


def test_corpora_constant_is_the_fixture(corpus: Path) -> None:
    assert corpus == CORPORA


def test_missing_roots_are_reported_as_a_warning(tmp_path: Path) -> None:
    (tmp_path / "kroute.toml").write_text('roots = ["docs", "notes"]\n')
    loaded = reader.load(config.load(tmp_path / "kroute.toml"))
    assert loaded.entries == ()
    assert [d.severity for d in loaded.diagnostics] == ["warning"]
    assert "none of the catalog roots exists (docs, notes)" in loaded.diagnostics[0].problem


# --- decision records as real repositories keep them -------------------------------------

ADR = FIXTURES / "adr"


def test_plain_and_front_matter_records_read_as_a_person_would() -> None:
    cat = load(ADR)
    assert cat.errors == ()
    by_path = {e.path: e for e in cat.entries}
    nygard = by_path[
        "alphagov-govuk-infrastructure/docs/architecture/decisions/"
        "0008-use-external-secrets-for-secrets-storage.md"
    ]
    assert nygard.title == "8. Use external-secrets for secrets storage"
    assert (nygard.status, nygard.kind) == ("accepted", "decision")
    assert nygard.summary.startswith("Use external-secrets")
    assert dict(nygard.facets)["date"] == "2021-08-26"
    assert [s.heading for s in nygard.body][-3:] == ["Context", "Decision", "Consequences"]
    madr = by_path["JabRef-jabref/docs/decisions/0045-use-input-flag-always-for-input-files.md"]
    assert madr.title and madr.summary and not madr.summary.startswith("---")
    docusaurus = by_path["backstage-backstage/docs/architecture-decisions/adr013-use-node-fetch.md"]
    assert docusaurus.id == "adrs-adr013"  # the site key `id` is the id
    assert docusaurus.title.startswith("ADR013")
    # a template is listed as skipped, not read as a record
    skipped = [d for d in cat.diagnostics if d.severity == diagnostic.INFO]
    assert [d.path for d in skipped] == [
        "alphagov-govuk-infrastructure/docs/architecture/decisions/0000-TEMPLATE.md"
    ]


def test_superseded_by_link_resolves_to_the_successor_file() -> None:
    cat = load(ADR)
    old = next(e for e in cat.entries if e.path.endswith("ADR002-use-govuk-notify.md"))
    assert old.status == "superseded"
    assert old.superseded_by == ("alphagov-forms/ADR/ADR019-use-amazon-ses.md",)
    index = Index(cat.entries)
    assert index.successor(old.id) == "ADR019-use-amazon-ses"


def test_unquoted_colon_in_a_title_loads_with_a_warning() -> None:
    cat = load(FIXTURES / "frontmatter")
    (item,) = [e for e in cat.entries if e.path.startswith("adr003")]
    assert item.title == "ADR003: Avoid Default Exports and Prefer Named Exports"
    (warning,) = [d for d in cat.diagnostics if d.severity == "warning"]
    assert warning.line == 3 and "unquoted `: `" in warning.problem


def test_every_adr_of_the_ten_repositories_is_an_entry(corpus: Path) -> None:
    total, colons = 0, 0
    for repo in sorted(p for p in (corpus / "adr").iterdir() if p.is_dir()):
        cat = load(repo)
        assert cat.errors == (), repo.name
        records = [e for e in cat.entries if e.path.endswith(".md")]
        total += len(records)
        skipped = [d for d in cat.diagnostics if d.severity == diagnostic.INFO]
        assert all("template" in d.problem for d in skipped), repo.name
        colons += sum(1 for d in cat.diagnostics if "unquoted `: `" in d.problem)
    assert total == 444
    assert colons == 12  # the backstage titles holding `: `


# --- hostile files: never stall, crash or empty the index ------------------------------

HOSTILE = FIXTURES / "hostile"
DEADLINE = 5.0  # seconds; every hostile file loads in milliseconds, a hang fails the test


def hostile_repo(copy_tree: Callable[[Path], Path]) -> tuple[Path, Path]:
    """Return a copy of fixtures/hostile with what git cannot hold added: a FIFO
    (docs/fifo.md) and a symlink to itself (docs/loop.md); and the FIFO's path."""
    repo = copy_tree(HOSTILE)
    fifo = repo / "docs" / "fifo.md"
    os.mkfifo(fifo)
    (repo / "docs" / "loop.md").symlink_to("loop.md")
    return repo, fifo


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_in_the_catalog_is_skipped_with_a_warning(tmp_path: Path) -> None:  # 6
    write(tmp_path, "docs/good.md", doc("good"))
    fifo = tmp_path / "docs" / "f.md"
    os.mkfifo(fifo)
    cat = within(DEADLINE, lambda: load(tmp_path), [fifo])
    assert ids(cat) == ["good"]
    found = only(cat, "docs/f.md")
    assert (found.problem, found.severity) == ("not a regular file: skipped", "warning")
    # the daemon's refresh reads it the same way, instead of dropping it silently
    cfg = config.bare(tmp_path)
    after = within(DEADLINE, lambda: reader.refresh(cfg, cat, ["docs/f.md"]), [fifo])
    assert after.diagnostics == cat.diagnostics and ids(after) == ["good"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_read_regular_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:  # 6
    fifo = tmp_path / "p.md"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path):
        with pytest.raises(reader.NotRegularFileError):
            within(DEADLINE, partial(reader.read_regular, path), [fifo])
    big = write(tmp_path, "big.md", b"x" * 11)
    with pytest.raises(reader.FileTooLargeError) as caught:
        reader.read_regular(big, limit=10)
    assert caught.value.size == 11
    assert reader.read_regular(big, limit=11) == b"x" * 11


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_a_symlink_loop_is_an_error_on_that_file(tmp_path: Path) -> None:  # 7
    write(tmp_path, "docs/good.md", doc("good"))
    (tmp_path / "docs" / "loop.md").symlink_to("loop.md")
    (tmp_path / "docs" / "a.md").symlink_to("b.md")
    (tmp_path / "docs" / "b.md").symlink_to("a.md")
    cat = within(DEADLINE, lambda: load(tmp_path))
    assert ids(cat) == ["good"]
    for path in ("docs/a.md", "docs/b.md", "docs/loop.md"):
        found = only(cat, path)
        assert found.severity == "error" and "symbolic links" in found.problem
    after = reader.refresh(config.bare(tmp_path), cat, ["docs/loop.md", "docs/a.md"])
    assert after.diagnostics == cat.diagnostics and ids(after) == ["good"]


def test_the_alias_bomb_of_the_report_is_refused_without_expanding(tmp_path: Path) -> None:  # 5
    # frontmatter already refused it; this holds the whole load to the deadline (how fast it
    # is refused is a benchmark's business, not a test's)
    bomb = (HOSTILE / "docs" / "alias-bomb.md").read_text("utf-8")
    assert len(bomb) < 500 and bomb.count("*") == 72  # 9**8 targets once expanded
    write(tmp_path, "docs/bomb.md", bomb)
    # seven levels: 63 aliases, within MAX_ALIASES, for 4.8 million targets
    write(tmp_path, "docs/bomb7.md", bomb.replace("    - &i [*h" + ",*h" * 8 + "]\n", ""))
    write(tmp_path, "docs/good.md", doc("good"))
    cat = within(DEADLINE, lambda: load(tmp_path))
    assert ids(cat) == ["good"]
    assert "aliases beyond what a catalog needs" in only(cat, "docs/bomb.md").problem
    assert "aliases beyond what a catalog needs" in only(cat, "docs/bomb7.md").problem


def test_aliases_repeating_a_long_text_are_refused(tmp_path: Path) -> None:  # 5
    # 40 aliases of a 30,000-character value: 1.2 million characters from 30 KiB written
    long = "word " * 6000
    write(tmp_path, "docs/text.md", f"---\ns: &s '{long}'\ntags: [{', '.join(['*s'] * 40)}]\n---\n")
    cat = within(DEADLINE, lambda: load(tmp_path))
    assert cat.entries == ()
    assert "KiB of values" in only(cat, "docs/text.md").problem


def test_a_recursive_alias_is_an_error_and_the_rest_loads(tmp_path: Path) -> None:  # 7
    write(tmp_path, "docs/r.md", "---\nid: r\nrelations:\n  governs: &r [*r]\n---\n")
    write(tmp_path, "docs/m.md", "---\nid: m\nself: &m {me: *m}\n---\n")
    write(tmp_path, "docs/good.md", doc("good"))
    cat = within(DEADLINE, lambda: load(tmp_path))
    assert ids(cat) == ["good"]
    assert [d.path for d in cat.errors] == ["docs/m.md", "docs/r.md"]
    assert all("refers to a value that contains it" in d.problem for d in cat.errors)


def test_a_list_nested_a_thousand_deep_is_read_without_recursion(tmp_path: Path) -> None:  # 7
    deep = (HOSTILE / "docs" / "deep.catalog.json").read_text("utf-8")
    write(tmp_path, "docs/deep.catalog.json", deep)
    write(tmp_path, "docs/good.md", doc("good"))
    cat = within(DEADLINE, lambda: load(tmp_path))
    assert ids(cat) == ["deep", "good"] and cat.diagnostics == ()
    assert cat.entries[0].governs == ("src/deep/**",)


def test_an_entry_past_the_limits_is_cut_with_a_warning(tmp_path: Path) -> None:  # 5
    many = (HOSTILE / "docs" / "many-governs.md").read_text("utf-8")
    write(tmp_path, "docs/many.md", many)
    summary = "summary " * 2000
    write(tmp_path, "docs/long.md", doc("long", extra=f"summary: {summary}\n"))
    cat = within(DEADLINE, lambda: load(tmp_path))
    by_id = {e.id: e for e in cat.entries}
    assert by_id["many-governs"].governs == tuple(
        f"src/module{i}/**" for i in range(limit.MAX_GOVERNS)
    )
    assert len(by_id["long"].summary) == limit.MAX_TEXT_CHARS
    cut = only(cat, "docs/many.md")
    assert cut.severity == "warning"
    assert cut.problem == (
        "entry `many-governs` cut to the catalog limits: governs: 1000 items, "
        f"the first {limit.MAX_GOVERNS} kept"
    )
    assert f"summary: {len(summary.strip())} characters" in only(cat, "docs/long.md").problem
    assert cat.errors == ()


def test_a_front_matter_block_past_its_limit_is_an_error(tmp_path: Path) -> None:  # 5
    targets = "".join(f"    - src/m{i}/**\n" for i in range(6000))
    write(tmp_path, "docs/huge.md", f"---\nid: huge\nrelations:\n  governs:\n{targets}---\n")
    write(tmp_path, "docs/good.md", doc("good"))
    cat = within(DEADLINE, lambda: load(tmp_path))
    assert ids(cat) == ["good"]
    found = only(cat, "docs/huge.md")
    assert found.line == 1 and "over the 64 KiB limit" in found.problem


def test_governs_globs_no_route_could_match_are_dropped(tmp_path: Path) -> None:
    bad = (HOSTILE / "docs" / "bad-globs.md").read_text("utf-8")
    write(tmp_path, "docs/bad.md", bad)
    cat = within(DEADLINE, lambda: load(tmp_path))
    assert [e.governs for e in cat.entries] == [("src/kept/**",)]
    found = only(cat, "docs/bad.md")
    assert found.severity == "warning"
    assert "governs: 2 targets that are no usable glob dropped" in found.problem
    index = Index(cat.entries)  # a route over it neither raises nor backtracks for minutes
    deep = "/".join(["a"] * 40) + "/y.py"
    assert within(DEADLINE, lambda: index.governing(deep)) == []


def kroute_within(seconds: float, fifos: Iterable[Path], *args: str) -> CompletedProcess[str]:
    """Run the real `kroute` console script, as testing.process.kroute does, failing the test
    when it runs longer than `seconds` (and freeing `fifos`' blocked readers then)."""
    try:
        return subprocess.run(
            [str(Path(sys.executable).with_name("kroute")), *args],
            capture_output=True,
            text=True,
            timeout=seconds,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"kroute {' '.join(args)} still running after {seconds} s")
    finally:
        for fifo in fifos:
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@pytest.mark.process
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_kroute_check_on_every_hostile_file(copy_tree: Callable[[Path], Path]) -> None:  # 5-7
    repo, fifo = hostile_repo(copy_tree)
    result = kroute_within(10, [fifo], "check", "--json", "--catalog", str(repo))
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""  # no traceback, no crash report
    report = json.loads(result.stdout)
    found = {d["path"]: (d["severity"], d["problem"]) for d in report["diagnostics"]}
    assert sorted(found) == [
        "docs/alias-bomb.md",
        "docs/bad-globs.md",
        "docs/fifo.md",
        "docs/loop.md",
        "docs/many-governs.md",
        "docs/recursive-alias.md",
    ]
    assert found["docs/fifo.md"] == ("warning", "not a regular file: skipped")
    assert found["docs/loop.md"][0] == "error"
    assert "aliases beyond" in found["docs/alias-bomb.md"][1]
    assert "refers to a value that contains it" in found["docs/recursive-alias.md"][1]
    assert report["entries"] == 4  # good, deep, bad-globs and many-governs, cut
    assert report["errors"] == 3

    # a route in this process, focused on a FIFO, reads the focus as empty (so, as for any
    # focus whose text is unknown, the focus filter keeps no entry for this task)
    focus = repo / "src" / "p.py"
    focus.parent.mkdir()
    os.mkfifo(focus)
    args = ("route", "--no-daemon", "--catalog", str(repo), "--focus", "src/p.py")
    routed = kroute_within(10, [focus], *args, "retry a failed webhook delivery")
    assert routed.returncode == 0 and routed.stderr == "", routed.stderr

    # the daemon starts over the same catalog and serves the route
    started = kroute_within(20, [fifo, focus], "start", "--catalog", str(repo))
    assert started.returncode == 0 and started.stderr == "", started.stderr
    served = kroute_within(10, [fifo, focus], *args[:1], *args[2:], "retry a webhook")
    assert served.returncode == 0 and served.stderr == "", served.stderr
    assert kroute_within(10, [], "stop", "--catalog", str(repo)).returncode == 0


def test_a_file_is_racy_within_its_file_systems_timestamp_tick_before_the_reads() -> None:
    began = 1_800_000_000_123_456_789
    fine = began - reader.FINE_RACY_NS  # a fraction of a second: a fine-grained file system
    assert reader.racy(fine, began) and reader.racy(began + 1, began)
    assert not reader.racy(fine - 1, began)
    # whole seconds: the file system may keep no finer, and FAT keeps 2 s
    whole = (began - reader.FINE_RACY_NS - 1) // 1_000_000_000 * 1_000_000_000
    assert reader.racy(whole, began)
    assert not reader.racy(whole - reader.COARSE_RACY_NS, began)


def test_a_restart_reads_again_only_the_files_modified_just_before_its_reads(
    copy_tree: Callable[[Path], Path],
) -> None:
    repo = copy_tree(DEMO)
    cfg = config.load(repo / "kroute.toml")
    files = sorted((repo / "docs").rglob("*.md"))
    began = time.time_ns()

    def fine(ns: int) -> int:  # a time with a fraction of a second, as fine file systems keep
        return ns - 1 if ns % 1_000_000_000 == 0 else ns

    # a second before the reads (a fresh clone, then a start): trusted on a fine file system
    for each in files:
        os.utime(each, ns=(fine(began - 1_000_000_000), fine(began - 1_000_000_000)))
    os.utime(files[0], ns=(fine(began - 50_000_000), fine(began - 50_000_000)))  # racy
    cat = reader.load(cfg)
    found, _ = reader.changed_since(cfg, cat, began)
    assert found == [files[0].relative_to(repo).as_posix()]
    assert reader.changed_since(cfg, cat, None)[0] == []
