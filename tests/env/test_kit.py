"""The helpers tools use: get, insert, the clock, invariants (on the kit's test shop)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from pytest_crmbench import Rejection, StateError, ToolEnvironment, Violation, invariant
from tests.env.shop import ShopEnvironment


def shop(override: dict[str, Any] | None = None, seed: int = 0) -> ShopEnvironment:
    return ShopEnvironment(override, seed=seed)


def test_get_returns_the_live_record_or_a_404_naming_the_argument() -> None:
    env = shop()
    env.get("customers", "CUS-1")["name"] = "Ada L."
    assert env.state["customers"]["CUS-1"]["name"] == "Ada L."
    with pytest.raises(Rejection) as caught:
        env.get("customers", "CUS-9")
    assert caught.value.as_error() == {
        "status": 404,
        "code": "CUSTOMER_NOT_FOUND",
        "message": "No customer with id 'CUS-9'.",
        "param": "customer_id",
    }
    with pytest.raises(Rejection) as caught:
        env.get("customers", "CUS-9", param="payer")
    assert caught.value.param == "payer"


def test_get_with_an_owner_refuses_another_customers_record() -> None:
    env = shop()
    assert env.get("orders", "ORD-1", owner="CUS-1")["total"] == Decimal("30.00")
    with pytest.raises(Rejection) as caught:
        env.get("orders", "ORD-1", owner="CUS-2")
    assert (caught.value.status, caught.value.code, caught.value.message) == (
        403,
        "NOT_OWNER",
        "Order ORD-1 does not belong to CUS-2.",
    )


def test_insert_gives_a_seeded_prefixed_id_and_stores_the_canonical_record() -> None:
    env = shop(seed=7)
    order = env.insert("orders", {"customer_id": "CUS-2", "total": "12.5", "placed_at": env.stamp()})
    assert order["order_id"].startswith("ORD-") and len(order["order_id"]) == len("ORD-") + 6
    assert env.state["orders"][order["order_id"]] is order
    assert (order["total"], order["status"], order["due_on"]) == (Decimal("12.50"), "open", None)
    event = env.insert("events", {"text": "hello"})
    note = env.insert("notes", {"text": "no id"})
    assert env.state["events"][-1] is event and event["event_id"].startswith("EVT-")
    assert note == {"text": "no id"}
    again = shop(seed=7)
    assert (
        again.insert("orders", {"customer_id": "CUS-2", "total": 1, "placed_at": again.stamp()})["order_id"]
        == order["order_id"]
    )


def test_insert_refuses_a_record_the_model_refuses() -> None:
    env = shop()
    with pytest.raises(StateError, match=r"orders\.<new>\.total"):
        env.insert("orders", {"customer_id": "CUS-1", "total": 0, "placed_at": env.stamp()})
    assert list(env.state["orders"]) == ["ORD-1"]


def test_the_clock_is_the_domains_and_ticks_one_second_per_stamp() -> None:
    env = shop()
    assert env.today() == date(2026, 3, 2)
    assert [env.stamp(), env.stamp()] == ["2026-03-02T09:00:01+00:00", "2026-03-02T09:00:02+00:00"]
    assert env.today() == date(2026, 3, 2)
    assert env.age_days("2026-02-20T10:00:00+00:00") == 10
    assert env.age_days("2026-03-02") == 0


def test_invariants_hold_on_the_seed_and_name_what_an_override_breaks() -> None:
    assert shop().violations() == []
    broken = shop({"orders": {"ORD-1": {"customer_id": "CUS-404"}}})
    assert broken.violations() == [Violation("orders.ORD-1.customer_id", "names no customer")]
    mismatched = shop({"customers": {"CUS-1": {"customer_id": "CUS-7"}}})
    assert mismatched.violations() == [
        Violation("customers.CUS-1.customer_id", "is 'CUS-7' but the record is stored under 'CUS-1'")
    ]


def test_an_invariant_that_crashes_is_reported_as_a_violation() -> None:
    class Fragile(ShopEnvironment):
        @invariant
        def every_order_has_a_due_date(self) -> Any:
            for order in self.state["orders"].values():
                if date.fromisoformat(order["due_on"]) < self.today():
                    yield Violation("orders", "overdue")

    (violation,) = Fragile().violations()
    assert violation.path == "" and "every_order_has_a_due_date could not run: TypeError" in violation.message


def test_invariants_and_tools_are_inherited_from_mixins_in_base_order() -> None:
    assert list(ShopEnvironment.tools) == [
        "get_order",
        "check_order",
        "place_order",
        "cancel_order",
        "rename",
        "corrupt",
    ]
    assert list(ShopEnvironment.invariants) == ["orders_have_customers"]

    class Audit(ToolEnvironment):
        @invariant
        def always_fine(self) -> Any:
            return iter(())

    class Both(Audit, ShopEnvironment):
        domain = "kit_shop_both"

    assert set(Both.invariants) == {"orders_have_customers", "always_fine"}
    assert list(Both.tools) == list(ShopEnvironment.tools)


def test_the_default_state_is_validated_once_and_its_violations_cached() -> None:
    assert ShopEnvironment.cached_default_state() is ShopEnvironment.cached_default_state()
    assert ShopEnvironment.default_violations() == ()

    class BadSeed(ShopEnvironment):
        def default_state(self) -> dict[str, Any]:
            return {
                **super().default_state(),
                "customers": {"CUS-1": {"customer_id": "CUS-1", "name": "A", "credit": -1}},
            }

    with pytest.raises(StateError, match=r"seed\.customers\.CUS-1\.credit"):
        BadSeed()
