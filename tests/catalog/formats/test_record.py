"""Reading decision records as real repositories write them (router.catalog.formats.record).

The files under fixtures/adr are copied verbatim from ten public repositories (see
fixtures/adr/LICENSE.md); the last test reads the whole shared corpus when it is present.
"""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from router.catalog.formats.record import (
    SUMMARY_MAX_CHARS,
    Record,
    is_index_page,
    is_template,
    plain,
    read,
    status_word,
    title_terms,
)
from testing.paths import CORPORA, FIXTURES

ADR = FIXTURES / "adr"
GOVUK_INFRA = "alphagov-govuk-infrastructure/docs/architecture/decisions"
CLOUD_PLATFORM = "ministryofjustice-cloud-platform/architecture-decision-record"
MODERNISATION = "ministryofjustice-modernisation-platform/architecture-decision-record"
GUARDIAN = "guardian-dotcom-rendering/dotcom-rendering/docs/architecture"
TNA = "nationalarchives-tdr-dev-documentation/architecture-decision-records"


def split_front_matter(text: str) -> tuple[str | None, str]:
    """Return a file's front-matter block (None without one) and its body: a simple split on
    the `---` fences, as the catalog's own reader is not under test here."""
    lines = text.removeprefix("\ufeff").split("\n")
    if lines[0].strip() == "---":
        for i, line in enumerate(lines[1:], start=1):
            if line.strip() in ("---", "..."):
                return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :])
    return None, text


def fixture(relative: str) -> Record:
    return read(split_front_matter((ADR / relative).read_text("utf-8"))[1])


# --- real records, one per layout -------------------------------------------------------------

# path, title, status, date, supersedes, superseded_by, how the summary starts
RECORDS = [
    (  # adr-tools/Nygard, `<!-- vale -->` lint comments
        f"{GOVUK_INFRA}/0008-use-external-secrets-for-secrets-storage.md",
        "8. Use external-secrets for secrets storage", "accepted", "2021-08-26", (), (),
        "Use external-secrets.",
    ),
    (  # emoji status, superseded with a numbered link text; the decision is "What's proposed"
        f"{CLOUD_PLATFORM}/021-Multi-cluster.md",
        "21. Multi-cluster", "superseded", "2021-05-11", (), ("036-multi-cluster.md",),
        "We host user apps across more than one Kubernetes cluster.",
    ),
    (  # "⌛️ Superseded [0019](...)": no "by"
        f"{MODERNISATION}/0004-use-bash-node-python-as-core-languages.md",
        "4. Use bash, nodejs, and python as core languages", "superseded", "2020-11-19",
        (), ("0019-use-bash-go-as-core-languages.md",),
        "We have decided to use bash, nodejs, and python as our core languages",
    ),
    (  # lightweight Nygard: unnumbered title, Status section at the end
        f"{GUARDIAN}/001-dotcom-rendering.md",
        "Frontend rendering layer as a service", "approved", "", (), (),
        "We will build an entirely new rendering layer that runs outside the existing frontend",
    ),
    (  # "Superseded by" ending its line, the link in the next paragraph
        f"{GUARDIAN}/historic-adrs/multiple-sites.md",
        "Multiple sites", "superseded", "", (), ("007-multiple-sites-revisited.md",),
        "We will allow teams to build their own websites under the sites/ directory.",
    ),
    (  # `**Date:**`, no Status section; the relation is a sentence under the title
        f"{TNA}/0007-s3-user-access-to-objects.md",
        "7. Restricting User Access To S3 Objects", "", "2020-04-01", (),
        ("0022-cloudfront-upload-proxy.md",),
        "Decided to go with AWS Cognito, with Keycloak as an OpenId authentication provider",
    ),
    (  # MADR after Jekyll front matter; the relation is in a `> [!NOTE]` alert
        "JabRef-jabref/docs/decisions/0045-use-input-flag-always-for-input-files.md",
        "Use --input Flag Consistently for Reading Input Files", "", "", (),
        ("0057-allow-positional-input-file-argument.md",),
        'Chosen option: "Adopt a consistent syntax (--input) for reading input files',
    ),
    (  # Docusaurus: the title is in the front matter; `:::note` admonition, `./` link
        "backstage-backstage/docs/architecture-decisions/adr013-use-node-fetch.md",
        "", "", "", (), ("adr014-use-fetch.md",),
        "Backend (node) packages should use the node-fetch package for HTTP data fetching.",
    ),
    (  # `# ADRnnn: Title`, "Superseded by [ADR019 Use Amazon SES](...)"
        "alphagov-forms/ADR/ADR002-use-govuk-notify.md",
        "ADR002: Use GOV.UK Notify", "superseded", "2022-04-07", (),
        ("ADR019-use-amazon-ses.md",),
        "We have decided to use GOV.UK Notify to send emails to our users for the following"
        " reasons: It's readily used within government; It has the features",
    ),
    (  # "Amended by [17 ...](...)" under an Accepted status is no supersession
        "alphagov-govuk-aws/docs/architecture/decisions/0010-terraform-directory-structure.md",
        "10. Terraform directory structure", "accepted", "2017-07-04", (), (),
        "The initial solution presents three directories: data, modules and projects: The data",
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "title", "status", "date", "supersedes", "superseded_by", "summary"),
    RECORDS,
    ids=[record[0].rsplit("/", 1)[-1] for record in RECORDS],
)
def test_real_record(
    path: str,
    title: str,
    status: str,
    date: str,
    supersedes: tuple[str, ...],
    superseded_by: tuple[str, ...],
    summary: str,
) -> None:
    doc = fixture(path)
    assert (doc.title, doc.status, doc.date) == (title, status, date)
    assert (doc.supersedes, doc.superseded_by) == (supersedes, superseded_by)
    assert doc.summary.startswith(summary)
    assert len(doc.summary) <= SUMMARY_MAX_CHARS
    assert not re.search(r"\]\(|\*\*|`|<!--|\[!NOTE", doc.summary)  # no markup left


