"""Text, JSON and explain forms of a route (DESIGN 7)."""

from __future__ import annotations

import dataclasses
import unicodedata

from router.catalog.entry import Entry
from router.catalog.taxonomy import Taxonomy
from router.ranking.index import Index
from router.route import assembly, contract, render

EM = "\u2014"


def doc(ident: str, **fields: object) -> Entry:
    path = f"docs/{ident}.md"
    return Entry(id=ident, kind="decision", path=path, file=path, **fields)  # type: ignore[arg-type]


CATALOG = [
    doc(
        "a",
        title="Edge throttling \u2014 why",
        summary="why throttling happens at the edge \u2014 not per service",
    ),
    doc("b", summary="throttling at the edge for draft tenants", status="draft"),
    doc("c", summary="edge throttling", warrant="asserted", superseded_by=("a",)),
    doc("d", summary="edge throttling budget", governs=("src/edge.py",)),
    *(doc(f"f{i}", summary=f"filler {i}") for i in range(6)),
]


def answer(task: str, **request: object) -> contract.Route:
    return assembly.assemble(Index(CATALOG), Taxonomy(), contract.Request(task=task, **request))  # type: ignore[arg-type]


def test_every_pointer_line_has_one_em_dash_and_one_evidence_line_under_it() -> None:
    report = render.text_report(answer("edge throttling in src/edge.py", budget=2))
    lines = report.splitlines()
    pointer_lines = [i for i, line in enumerate(lines) if EM in line]
    assert len(pointer_lines) == 2  # one anchored, then one ranked slot left of the budget
    for i in pointer_lines:
        assert lines[i].startswith("  ") and not lines[i].startswith("   ")
        assert lines[i].count(EM) == 1
        assert lines[i + 1].startswith("    ") and EM not in lines[i + 1]
        assert i + 2 == len(lines) or EM in lines[i + 2] or lines[i + 2].startswith("  withheld")
    assert lines[-1] == "  withheld 2 more"


def test_pointer_line_format_and_markers() -> None:
    line = render.pointer_line(CATALOG[0])
    assert (
        line
        == f"  docs/a.md (Edge throttling - why) {EM} why throttling happens at the edge - not per service"
    )
    assert render.pointer_line(CATALOG[1]).endswith(" [unreviewed: draft]")
    assert render.pointer_line(CATALOG[2], "a").endswith(
        " [unreviewed: asserted] [superseded by a]"
    )
    untitled = render.pointer_line(CATALOG[3])
    assert untitled == f"  docs/d.md {EM} edge throttling budget"


def test_evidence_lines() -> None:
    assert (
        render.evidence_line({"by": "anchor", "anchors": ["src/a.py", "src/b.py"]})
        == "    governs src/a.py, src/b.py"
    )
    assert render.evidence_line({"by": "succession", "from": "X-1"}) == "    successor of X-1"
    terms = {"by": "terms", "terms": ["edge", "throttling"], "field": "summary", "rank": 2, "of": 7}
    assert render.evidence_line(terms) == "    matched edge, throttling in summary, rank 2 of 7"


def test_color_dims_only_evidence_lines() -> None:
    report = render.text_report(answer("edge throttling"), color=True)
    for line in report.splitlines():
        if EM in line:
            assert "\x1b[" not in line
        elif line.strip().startswith("\x1b[2m"):
            assert line.endswith("\x1b[0m")
    assert "\x1b[" not in render.text_report(answer("edge throttling"))


def test_silence_is_one_sentence_line() -> None:
    report = render.text_report(answer("kubernetes helm"))
    assert report == (
        "  No document covers enough of what is specific in the task."
        " No entry holds `kubernetes`, `helm`."
    )


def test_json_pointer_members_carry_no_score() -> None:
    doc_ = render.route_json(
        answer("edge throttling"), version="1", fingerprint="f", entries=10, stale=0
    )
    assert doc_["schema"] == "kroute.route/1"
    assert doc_["status"] == "routed"
    assert doc_["silence"] is None
    for pointer in doc_["pointers"]:
        assert set(pointer) <= {
            "id",
            "kind",
            "purpose",
            "title",
            "path",
            "summary",
            "unwarranted",
            "superseded_by",
            "evidence",
        }
        assert not {"score", "confidence"} & set(pointer["evidence"])
    silent = render.route_json(answer("of the"), version="1", fingerprint="f", entries=10, stale=0)
    assert silent["silence"] == {
        "reason": "no_terms",
        "says": "The task carries no term to route on.",
    }
    assert silent["status"] == "no_match"


def test_rounded_reports_two_decimals_and_whole_numbers_as_integers() -> None:
    assert render.rounded(146.0) == 146
    assert isinstance(render.rounded(146.0), int)
    assert render.rounded(10.6666) == 10.67


