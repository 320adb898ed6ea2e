"""The state model: records, the canonical tree, revalidation after a write, precise errors."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from pydantic import BaseModel

from pytest_crmbench import Record, StateError
from pytest_crmbench.env.state import canonical, collection, collections_of, identical, revalidated
from pytest_crmbench.environment import clone
from pytest_crmbench.errors import EnvironmentDefinitionError
from tests.env.shop import SEED, Customer, Event, Note, Order, ShopState


def test_records_know_their_id_field_noun_and_prefix() -> None:
    assert (Customer.id_field, Customer.noun, Customer.id_prefix) == ("customer_id", "customer", "CUS")
    assert (Event.id_field, Note.id_field) == ("event_id", None)  # declared; no id at all

    class PaymentMethod(Record):
        payment_method_id: str

    assert (PaymentMethod.id_field, PaymentMethod.noun) == ("payment_method_id", "payment method")


def test_the_state_model_lists_its_collections() -> None:
    found = {(c.name, c.record, c.keyed) for c in collections_of(ShopState)}
    assert found == {
        ("customers", Customer, True),
        ("orders", Order, True),
        ("events", Event, False),
        ("notes", Note, False),
    }
    with pytest.raises(EnvironmentDefinitionError, match="open_for_business is not a collection"):
        collection(ShopState, "open_for_business")


def test_canonical_coerces_and_fills_every_field() -> None:
    state = canonical(ShopState, SEED)
    assert state["customers"]["CUS-2"]["credit"] == Decimal("0.50")
    assert state["orders"]["ORD-1"] == {
        "order_id": "ORD-1",
        "customer_id": "CUS-1",
        "total": Decimal("30.00"),
        "status": "open",
        "placed_at": "2026-02-20T10:00:00+00:00",
        "due_on": None,
    }
    assert state["open_for_business"] is True
    assert identical(canonical(ShopState, state), state)  # canonical is a fixed point


def test_every_refused_field_is_named_by_its_path() -> None:
    broken = clone(SEED)
    broken["customers"]["CUS-1"]["credit"] = "1.005"
    broken["orders"]["ORD-1"]["status"] = "lost"
    broken["orders"]["ORD-1"]["colour"] = "red"
    with pytest.raises(StateError) as caught:
        canonical(ShopState, broken, where="initial_state")
    paths = [path for path, _ in caught.value.problems]
    assert paths == ["customers.CUS-1.credit", "orders.ORD-1.status", "orders.ORD-1.colour"]
    assert "initial_state.customers.CUS-1.credit: Amount cannot have more than two decimal places" in str(caught.value)


def test_identical_tells_types_apart_where_equality_does_not() -> None:
    assert Decimal("0.00") == 0 and not identical(0, Decimal("0.00"))
    assert not identical(Decimal("1.0"), Decimal("1.00"))
    assert not identical(1, 1.0) and not identical(True, 1)
    assert identical({"a": [Decimal("1.00"), None]}, {"a": [Decimal("1.00"), None]})


def mutated(change: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    before = canonical(ShopState, SEED)
    after = clone(before)
    change(after)
    return before, after


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s["customers"]["CUS-1"].update(credit=Decimal("70")),
        lambda s: s["customers"]["CUS-1"].update(credit=70),
        lambda s: s["orders"].update(
            {
                "ORD-2": {
                    "order_id": "ORD-2",
                    "customer_id": "CUS-2",
                    "total": "1.5",
                    "placed_at": "2026-03-01T00:00:00+00:00",
                }
            }
        ),
        lambda s: s["events"].append({"event_id": "EVT-1", "text": "x"}),
        lambda s: s.update(open_for_business=False),
        lambda s: s["orders"].pop("ORD-1"),
    ],
    ids=["unquantised", "int-for-money", "new-record-with-defaults", "appended", "scalar-field", "deleted"],
)
def test_revalidation_after_a_write_equals_a_full_canonical_dump(change: Any) -> None:
    before, after = mutated(change)
    expected = canonical(ShopState, clone(after))
    assert identical(revalidated(ShopState, after, before), expected)


def test_a_write_the_model_refuses_names_the_changed_record() -> None:
    before, after = mutated(lambda s: s["orders"]["ORD-1"].update(total=0))
    with pytest.raises(StateError, match=r"state\.orders\.ORD-1\.total"):
        revalidated(ShopState, after, before)
    before, after = mutated(lambda s: s.update(surprise=1))  # a key the model does not have
    with pytest.raises(StateError, match="surprise"):
        revalidated(ShopState, after, before)


def test_a_model_without_collections_is_still_a_state_model() -> None:
    class Flat(BaseModel):
        counter: int

    assert collections_of(Flat) == ()
    assert revalidated(Flat, {"counter": "3"}, {"counter": 2}) == {"counter": 3}
