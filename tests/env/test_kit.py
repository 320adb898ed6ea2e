"""The helpers tools use: get, insert, the clock, invariants (on the kit's test shop)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import Record, Ref, Rejection, StateError, ToolEnvironment, Violation, invariant
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


RepId = Annotated[str, Ref("reps")]


class SalesRep(Record):
    id_field = "rep_id"
    noun = "rep"  # what the violation calls a missing one

    rep_id: str


class Visit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rep_id: RepId


class Lead(Record):
    lead_id: str
    owner_id: RepId | None = None
    watchers: list[RepId] = Field(default_factory=list)
    backups: Annotated[list[str], Ref("reps")] = Field(default_factory=list)
    quota: dict[RepId, int] = Field(default_factory=dict)
    visits: list[Visit] = Field(default_factory=list)


class CallLogged(Record):
    rep_id: RepId


class LeadState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reps: dict[str, SalesRep]
    leads: dict[str, Lead]
    calls: list[CallLogged]


class LeadEnvironment(ToolEnvironment):
    domain = "kit_leads"
    state_model = LeadState

    def default_state(self) -> dict[str, Any]:
        return {
            "reps": {"REP-1": {"rep_id": "REP-1"}, "REP-2": {"rep_id": "REP-2"}},
            "leads": {"LEAD-1": {"lead_id": "LEAD-1", "owner_id": "REP-1", "watchers": ["REP-2"]}},
            "calls": [{"rep_id": "REP-2"}],
        }


def test_a_ref_field_naming_no_record_is_a_violation_at_its_path() -> None:
    assert LeadEnvironment().violations() == []
    assert LeadEnvironment({"leads": {"LEAD-1": {"owner_id": None}}}).violations() == []  # optional: no reference
    broken = LeadEnvironment(
        {
            "leads": {
                "LEAD-1": {
                    "owner_id": "REP-9",
                    "watchers": ["REP-1", "REP-8", "REP-2"],
                    "backups": ["REP-7"],
                    "quota": {"REP-2": 3, "REP-6": 1},
                    "visits": [{"rep_id": "REP-1"}, {"rep_id": "LEAD-1"}],
                },
            },
            "calls": [{"rep_id": "REP-5"}],
        }
    )
    assert sorted(broken.violations(), key=lambda v: v.path) == [
        Violation("calls.0.rep_id", "names no rep"),  # a list collection: by index
        Violation("leads.LEAD-1.backups.0", "names no rep"),  # Ref on list[str]: each element
        Violation("leads.LEAD-1.owner_id", "names no rep"),
        Violation("leads.LEAD-1.quota.REP-6", "names no rep"),  # Ref on a dict's keys: the key
        Violation("leads.LEAD-1.visits.1.rep_id", "names no rep"),  # a nested model
        Violation("leads.LEAD-1.watchers.1", "names no rep"),  # list[Ref]: each element
    ]


def test_a_ref_resolves_against_the_keys_not_the_ids_inside_records() -> None:
    moved = LeadEnvironment({"reps": {"REP-3": {"rep_id": "REP-7"}}, "leads": {"LEAD-1": {"owner_id": "REP-7"}}})
    assert moved.violations() == [
        Violation("reps.REP-3.rep_id", "is 'REP-7' but the record is stored under 'REP-3'"),
        Violation("leads.LEAD-1.owner_id", "names no rep"),
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
    assert list(ShopEnvironment.invariants) == ["orders_are_not_placed_in_the_future"]

    class Audit(ToolEnvironment):
        @invariant
        def always_fine(self) -> Any:
            return iter(())

    class Both(Audit, ShopEnvironment):
        domain = "kit_shop_both"

    assert set(Both.invariants) == {"orders_are_not_placed_in_the_future", "always_fine"}
    assert list(Both.tools) == list(ShopEnvironment.tools)


def test_the_default_state_is_validated_once_and_its_violations_cached() -> None:
    assert ShopEnvironment._shared_default() is ShopEnvironment._shared_default()  # built and validated once
    # ... and handed out as private copies (issue 9 §3: nobody may edit the class-wide default).
    assert ShopEnvironment.cached_default_state() == ShopEnvironment.cached_default_state()
    assert ShopEnvironment.cached_default_state() is not ShopEnvironment._shared_default()
    assert ShopEnvironment.default_violations() == ()

    class BadSeed(ShopEnvironment):
        def default_state(self) -> dict[str, Any]:
            return {
                **super().default_state(),
                "customers": {"CUS-1": {"customer_id": "CUS-1", "name": "A", "credit": -1}},
            }

    with pytest.raises(StateError, match=r"seed\.customers\.CUS-1\.credit"):
        BadSeed()
