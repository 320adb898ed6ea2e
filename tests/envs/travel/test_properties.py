"""Hypothesis: random sequences of operations keep every world invariant, conserve money (every
cent charged, refunded or credited is accounted for) and seats (on every flight still flying,
seats left plus passengers booked stay constant); reads change nothing; rejections change nothing."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .helpers import make

TRAVELLERS = ["TRV-20417", "TRV-20418", "TRV-20419", "TRV-20420", "TRV-20421"]
LOCATORS = ["H4LM8P", "D3RY6F", "Q9TB5W", "P8NW3C", "K7Q2ZD", "G2HF7L"]
FLIGHTS = [
    "NA101-2026-05-14",
    "NA101-2026-05-15",
    "NA105-2026-05-15",
    "NA220-2026-05-12",
    "NA224-2026-05-12",
    "NA228-2026-05-12",
    "NA310-2026-05-11",
    "NA430-2026-05-20",
]
AMOUNTS = st.decimals(min_value=Decimal("-10"), max_value=Decimal("1500"), places=2)
OWNED = st.sampled_from(
    [
        ("TRV-20419", "H4LM8P"),
        ("TRV-20418", "D3RY6F"),
        ("TRV-20420", "Q9TB5W"),
        ("TRV-20417", "P8NW3C"),
        ("TRV-20417", "K7Q2ZD"),
        ("TRV-20421", "G2HF7L"),
        ("TRV-20419", "D3RY6F"),
    ]
)


def _with(owner: tuple[str, str], **rest: Any) -> dict[str, Any]:
    return {"traveller_id": owner[0], "locator": owner[1], **rest}


OPERATIONS = st.one_of(
    st.builds(
        lambda o, a, b, m: ("change_flight", _with(o, old_flight_id=a, new_flight_id=b, amount_charged=m)),
        OWNED,
        st.sampled_from(FLIGHTS),
        st.sampled_from(FLIGHTS),
        AMOUNTS,
    ),
    st.builds(
        lambda o, m, to: ("cancel_booking", _with(o, refund_amount=m, refund_to=to)),
        OWNED,
        AMOUNTS,
        st.sampled_from(["original_payment", "travel_credit"]),
    ),
    st.builds(
        lambda o, n, m: ("add_checked_bags", _with(o, bags=n, amount_charged=m)), OWNED, st.integers(-1, 7), AMOUNTS
    ),
    st.builds(lambda o, m: ("issue_compensation", _with(o, amount=m)), OWNED, AMOUNTS),
)
READS = st.one_of(
    st.builds(lambda t: ("list_bookings", {"traveller_id": t}), st.sampled_from(TRAVELLERS)),
    st.builds(lambda t: ("get_traveller", {"traveller_id": t}), st.sampled_from(TRAVELLERS)),
    st.builds(lambda o: ("get_booking", _with(o)), OWNED),
    st.builds(
        lambda d: ("search_flights", {"origin": "JFK", "destination": "LAX", "date": d}),
        st.sampled_from(["2026-05-12", "2026-05-15"]),
    ),
    st.just(("get_baggage_rules", {})),
)


def money(value: Any) -> Decimal:
    return Decimal(str(value))


def seats(state: dict[str, Any]) -> dict[tuple[str, str], int]:
    """Seats left plus passengers booked, per flight and cabin, on flights still flying."""
    totals = {}
    for flight_id, flight in state["flights"].items():
        if flight["status"] == "cancelled":
            continue
        for cabin, left in flight["seats_available"].items():
            booked = sum(
                len(b["passengers"])
                for b in state["bookings"].values()
                if b["status"] == "confirmed" and b["cabin"] == cabin and flight_id in b["segments"]
            )
            totals[(flight_id, cabin)] = int(left) + booked
    return totals


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPERATIONS, max_size=10))
def test_random_operations_keep_the_world_and_conserve_money_and_seats(
    operations: list[tuple[str, dict[str, Any]]],
) -> None:
    env = make()
    seat_totals = seats(env.state)
    charged, refunded, vouchers = Decimal("0"), Decimal("0"), Decimal("0")
    paid_before = sum(money(b["total_paid"]) for b in env.state["bookings"].values())
    for name, args in operations:
        before = copy.deepcopy(env.state)
        call = env.call(name, args)
        assert call.status in ("ok", "rejected"), call.error
        if call.status == "rejected":
            assert env.state == before
            continue
        if name in ("change_flight", "add_checked_bags"):
            charged += money(args["amount_charged"])
        elif name == "cancel_booking":
            refunded += money(args["refund_amount"])
        elif name == "issue_compensation":
            vouchers += money(args["amount"])
        assert env.violations() == []
        assert seats(env.state) == seat_totals
    state = env.state
    assert sum(money(b["total_paid"]) for b in state["bookings"].values()) == paid_before + charged
    assert sum(money(b["refunded"]) for b in state["bookings"].values()) == refunded
    compensation = sum(money(c["amount"]) for c in state["credits"].values() if c["kind"] == "compensation")
    assert compensation == vouchers


@settings(max_examples=40, deadline=None)
@given(st.lists(READS, max_size=6))
def test_reads_change_nothing(reads: list[tuple[str, dict[str, Any]]]) -> None:
    env = make()
    before = copy.deepcopy(env.state)
    for name, args in reads:
        env.call(name, args)
    assert env.state == before


def test_each_reset_starts_from_the_same_world() -> None:
    first = make()
    first.call("cancel_booking", _with(("TRV-20419", "H4LM8P"), refund_amount="0", refund_to="travel_credit"))
    assert make().state["bookings"]["H4LM8P"]["status"] == "confirmed"
