"""router.route.admission: which entries a request's filters admit (domain, cluster and kind
compared as normalized words, purpose through the taxonomy), and what the focus file keeps
of what the task's words reached: all but the entries merely about code the file imports."""

from __future__ import annotations

from dataclasses import replace

import pytest

from router.catalog.entry import Entry
from router.filters import relevance
from router.ranking import rank
from router.ranking.index import Index
from router.route import admission, shortlist
from router.route.contract import Request
from router.route.shortlist import Ranking
from router.runtime.engine import Engine
from router.runtime.intake import FocusAsk
from testing.catalog import demo_config, demo_entries, demo_entry, demo_index
from testing.paths import DEMO

TAX_TASK = "change how invoice tax lines are computed"
INVOICE = DEMO / "src" / "billing" / "invoice.py"


def admitted_ids(request: Request) -> set[str]:
    admitted = admission.of(demo_config().taxonomy, request)
    return {e.id for e in demo_entries() if admitted(e)}


def test_a_request_without_filters_admits_every_entry() -> None:
    assert admitted_ids(Request("anything")) == {e.id for e in demo_entries()}


@pytest.mark.parametrize(
    ("filtered", "expected"),
    [
        (
            Request("anything", domain="storage"),
            {"TW-DR-0001", "TW-DR-0009", "TW-HOW-add-migration", "expand-contract-schema-change"},
        ),
        (
            Request("anything", cluster="traffic-control"),
            {"TW-DR-0002", "TW-SPEC-tenant-quotas", "token-bucket-limiter"},
        ),
        (
            Request("anything", kind="evaluation"),
            {"TW-EVAL-0001", "TW-EVAL-0002", "TW-EVAL-0003"},
        ),
        (Request("anything", domain="api", kind="decision"), {"TW-DR-0002"}),
        (Request("anything", domain="no such domain"), set()),
    ],
)
def test_domain_cluster_and_kind_admit_the_entries_that_carry_them(
    filtered: Request, expected: set[str]
) -> None:
    assert admitted_ids(filtered) == expected


def test_filters_are_compared_as_normalized_words() -> None:
    # case, `-` and `_` are no part of what a filter names
    assert admitted_ids(Request("x", domain="Storage")) == admitted_ids(
        Request("x", domain="storage")
    )
    assert admitted_ids(Request("x", cluster="Traffic_Control")) == admitted_ids(
        Request("x", cluster="traffic-control")
    )
    assert admitted_ids(Request("x", kind="How-To")) == {
        e.id for e in demo_entries() if e.kind == "how_to"
    }


def test_a_purpose_admits_the_kinds_the_taxonomy_gives_it() -> None:
    procedure = admitted_ids(Request("anything", purpose="procedure"))
    kinds = {e.kind for e in demo_entries() if e.id in procedure}
    assert kinds == {"how_to", "skill", "annex"}
    assert procedure == {e.id for e in demo_entries() if e.kind in kinds}
    assert admitted_ids(Request("anything", purpose="no-such-purpose")) == set()


def draw(index: Index, request: Request) -> Ranking:
    weighted = rank.of_task(index, request.task)
    scoring = rank.scoring(weighted, index.size)
    admitted = admission.of(demo_config().taxonomy, request)
    return shortlist.draw(index, request, weighted, scoring, admitted, {}, 0)


def invoice_focus(request: Request) -> Request:
    """Return the request with the focus file src/billing/invoice.py, read as the engine reads
    it (its symbols: it imports TaxTable from billing.tax)."""
    engine = Engine(demo_config(), Engine.load(demo_config()).catalog)
    return replace(request, focus=engine.focus(FocusAsk(str(INVOICE))))


def test_without_a_focus_nothing_is_dropped() -> None:
    index = demo_index()
    request = Request(TAX_TASK)
    ranking = draw(index, request)
    anchored: list[Entry] = [demo_entry("TW-DR-0006")]
    kept_anchored, kept, dropped = admission.focused(index, request, anchored, ranking)
    assert (kept_anchored, kept, dropped) == (anchored, ranking, 0)


def test_the_focus_drops_what_is_about_the_code_it_imports_and_keeps_the_rest() -> None:
    index = demo_index()
    request = invoice_focus(Request(TAX_TASK))
    ranking = draw(index, request)
    reached = [c.entry.id for c in ranking.candidates]
    # the tax-rounding decision governs src/billing/tax.py, which invoice.py imports
    assert "TW-DR-0006" in reached
    _, kept, dropped = admission.focused(index, request, [], ranking)
    assert [c.entry.id for c in kept.candidates] == [i for i in reached if i != "TW-DR-0006"]
    assert dropped == 1 and kept.reached == len(kept.candidates)
    assert kept.scoring == ranking.scoring and kept.lacking == ranking.lacking


def test_an_anchored_entry_is_kept_whatever_the_focus_file_imports() -> None:
    index = demo_index()
    request = invoice_focus(Request(TAX_TASK))
    ranking = draw(index, request)
    anchored = [demo_entry("TW-DR-0006")]
    kept_anchored, kept, dropped = admission.focused(index, request, anchored, ranking)
    assert kept_anchored == anchored and dropped == 0
    assert kept.candidates == ranking.candidates


def test_an_entry_governing_the_focus_file_is_kept() -> None:
    index = demo_index()
    request = invoice_focus(Request(TAX_TASK))
    ranking = draw(index, request)
    _, kept, _ = admission.focused(index, request, [], ranking)
    governing = {"TW-SPEC-invoice-builder", "answer-billing-question", "TW-REQ-0003"}
    assert governing <= {c.entry.id for c in kept.candidates}


def test_an_entry_scoring_above_the_threshold_despite_the_penalty_is_kept() -> None:
    # dropped takes both: the import penalty fired and the score fell under the threshold (a
    # penalty is negative: no threshold at or above 0 lets the tax decision through)
    index = demo_index()
    request = replace(invoice_focus(Request(TAX_TASK)), threshold=relevance.IMPORT_PENALTY_WEIGHT)
    ranking = draw(index, request)
    _, kept, dropped = admission.focused(index, request, [], ranking)
    assert dropped == 0 and kept.candidates == ranking.candidates