@pytest.mark.parametrize(
    "path", [record[0] for record in RECORDS if "ADR002" not in record[0]]
)  # ADR002's decision is an unpunctuated list
def test_real_summaries_end_at_a_sentence_end(path: str) -> None:
    assert fixture(path).summary.endswith((".", ".)", '."'))


def test_long_decision_is_cut_at_a_sentence_near_the_target() -> None:
    doc = fixture(f"{GUARDIAN}/001-dotcom-rendering.md")
    assert doc.summary == (
        "We will build an entirely new rendering layer that runs outside the existing frontend,"
        " via the addition of an API to frontend. Pages served from this view will consist"
        " entirely of new components. Other legacy pages are still served from the old"
        " rendering layer."
    )


def test_nygard_sections_keep_headings_and_drop_comments() -> None:
    text = (ADR / GOVUK_INFRA / "0008-use-external-secrets-for-secrets-storage.md").read_text()
    assert "<!-- vale" in text
    doc = read(text)
    assert [s.heading for s in doc.sections] == [
        "",
        "Status",
        "Context",
        "Decision",
        "Consequences",
    ]
    assert doc.sections[0].text == "Date: 2021-08-26"
    assert doc.sections[1].text == "Accepted"
    assert not any("RedHat" in s.text or "passive voice" in s.text for s in doc.sections)
    assert doc.sections[3].text.startswith(
        "Use external-secrets.\nWhile kubernetes-external-secrets"
    )


def test_status_section_at_the_end() -> None:
    doc = fixture(f"{GUARDIAN}/001-dotcom-rendering.md")
    assert [s.heading for s in doc.sections] == ["Context", "Decision", "Status"]
    assert doc.status == "approved"


def test_amended_by_is_not_superseded_by() -> None:
    doc = fixture(
        "alphagov-govuk-aws/docs/architecture/decisions/0010-terraform-directory-structure.md"
    )
    assert doc.sections[1].text == "Accepted\nAmended by 17. Terraform Data Structure"
    assert doc.superseded_by == () and doc.supersedes == ()


def test_template_is_a_template_and_reads() -> None:
    path = ADR / GOVUK_INFRA / "0000-TEMPLATE.md"
    assert is_template(path.name)
    doc = read(path.read_text())
    assert (doc.title, doc.status, doc.date, doc.summary) == ("0. Template", "pending", "", "")


