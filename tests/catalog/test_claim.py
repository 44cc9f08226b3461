"""Ids of their own and skill folders as one entry, from real files (router.catalog.claim,
DESIGN 4.1): stems that collide are qualified by their paths, authors' ids that repeat stay
diagnostics, a skill folder's pages are sections of its entry, and the engine's updates
settle them as a fresh load does."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from router import __version__
from router.base.errors import RequestError
from router.catalog import config, reader
from router.catalog.reader import Catalog
from router.ranking import index
from router.route import whynot
from router.runtime import intake, snapshot
from router.runtime.engine import Engine
from testing.disk import write
from testing.process import kroute


def page(title: str, text: str = "Body text.") -> str:
    return f"# {title}\n\n## Usage\n\n{text}\n"


def skill(name: str | None, description: str) -> str:
    named = f"name: {name}\n" if name else ""
    return f"---\n{named}description: {description}\n---\n\n# {name or 'Skill'}\n\nSteps.\n"


def load(root: Path) -> Catalog:
    return reader.load(config.bare(root))


def ids(cat: Catalog) -> dict[str, str]:
    return {e.path: e.id for e in cat.entries}


def fresh_entries(root: Path) -> list[object]:
    return list(Engine(config.bare(root), load(root)).index.entries())


# --- ids --------------------------------------------------------------------------------


def test_stems_that_collide_get_the_shortest_path_end_that_tells_them_apart(
    tmp_path: Path,
) -> None:
    write(tmp_path, "book-a/intro.md", page("Book A"))
    write(tmp_path, "book-b/intro.md", page("Book B"))
    write(tmp_path, "x/one/guide/setup.md", page("One"))
    write(tmp_path, "y/one/guide/setup.md", page("Two"))
    write(tmp_path, "y/other.md", page("Other"))
    cat = load(tmp_path)
    assert ids(cat) == {
        "book-a/intro.md": "book-a/intro",
        "book-b/intro.md": "book-b/intro",
        "x/one/guide/setup.md": "x/one/guide/setup",
        "y/one/guide/setup.md": "y/one/guide/setup",
        "y/other.md": "other",
    }
    assert not cat.diagnostics
    assert [e.stem for e in cat.entries] == ["intro", "intro", "setup", "setup", "other"]
    assert load(tmp_path).entries == cat.entries


def test_an_authors_id_keeps_it_and_the_stem_beside_it_is_qualified(tmp_path: Path) -> None:
    write(tmp_path, "b/guide.md", page("Stem"))
    write(tmp_path, "a/written.md", "---\nid: guide\ntitle: Written\n---\n\nText.\n")
    cat = load(tmp_path)
    assert ids(cat) == {"a/written.md": "guide", "b/guide.md": "b/guide"}
    assert not cat.errors


def test_an_authors_id_that_repeats_is_still_an_error_and_the_first_keeps_it(
    tmp_path: Path,
) -> None:
    write(tmp_path, "b/two.md", "---\nid: same\ntitle: Two\n---\n\nText.\n")
    write(tmp_path, "a/one.md", "---\nid: same\ntitle: One\n---\n\nText.\n")
    cat = load(tmp_path)
    assert ids(cat) == {"a/one.md": "same"}
    assert [d.path for d in cat.errors] == ["b/two.md"]
    assert "a/one.md" in cat.errors[0].problem


def test_files_whose_paths_differ_only_by_extension_take_their_paths(tmp_path: Path) -> None:
    write(tmp_path, "rules/py.md", page("Python doc"))
    write(tmp_path, "rules/py.mdc", "---\ndescription: Python rule\nglobs: '*.py'\n---\n\nX.\n")
    assert ids(load(tmp_path)) == {"rules/py.md": "rules/py.md", "rules/py.mdc": "rules/py.mdc"}


def test_the_index_finds_a_qualified_entry_by_its_bare_stem_when_one_has_it(
    tmp_path: Path,
) -> None:
    write(tmp_path, "a/intro.md", page("A"))
    write(tmp_path, "b/intro.md", page("B"))
    write(tmp_path, "c/notes/setup.md", page("Setup"))
    write(tmp_path, "c/setup.md", "---\nid: installing\ntitle: Installing\n---\n\nText.\n")
    write(tmp_path, "d/installing.md", page("Installing again"))
    found = index.Index(load(tmp_path).entries)
    assert found.get("a/intro") is not None and found.get("intro") is None
    assert [e.id for e in found.named("intro")] == ["a/intro", "b/intro"]
    paths = {ident: found.get(ident) for ident in ("setup", "installing", "d/installing")}
    assert {ident: e and e.path for ident, e in paths.items()} == {
        "setup": "c/notes/setup.md",
        "installing": "c/setup.md",
        "d/installing": "d/installing.md",
    }


@pytest.mark.process
def test_why_not_takes_a_bare_stem_and_names_the_candidates_of_an_ambiguous_one(
    tmp_path: Path,
) -> None:
    write(tmp_path, "a/intro.md", page("Alpha walrus"))
    write(tmp_path, "b/intro.md", page("Beta walrus"))
    write(tmp_path, "c/only.md", page("Only walrus"))
    found = index.Index(load(tmp_path).entries)
    assert whynot.find(found, "a/intro").path == "a/intro.md"
    assert whynot.find(found, "only").path == "c/only.md"
    with pytest.raises(RequestError) as raised:
        whynot.find(found, "intro")
    assert "`a/intro`" in str(raised.value) and "`b/intro`" in str(raised.value)
    assert str(raised.value).endswith("Name one by its id.")
    shown = kroute("why-not", "--catalog", str(tmp_path), "--no-daemon", "intro", "walrus")
    assert shown.returncode == 1
    assert "Error: `intro` is the stem of 2 entries (`a/intro`, `b/intro`)" in shown.stderr
    named = kroute("why-not", "--catalog", str(tmp_path), "--no-daemon", "b/intro", "walrus")
    assert named.returncode == 0, named.stderr
    assert named.stdout.startswith("b/intro (b/intro.md)")


# --- skill folders ----------------------------------------------------------------------


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    write(tmp_path, "skills/pdf/SKILL.md", skill("pdf", "Fill and merge PDF forms"))
    write(tmp_path, "skills/pdf/references/forms.md", page("Form fields", "Checkbox quokka."))
    write(tmp_path, "skills/pdf/references/deep/ocr.md", page("OCR", "Scanned pages."))
    write(tmp_path, "skills/pdf/README.md", page("About the skill"))
    write(tmp_path, "skills/pdf/split/SKILL.md", skill("pdf-split", "Split a PDF"))
    write(tmp_path, "skills/pdf/split/references/pages.md", page("Page ranges", "Zebu."))
    write(tmp_path, "docs/other.md", page("Other"))
    return tmp_path


def test_a_skill_folder_is_one_entry_its_pages_sections_naming_them(skills: Path) -> None:
    cat = load(skills)
    assert ids(cat) == {
        "docs/other.md": "other",
        "skills/pdf/SKILL.md": "pdf",
        "skills/pdf/split/SKILL.md": "pdf-split",
    }
    assert cat.pages == 4
    pdf = next(e for e in cat.entries if e.id == "pdf")
    pages = [s.page for s in pdf.body]
    assert pages == [
        "",
        *("README.md", "README.md"),
        *("references/deep/ocr.md", "references/deep/ocr.md"),
        *("references/forms.md", "references/forms.md"),
    ]
    usage = next(s for s in pdf.body if s.page == "references/forms.md" and s.heading == "Usage")
    assert usage.label == "references/forms.md: Usage"
    nested = next(e for e in cat.entries if e.id == "pdf-split")
    assert {s.page for s in nested.body} == {"", "references/pages.md"}
    assert not any("Zebu" in s.text for s in pdf.body)


@pytest.mark.process
def test_evidence_names_the_page_a_term_reached(skills: Path) -> None:
    settings = config.bare(skills)
    engine = Engine(settings, load(skills))
    ask = intake.why_not({"entry": "pdf", "task": "checkbox quokka"}, settings)
    answer = engine.why_not(ask)
    fields = [h["field"] for h in answer["holds"]]
    assert "body (references/forms.md: Usage)" in fields, answer
    shown = kroute("route", "--catalog", str(skills), "--no-daemon", "checkbox quokka fields")
    assert shown.returncode == 0, shown.stderr
    assert "skills/pdf/SKILL.md" in shown.stdout and "references/forms.md" in shown.stdout


def test_a_skill_without_front_matter_leaves_its_pages_their_own_entries(tmp_path: Path) -> None:
    write(tmp_path, "skills/raw/SKILL.md", "# Raw\n\nNo front matter.\n")
    write(tmp_path, "skills/raw/guide.md", page("Guide"))
    cat = load(tmp_path)
    assert ids(cat) == {"skills/raw/guide.md": "guide"}
    assert cat.pages == 0


def test_a_rule_merges_into_a_skill_named_by_its_folder(tmp_path: Path) -> None:
    write(tmp_path, ".claude/skills/pdf/SKILL.md", skill(None, "Fill PDF forms"))
    write(tmp_path, ".claude/skills/pdf/references/forms.md", page("Forms"))
    rules = {"skills": {"pdf": {"promptTriggers": {"keywords": ["acroform"]}}}}
    write(tmp_path, ".claude/skills/skill-rules.json", json.dumps(rules))
    cat = load(tmp_path)
    [pdf] = cat.entries
    assert (pdf.id, pdf.path, pdf.keywords) == ("pdf", ".claude/skills/pdf/SKILL.md", ("acroform",))
    assert any(s.page == "references/forms.md" for s in pdf.body)


# --- updates ----------------------------------------------------------------------------


def engine_of(root: Path) -> Engine:
    return Engine(config.bare(root), load(root))


def same_as_fresh(engine: Engine, root: Path) -> None:
    assert list(engine.index.entries()) == fresh_entries(root)
    assert engine.catalog.entries == load(root).entries
    assert engine.catalog.diagnostics == load(root).diagnostics


def test_a_new_stem_qualifies_the_one_it_collides_with_and_leaving_restores_it(
    tmp_path: Path,
) -> None:
    write(tmp_path, "a/intro.md", page("A"))
    engine = engine_of(tmp_path)
    assert engine.index.get("intro") is not None
    write(tmp_path, "b/intro.md", page("B"))
    engine.update(["b/intro.md"])
    assert sorted(e.id for e in engine.index.entries()) == ["a/intro", "b/intro"]
    same_as_fresh(engine, tmp_path)
    (tmp_path / "b" / "intro.md").unlink()
    engine.update(["b/intro.md"])
    assert [e.id for e in engine.index.entries()] == ["intro"]
    same_as_fresh(engine, tmp_path)


def test_an_edited_page_updates_its_skill_and_a_new_skill_takes_its_pages(skills: Path) -> None:
    engine = engine_of(skills)
    write(skills, "skills/pdf/references/forms.md", page("Form fields", "Radio wombat."))
    engine.update(["skills/pdf/references/forms.md"])
    pdf = engine.index.get("pdf")
    assert pdf is not None and any("wombat" in s.text for s in pdf.body)
    same_as_fresh(engine, skills)
    write(skills, "skills/pdf/references/deep/SKILL.md", skill("ocr", "Read scanned PDFs"))
    engine.update(["skills/pdf/references/deep/SKILL.md"])
    ocr, pdf = engine.index.get("ocr"), engine.index.get("pdf")
    assert ocr is not None and pdf is not None
    assert any(s.page == "ocr.md" for s in ocr.body)
    assert not any("ocr" in s.page for s in pdf.body)
    same_as_fresh(engine, skills)
    (skills / "skills/pdf/SKILL.md").unlink()
    engine.update(["skills/pdf/SKILL.md"])
    assert engine.index.get("forms") is not None and engine.index.get("pdf") is None
    same_as_fresh(engine, skills)


def test_a_page_that_becomes_its_own_entry_again_competes_for_its_stem(skills: Path) -> None:
    write(skills, "docs/forms.md", page("Forms elsewhere"))
    engine = engine_of(skills)
    assert engine.index.get("forms") is not None
    (skills / "skills/pdf/SKILL.md").write_text("# Raw\n\nNo front matter now.\n")
    engine.update(["skills/pdf/SKILL.md"])
    assert [e.id for e in engine.index.named("forms")] == ["docs/forms", "references/forms"]
    same_as_fresh(engine, skills)


# --- the shared corpora -----------------------------------------------------------------

# entries and skill pages of each corpus read with `--catalog` alone
CORPUS_COUNTS = {
    "adr": (444, 0),
    "dockerdocs": (654, 0),
    "goproposals": (125, 0),
    "keps": (444, 0),
    "peer-azure": (34, 588),
    "peer-svelte": (8, 29),
    "skills": (383, 0),
}


@pytest.mark.parametrize("name", sorted(CORPUS_COUNTS))
def test_every_markdown_file_of_a_corpus_is_an_entry_a_page_or_skipped(
    corpus: Path, name: str
) -> None:
    cat = load(corpus / name)
    assert cat.errors == ()
    assert (len(cat.entries), cat.pages) == CORPUS_COUNTS[name]
    ids_ = [e.id for e in cat.entries]
    assert len(ids_) == len(set(ids_))
    entries = {e.file for e in cat.entries}
    named = {d.path for d in cat.diagnostics}
    unread = [
        path
        for path in cat.files
        if path.endswith(".md")
        and path not in entries
        and path not in cat.settled.owners
        and path not in named
    ]
    assert unread == []


def test_a_snapshot_keeps_the_pages_of_a_skills_sections(skills: Path, tmp_path: Path) -> None:
    settings = config.bare(skills)
    path = tmp_path / "snapshot.pickle"
    assert snapshot.save(Engine.load(settings), path, time.time_ns()) > 0
    restored = snapshot.restore(settings, path, __version__)
    assert restored is not None
    pdf = restored.engine.index.get("pdf")
    assert pdf is not None and pdf == Engine.load(settings).index.get("pdf")
    assert "references/forms.md" in {s.page for s in pdf.body}


# --- an update settles what a fresh load settles ------------------------------------------

FOLDERS = ("docs", "docs/a", "skills/pdf", "skills/pdf/references", "skills/pdf/inner", "tools")
STEMS = ("intro", "README", "setup")
OPS = st.tuples(
    st.sampled_from(("write", "delete", "skill", "unskill", "unnamed")),
    st.sampled_from(FOLDERS),
    st.sampled_from(STEMS),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(OPS, min_size=1, max_size=10))
def test_a_refresh_settles_ids_and_skill_folders_as_a_fresh_load(
    ops: list[tuple[str, str, str]],
) -> None:
    # colliding stems, skill folders appearing and going (and nested), pages coming and
    # going: each refresh of one changed file, from the previous settlement, equals a load
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cat = load(root)
        for number, (op, folder, stem) in enumerate(ops):
            relpath = (
                f"{folder}/SKILL.md"
                if op in ("skill", "unskill", "unnamed")
                else f"{folder}/{stem}.md"
            )
            target = root / relpath
            if op in ("delete", "unskill"):
                target.unlink(missing_ok=True)
            elif op == "write":
                write(root, relpath, page(f"{stem} {number}", f"text {number} of {folder}"))
            else:
                # a SKILL.md without a name takes its folder's, one without front matter none
                text = skill(None, f"skill {number}") if op == "skill" else page("no front")
                write(root, relpath, text)
            cfg = config.bare(root)
            cat = reader.refresh(cfg, cat, [relpath])
            fresh = load(root)
            assert cat.settled.entries == fresh.settled.entries
            assert sorted(cat.settled.problems, key=repr) == sorted(
                fresh.settled.problems, key=repr
            )
            assert cat.pages == fresh.pages