HOSTILE = "a\x1b[31mb\x1b]0;title\x07c\x1b[2Jd\x08e\u200bf\u200dg\u2060h\u202ei\x9bj\nk\tl \u2014 m"
# What flattening leaves of it: controls and format characters gone (an escape sequence's
# printable rest is inert text), line breaks and tabs as spaces, the em dash a plain dash.
FLAT_HOSTILE = "a[31mb]0;titlec[2Jdefghij k l - m"


def controls(text: str) -> list[str]:
    """Return the control and format characters of `text` (Unicode Cc and Cf)."""
    return [c for c in text if unicodedata.category(c) in ("Cc", "Cf")]


def test_pointer_line_strips_controls_from_every_field() -> None:  # defect 1
    entry = Entry(
        id="x",
        kind="decision",
        path=HOSTILE,
        file="docs/x.md",
        title=HOSTILE,
        summary=HOSTILE,
        warrant=HOSTILE,
    )
    line = render.pointer_line(entry, superseded_by=HOSTILE)
    assert controls(line) == []
    assert line.count(EM) == 1  # the separator; each field's em dash became "-"
    assert line == (
        f"  {FLAT_HOSTILE} ({FLAT_HOSTILE}) {EM} {FLAT_HOSTILE}"
        f" [unreviewed: {FLAT_HOSTILE}] [superseded by {FLAT_HOSTILE}]"
    )


def test_evidence_line_strips_controls_from_terms_fields_and_anchors() -> None:  # defect 1
    lines = [
        render.evidence_line({"by": "anchor", "anchors": [HOSTILE]}),
        render.evidence_line({"by": "succession", "from": HOSTILE}),
        render.evidence_line(
            {
                "by": "terms",
                "fields": [{"field": HOSTILE, "terms": [HOSTILE]}],
                "rank": 1,
                "of": 2,
                "anchors": [HOSTILE],
            }
        ),
    ]
    for line in lines:
        assert controls(line) == [] and EM not in line and "\n" not in line
        assert line.startswith("    ") and not line.startswith("     ")


def test_silence_sentence_strips_controls_from_lacking_words() -> None:  # defect 1
    silent = answer("kubernetes helm")
    hostile = dataclasses.replace(silent, lacking=("\x1b[2Jhelm\u202e", "a\nb \u2014 c"))
    sentence = render.silence_sentence(hostile)
    assert controls(sentence) == [] and EM not in sentence
    assert sentence.endswith("No entry holds `[2Jhelm`, `a b - c`.")
    assert render.text_report(hostile) == "  " + sentence


def test_a_field_flattened_to_nothing_leaves_no_gap() -> None:  # defect 1
    bare = Entry(id="z", kind="decision", path="\u200b", file="z.md", title="\x1b", summary="s")
    assert render.pointer_line(bare) == f"  {EM} s"


def test_ordinary_text_is_unchanged_by_the_flattening() -> None:  # defect 1
    entry = doc("o", title="Café — Über", summary="tabs\tand\nnewlines  collapse")
    assert (
        render.pointer_line(entry) == f"  docs/o.md (Café - Über) {EM} tabs and newlines collapse"
    )


def test_fit_shortens_long_parts_before_it_drops_a_pointer() -> None:
    pointer = render.PointerLines("docs/a.md (A)", "s" * 500, "", "matched a in summary")
    report = render.Report((pointer, render.Line("withheld 1 more", "  ")))
    whole = report.text()
    assert whole == "\n".join(
        [f"  docs/a.md (A) {EM} {'s' * 500}", "    matched a in summary", "  withheld 1 more"]
    )
    assert render.fit(report, len(whole), len) == whole  # it fits: whole
    fitted = render.fit(report, 400, len)
    first, evidence, withheld = fitted.split("\n")
    assert first.endswith(render.ELLIPSIS) and len(first) < len(whole.split("\n")[0])
    assert (evidence, withheld) == ("    matched a in summary", "  withheld 1 more")
    cut = render.fit(report, 60, len)
    assert cut == render.CUT_NOTE  # not even one pointer with its evidence fits


def test_the_report_of_a_route_is_its_text_report_and_fits_it_whole() -> None:
    route = answer("edge throttling in src/edge.py", budget=2)
    report = render.report(route)
    assert report.pointed
    assert report.text() == render.text_report(route)
    assert render.fit(report, 10_000, len) == render.text_report(route)
    shown = render.report(route, already_shown=3).text()
    assert shown == render.text_report(route) + "\n  3 more already shown in this session"
    silent = answer("kubernetes helm")
    assert not render.report(silent).pointed
    assert render.report(silent).text() == render.text_report(silent)