@pytest.mark.parametrize("path", [record[0] for record in RECORDS])
def test_crlf_and_bom_read_the_same(path: str) -> None:
    body = split_front_matter((ADR / path).read_text("utf-8"))[1]
    doc = read(body)
    assert read(body.replace("\n", "\r\n")) == doc
    assert read("\ufeff" + body) == doc
    assert plain("\ufeff" + body.replace("\n", "\r\n")) == plain(body)


# --- the parts ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Accepted", "accepted"),
        ("✅ Accepted", "accepted"),
        ("**Accepted**", "accepted"),
        ("> Accepted", "accepted"),
        ("`Rejected`", "rejected"),
        ("Accepted on 2021-03-01", "accepted"),
        ("Superseded by [ADR 12](0012-x.md)", "superseded"),
        ("⌛️ Superseded [0019](0019-use-bash-go-as-core-languages.md)", "superseded"),
        ("Partly superseded", "superseded"),
        ("Proposed", "proposed"),
        ("🤔 Proposed", "proposed"),
        ("status: { proposed }", "proposed"),
        ("Deprecated (no superseding ADR)", "deprecated"),
        ("❌ Rejected (see [019](019-Shared-Ingress-Controllers.md))", "rejected"),
        ("Approved/Merged", "approved"),
        ("accepted; supersedes ADR-0045", "accepted"),
        ("In progress", "in-progress"),
        ("{ in-progress }", "in-progress"),
        ("🤔 Incomplete", "incomplete"),
        ("Adopted.", "adopted"),
        ("...", ""),
        ("", ""),
    ],
)
def test_status_word(text: str, word: str) -> None:
    assert status_word(text) == word


@pytest.mark.parametrize(
    ("title", "terms"),
    [
        ("8. Use X", "Use X"),
        ("ADR-012: Foo", "Foo"),
        ("0008 - Foo", "Foo"),
        ("ADR012 - Foo", "Foo"),
        ("ADR 12: Foo", "Foo"),
        ("12 - Foo", "Foo"),
        ("ADR002: Use GOV.UK Notify", "Use GOV.UK Notify"),
        ("28 Repo vulnerability scanning", "Repo vulnerability scanning"),
        ("2. Use `aws-eks` Terraform module", "Use aws-eks Terraform module"),
        ("3D printing", "3D printing"),
        ("Frontend rendering layer as a service", "Frontend rendering layer as a service"),
        ("42", "42"),
    ],
)
def test_title_terms(title: str, terms: str) -> None:
    assert title_terms(title) == terms


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        ("See [the docs](https://x.org/a_b) and [ADR 13][adr13].", "See the docs and ADR 13."),
        ("![Diagram](img/a.png) below", "Diagram below"),
        ("Run `make dev` with `**/*.py`", "Run make dev with **/*.py"),
        ("**Bold**, *em*, _em_ and ~~gone~~", "Bold, em, em and gone"),
        ("keep snake_case and MAX_SIZE", "keep snake_case and MAX_SIZE"),
        ("a <!-- hidden --> b <br/> <span class='x'>c</span>", "a b c"),
        ("before <!--\nmany\nlines\n--> after", "before\nafter"),
        ("## A heading ##\ntext", "A heading\ntext"),
        ("| a | b |\n|---|:-:|\n| c | d |", "a b\nc d"),
        ("```python\nx = 1  # not a heading\n```", "x = 1 # not a heading"),
        ("- one\n- two\n\n1. three", "one two\nthree"),
        ("> [!NOTE]\n> quoted **text**", "quoted text"),
        ("Michael Nygard in [this\narticle](http://x.org/a).", "Michael Nygard in this article."),
        ("[ref]: ./0001.md\n\n---\n\nEscaped \\*star\\* and 2 * 3", "Escaped *star* and 2 * 3"),
        ("AT&amp;T &lt;tag&gt;", "AT&T <tag>"),
        ("~~gone~~ and a\\ b", "gone and a b"),  # tildes without stars, a hard break
        ("pipe &#124; kept, | dropped", "pipe | kept, dropped"),  # entities after pipes
        ("x <https://x.org/a_b> *y*", "x https://x.org/a_b y"),
        ("snake_case_ `a_b` _c_", "snake_case a_b c"),
    ],
)
def test_plain(markdown: str, text: str) -> None:
    assert plain(markdown) == text


