"""router.route.contract: a request is checked before it is routed (a budget of at least 1, a
known order), its filters read by name; a route says whether it offered anything, and every
silence a route can keep is one the contract explains."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, replace

import pytest

from router.base.errors import RequestError
from router.route import assembly, contract
from router.route.contract import Request
from router.route.pointer import Pointer
from testing.catalog import demo_config, demo_entry, demo_index


@pytest.mark.parametrize("order", contract.ORDERS)
def test_a_request_with_a_known_order_and_a_budget_passes_as_it_is(order: str) -> None:
    request = Request("rotate the webhook signing key", budget=1, order=order)
    assert contract.check(request) is request


@pytest.mark.parametrize("budget", [0, -3])
def test_a_budget_under_one_is_refused_naming_it(budget: int) -> None:
    with pytest.raises(RequestError) as caught:
        contract.check(Request("rotate keys", budget=budget))
    assert caught.value.what == f"budget is {budget}"
    assert str(caught.value) == f"budget is {budget}. Ask for a budget of at least 1."


def test_an_unknown_order_is_refused_with_the_orders_there_are() -> None:
    with pytest.raises(RequestError) as caught:
        contract.check(Request("rotate keys", order="random"))
    assert str(caught.value) == "order is 'random'. Use one of diverse, turns, score."


def test_the_budget_is_checked_before_the_order() -> None:
    with pytest.raises(RequestError, match="budget is 0"):
        contract.check(Request("rotate keys", budget=0, order="random"))


def test_filters_are_read_by_name_and_any_one_set_is_filtering() -> None:
    bare = Request("rotate keys")
    assert bare.filters() == {"domain": None, "cluster": None, "kind": None, "purpose": None}
    assert not bare.filtering()
    each = {
        "domain": replace(bare, domain="x"),
        "cluster": replace(bare, cluster="x"),
        "kind": replace(bare, kind="x"),
        "purpose": replace(bare, purpose="x"),
    }
    for name, one in each.items():
        assert one.filters()[name] == "x"
        assert [k for k, v in one.filters().items() if v is not None] == [name]
        assert one.filtering(), name
    # an empty value is still a filter set (it admits nothing), not a filter left out
    assert replace(bare, kind="").filtering()


def test_a_request_is_a_frozen_record() -> None:
    request = Request("rotate keys")
    with pytest.raises(FrozenInstanceError):
        request.budget = 9  # type: ignore[misc]  # the assignment under test is refused


def test_an_abandoned_route_is_silent_for_its_deadline_and_keeps_the_request() -> None:
    request = Request("rotate the webhook signing key", budget=2)
    route = contract.abandoned(request)
    assert route.request is request
    assert route.silence == "deadline" and route.silence in contract.SILENCE
    assert (route.terms, route.anchors, route.pointers, route.withheld) == ((), (), (), 0)
    assert route.status == "no_match"


def test_a_route_with_a_pointer_is_routed_one_without_is_no_match() -> None:
    request = Request("rotate the webhook signing key")
    item = demo_entry("TW-HOW-rotate-keys")
    offered = contract.Route(
        request, ("rotate",), ("rotate",), (), (), (Pointer(item, "procedure", {}),), 0, None
    )
    assert offered.status == "routed"
    assert replace(offered, pointers=()).status == "no_match"


@pytest.mark.parametrize(
    ("request_", "silence"),
    [
        (Request("the and of"), "no_terms"),
        (Request("bake sourdough bread"), "no_document_reached"),
        (Request("retry a failed webhook delivery", kind="no-such-kind"), "filtered"),
        (
            Request("retry a failed webhook delivery", purpose="no-such-purpose"),
            "no_purpose_matched",
        ),
    ],
)
def test_every_silence_a_route_keeps_over_a_real_catalog_is_explained(
    request_: Request, silence: str
) -> None:
    route = assembly.assemble(demo_index(), demo_config().taxonomy, request_)
    assert route.silence == silence and route.pointers == ()
    assert contract.SILENCE[silence].endswith(".")


def test_a_real_route_is_routed() -> None:
    route = assembly.assemble(
        demo_index(), demo_config().taxonomy, Request("retry a failed webhook delivery")
    )
    assert route.silence is None and route.status == "routed"
    assert route.pointers and len(route.pointers) <= route.request.budget