@pytest.mark.parametrize(
    ("name", "template"),
    [
        ("template.md", True),
        ("TEMPLATE.md", True),
        ("0000-template.md", True),
        ("0000-TEMPLATE.md", True),
        ("adr000-template.md", True),
        ("adr-template.md", True),
        ("adr-short-template.md", True),
        ("ADRXXX-architecture-decision-record-template.md", True),
        ("docs/decisions/adr-template.md", True),
        ("0039-use-apache-velocity-as-template-engine.md", False),
        ("0001-record-architecture-decisions.md", False),
        ("templates.md", False),
    ],
)
def test_is_template(name: str, template: bool) -> None:
    assert is_template(name) is template


INDEX = """# Architecture decision records

This folder holds our decisions.

* [1. Record architecture decisions](0001-record-architecture-decisions.md)
* [2. Use Terraform](0002-use-terraform.md)
* [3. Use EKS](0003-use-eks.md)
* [4. Use Helm](0004-use-helm.md)
"""
TABLE_INDEX = """| ADR | Title | Status |
|---|---|---|
| [ADR-001](adr001.md) | Logging | Accepted |
| [ADR-002](adr002.md) | Metrics | Accepted |
| [ADR-003](adr003.md) | Tracing | Proposed |
"""


def test_is_index_page() -> None:
    assert is_index_page("README.md", INDEX)
    assert is_index_page("docs/decisions/index.md", TABLE_INDEX)
    assert not is_index_page("0001-list.md", INDEX)  # only READMEs and index pages
    nygard = (ADR / GOVUK_INFRA / "0008-use-external-secrets-for-secrets-storage.md").read_text()
    assert not is_index_page("README.md", nygard)
    assert not is_index_page("README.md", "# Project\n\nSome prose.\n\nSee [the guide](g.md).\n")


def test_summary_cut_rules() -> None:
    sentence = "This sentence has exactly ten words in it, no more. "
    doc = read("# T\n\n## Decision\n\n" + sentence * 12)
    assert doc.summary == (sentence * 6).strip()  # the sentence end nearest 300 characters
    words = read("# T\n\n## Decision\n\n" + "word " * 200).summary
    assert words.endswith("word…") and len(words) <= 301
    abbreviations = read("# T\n\n## Decision\n\n" + "We use tools, e.g. Foo, and more " * 20)
    assert ", e.g." not in abbreviations.summary[-8:]


def test_summary_falls_back_to_context_then_to_the_first_paragraph() -> None:
    assert read("# T\n\n## Context\n\nWhy.\n\n## Decision\n\nChosen option:\n").summary == "Why."
    assert read(
        "# 3. T\n\nDate: 2020-01-01\n\n## Status\n\nAccepted\n\n## Notes\n\nFirst.\n"
    ).summary == ("First.")
    assert read("## Decision\n\nWe will:\n\n- do a\n- do b\n").summary == "We will: do a; do b"


def test_summary_skips_labels_unless_nothing_else_is_there() -> None:
    assert read("# T\n\nLabel:\n\nThen a sentence.\n").summary == "Then a sentence."
    assert read("# T\n\nNote:\n\n- a\n- b\n").summary == "Note: a; b"
    assert read("## Decision\n\nChosen option:\n").summary == "Chosen option:"


def test_status_and_date_lines_near_the_top() -> None:
    doc = read("# ADR 3: Foo\n\n* Status: accepted\n* **Date:** 2021-03-01\n\nText.\n")
    assert (doc.title, doc.status, doc.date, doc.summary) == (
        "ADR 3: Foo",
        "accepted",
        "2021-03-01",
        "Text.",
    )
    assert read("# T\n\n## Status: Deprecated\n\nWhy.\n").status == "deprecated"
    assert read("#25. Automatic code merging\n").title == "25. Automatic code merging"
    assert read("## 33. User permissions\n\n## Context\n").title == "33. User permissions"
    assert read("## Context and Problem Statement\n\nText.\n").title == ""


# --- a metadata list after the title (proposal formats) -------------------------------------

GO_DESIGN = FIXTURES / "proposals" / "golang-proposal" / "design"
# A language proposal laid out as Swift Evolution's are: a `* Key: value` list after the title.
LISTED_PROPOSAL = """# Typed widgets

* Proposal: [WP-0413](0413-typed-widgets.md)
* Authors: [Ada Example](https://example.com/ada), [Bo Example](https://example.com/bo)
* Review Manager: [Cy Example](https://example.com/cy)
* Status: **Implemented (Widgets 6.0)**
* Superseded-by: [WP-0999](0999-widget-kinds.md)
* Review: ([pitch](https://example.com/t/1)) ([review](https://example.com/t/2))

## Introduction

Widgets may declare the kind of value they hold, so that callers need no casts.
"""


def test_a_metadata_list_is_fields_and_never_the_summary() -> None:
    doc = read(LISTED_PROPOSAL)
    assert (
        doc.summary
        == "Widgets may declare the kind of value they hold, so that callers need no casts."
    )
    assert (doc.status, doc.superseded_by) == ("implemented", ("0999-widget-kinds.md",))
    assert dict(doc.fields) == {
        "authors": "Ada Example, Bo Example",
        "status": "Implemented (Widgets 6.0)",
        "superseded_by": "WP-0999",
    }


def test_plain_key_lines_and_a_link_only_line_after_the_title_are_skipped() -> None:
    doc = read((GO_DESIGN / "cryptography-principles.md").read_text("utf-8"))
    assert doc.title == "Cryptography Principles"
    assert doc.summary.startswith("The Go cryptography libraries goal is to help developers")
    assert dict(doc.fields) == {"authors": "Filippo Valsorda", "updated": "June 2019"}
    assert doc.date == "June 2019"  # `Last updated:` where there is no `Date:`


def test_a_decision_section_still_gives_the_summary_under_a_metadata_list() -> None:
    doc = read((GO_DESIGN / "12416-cgo-pointers.md").read_text("utf-8"))
    assert doc.summary.startswith("I propose that we permit Go code to pass Go pointers to C")
    assert dict(doc.fields) == {"authors": "Ian Lance Taylor", "updated": "October, 2015"}


@pytest.mark.parametrize(
    ("body", "summary"),
    [
        ("# T\n\n**Status:** Accepted\n**Authors:** A. Person\n\nThe prose.\n", "The prose."),
        ("# T\n\nAuthor: A. Person\n\nDiscussion at https://example.com/1.\n\nProse.\n", "Prose."),
        ("# T\n\n[![CI](https://example.com/b.svg)](https://example.com)\n\nProse.\n", "Prose."),
        ("# T\n\n<!-- a note -->\nMoved to [the new page](new.md).\n\nProse.\n", "Prose."),
        ("# T\n\nSchema for the [Query API](https://example.com).\n", "Schema for the Query API."),
        ("# T\n\nTable of Contents: [A](#a) · [B](#b)\n\n## A\n\nProse.\n", "Prose."),
        # a list of links a paragraph introduces is its list, as any list is
        ("# T\n\nYou may need to:\n\n- [List nodes](l.md)\n- [Drain a node](d.md)\n", "You may need to: List nodes; Drain a node"),
        # a list of terms is no metadata list: no key of it is a document's
        ("# T\n\n- Shard: a slice of the index\n- Replica: a copy\n", "Shard: a slice of the index; Replica: a copy"),
        ("# T\n\nNote: the cache is per process.\n", "Note: the cache is per process."),
    ],
)  # fmt: skip
def test_the_summary_is_the_first_paragraph_of_prose(body: str, summary: str) -> None:
    assert read(body).summary == summary


@pytest.mark.parametrize(
    ("heading", "title"),
    [
        ("# [Foo](bar.md) and *baz*", "Foo and baz"),
        ("# Use `public final` for **immutable** fields", "Use public final for immutable fields"),
        ("# 8. Adopt [RFC 9110][rfc] semantics\n\n[rfc]: https://example.com", "8. Adopt RFC 9110 semantics"),
        ("# Plain title", "Plain title"),
    ],
)  # fmt: skip
def test_titles_lose_links_emphasis_and_code_ticks(heading: str, title: str) -> None:
    assert read(heading + "\n\nText.\n").title == title


def test_relations() -> None:
    doc = read(
        "# 9. Foo\n\nThis decision supersedes [8](./0008-bar.md#status) and"
        " [7](0007-baz.md).\n\n## Status\n\nSuperseded by [ADR 12](0012-foo.md)\n\n"
        "Amended by [ADR 13](0013-qux.md)\n\nSuperseded by ADR-0014\n\n"
        "Replaced by [ADR 12 again](0012-foo.md) and [15][]\n\n[15]: 0015-quux.md\n"
    )
    assert doc.supersedes == ("0008-bar.md", "0007-baz.md")
    assert doc.superseded_by == ("0012-foo.md", "0015-quux.md")
    assert doc.status == "superseded"


# --- robustness -----------------------------------------------------------------------------

MARKDOWN_CHARS = [
    *"#*_`[]()<>!-:|\\ \n\t\r~=.aZ1\ufeff\xa0\ue000\ue001&;{}",
    *("## Status\n", "<!--", "-->", "```", "Superseded by ", "[a](b.md)", "## Decision\n"),
    "&#xe000;",
]


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(), st.lists(st.sampled_from(MARKDOWN_CHARS), max_size=80).map("".join)))
def test_read_never_raises_and_is_deterministic(body: str) -> None:
    doc = read(body)
    assert read(body) == doc
    assert len(doc.summary) <= SUMMARY_MAX_CHARS + 1
    assert isinstance(plain(body), str) and isinstance(title_terms(body), str)
    assert isinstance(status_word(body), str) and isinstance(is_index_page("README.md", body), bool)


@pytest.mark.parametrize(
    "body",
    [
        "[" * 100_000,
        "[a](" * 25_000,
        "<a" * 50_000,
        "".join("`" * (i % 7 + 1) + "x" for i in range(20_000)),
        ">" * 100_000,
        "*a_" * 30_000,
        "\\" * 100_000,
        "## Status\n" * 10_000,
        "".join("#" * (i % 6 + 1) + " Decision\n" for i in range(10_000)),
        "Superseded by [a](a.md) supersedes [b](b.md) " * 2_000,
        ". A" * 30_000,
    ],
    ids=lambda body: repr(body[:8]),
)
def test_pathological_input_stays_fast(body: str) -> None:
    started = time.perf_counter()
    read(body)
    plain(body)
    assert time.perf_counter() - started < 5  # linear: well under a second on a laptop


# --- the shared corpus ----------------------------------------------------------------------

CORPUS = CORPORA / "adr"
UNTITLED = {  # no `# ` heading and no front-matter title: only the file name says what they are
    "microsoft-semantic-kernel/docs/decisions/0018-kernel-hooks-phase2.md",
    "microsoft-semantic-kernel/docs/decisions/0024-connectors-api-equalization.md",
    "microsoft-semantic-kernel/docs/decisions/0072-context-based-function-selection.md",
}


def front_matter_title(block: str | None) -> str:
    match = re.search(r"^title:[ \t]*(.+)$", block or "", re.M)
    return match.group(1).strip().strip("'\"") if match else ""


def test_every_record_of_the_shared_corpus() -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"the shared adr corpus is not at {CORPUS}; set KROUTE_SHARED")
    records = [p for p in sorted(CORPUS.rglob("*.md")) if p.parent != CORPUS]
    records = [p for p in records if not is_template(p.name)]
    untitled, statuses = set(), 0
    for path in records:
        block, body = split_front_matter(path.read_text("utf-8"))
        doc = read(body)
        if not (doc.title or front_matter_title(block)):
            untitled.add(path.relative_to(CORPUS).as_posix())
        if block is None:
            assert doc.summary, path
        statuses += bool(doc.status)
    assert len(records) == 444
    assert untitled == UNTITLED
    assert statuses >= 230  # 233 of 444 from the body alone; MADR keeps its status in front matter


def test_corpus_templates_are_recognised() -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"the shared adr corpus is not at {CORPUS}; set KROUTE_SHARED")
    templates = sorted(p.name for p in CORPUS.rglob("*.md") if is_template(p.name))
    assert templates == [
        "0000-TEMPLATE.md",
        "ADRXXX-architecture-decision-record-template.md",
        "adr-short-template.md",
        "adr-template.md",
        "adr-template.md",
        "adr000-template.md",
    ]


def test_fixture_licence_names_every_copied_file() -> None:
    licence = (ADR / "LICENSE.md").read_text()
    copied = [p for p in ADR.rglob("*.md") if p.name != "LICENSE.md"]
    assert len(copied) == 12
    for path in copied:
        assert path.relative_to(ADR).as_posix() in licence, path
        assert (ADR / path.relative_to(ADR).parts[0] / "LICENSE.source").is_file()
