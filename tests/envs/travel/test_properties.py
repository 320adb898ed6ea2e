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

TRAVELLERS = ["TRV-20417", "TRV-20418", "TRV-20419", "TRV-20420", "TRV-20421", "TRV-20424"]
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
        ("TRV-20424", "M2XK7V"),
    ]
)

STAYS = st.sampled_from(
    [
        ("TRV-20419", "HS-7TQ2LM"),
        ("TRV-20417", "HS-9XK4RB"),
        ("TRV-20418", "HS-5MV2NH"),
        ("TRV-20422", "HS-3PW8KD"),
        ("TRV-20418", "HS-7TQ2LM"),
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
    st.builds(
        lambda o, f, p, seat, m: (
            "assign_seat",
            _with(o, flight_id=f, passenger_name=p, seat=seat, amount_charged=m),
        ),
        OWNED,
        st.sampled_from(["NA101-2026-05-14", "NA101-2026-05-15", "NA430-2026-05-20"]),
        st.sampled_from(["Hannah Lindqvist", "Daniel Reyes", "Sofia Reyes", "Amara Okafor"]),
        st.sampled_from(["14A", "21A", "21B", "12C", "15A", "30A", "11A", "16C", "24E", "2A"]),
        AMOUNTS,
    ),
    st.builds(
        lambda t, h, r, d, n, plan: (
            "book_hotel",
            {"traveller_id": t, "hotel_id": h, "room_type": r, "check_in": d, "check_out": n, "rate_plan": plan},
        ),
        st.sampled_from(TRAVELLERS),
        st.sampled_from(["HTL-LON-01", "HTL-LON-02", "HTL-LAX-01"]),
        st.sampled_from(["standard", "deluxe", "family", "suite"]),
        st.sampled_from(["2026-05-10", "2026-05-15", "2026-05-16"]),
        st.sampled_from(["2026-05-15", "2026-05-18"]),
        st.sampled_from(["flexible", "prepaid"]),
    ),
    st.builds(
        lambda o, d, n, c, r: (
            "modify_hotel_stay",
            {
                "traveller_id": o[0],
                "stay_id": o[1],
                "check_in": d,
                "check_out": n,
                "amount_charged": c,
                "amount_refunded": r,
            },
        ),
        STAYS,
        st.sampled_from(["2026-05-12", "2026-05-15", "2026-05-16"]),
        st.sampled_from(["2026-05-14", "2026-05-18", "2026-05-19"]),
        AMOUNTS,
        AMOUNTS,
    ),
    st.builds(
        lambda o, m: ("cancel_hotel_stay", {"traveller_id": o[0], "stay_id": o[1], "refund_amount": m}), STAYS, AMOUNTS
    ),
    st.builds(
        lambda o, why, m: ("file_insurance_claim", _with(o, reason=why, amount=m)),
        OWNED,
        st.sampled_from(["illness", "other"]),
        AMOUNTS,
    ),
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
    st.builds(lambda f: ("get_seat_map", {"flight_id": f}), st.sampled_from(FLIGHTS)),
    st.builds(lambda o: ("get_hotel_stay", {"traveller_id": o[0], "stay_id": o[1]}), STAYS),
    st.builds(
        lambda c: ("search_hotels", {"city": c, "check_in": "2026-05-15", "check_out": "2026-05-18"}),
        st.sampled_from(["London", "Los Angeles", "Paris"]),
    ),
)


def money(value: Any) -> Decimal:
    return Decimal(str(value))


def rooms(state: dict[str, Any]) -> dict[tuple[str, str], int]:
    """Rooms left plus confirmed stays, per hotel and room type."""
    totals = {}
    for hotel_id, hotel in state["hotels"].items():
        for room_type, room in hotel["rooms"].items():
            held = sum(
                1
                for s in state["hotel_stays"].values()
                if s["status"] == "confirmed" and (s["hotel_id"], s["room_type"]) == (hotel_id, room_type)
            )
            totals[(hotel_id, room_type)] = int(room["rooms_available"]) + held
    return totals


def taken(state: dict[str, Any]) -> int:
    """Seats marked taken on the maps minus seats the passengers hold: constant."""
    marked = sum(1 for f in state["flights"].values() for seat in f["seat_map"].values() if seat["occupied"])
    held = sum(len(p["seats"]) for b in state["bookings"].values() for p in b["passengers"])
    return marked - held


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


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPERATIONS, max_size=10))
def test_random_operations_keep_the_world_and_conserve_money_and_seats(
    operations: list[tuple[str, dict[str, Any]]],
) -> None:
    env = make()
    seat_totals, room_totals, unheld = seats(env.state), rooms(env.state), taken(env.state)
    charged, refunded, vouchers, claimed = Decimal("0"), Decimal("0"), Decimal("0"), Decimal("0")
    stay_charged, stay_refunded = Decimal("0"), Decimal("0")
    paid_before = sum(money(b["total_paid"]) for b in env.state["bookings"].values())
    stays_before = sum(money(s["total_paid"]) for s in env.state["hotel_stays"].values())
    for name, args in operations:
        before = copy.deepcopy(env.state)
        call = env.call(name, args)
        assert call.status in ("ok", "rejected"), call.error
        if call.status == "rejected":
            assert env.state == before
            continue
        if name in ("change_flight", "add_checked_bags", "assign_seat"):
            charged += money(args["amount_charged"])
        elif name == "book_hotel":
            stay_charged += money(call.result["total_paid"])
        elif name == "modify_hotel_stay":
            stay_charged += money(args["amount_charged"])
            stay_refunded += money(args["amount_refunded"])
        elif name == "cancel_hotel_stay":
            stay_refunded += money(args["refund_amount"])
        elif name == "file_insurance_claim":
            claimed += money(args["amount"])
        elif name == "cancel_booking":
            refunded += money(args["refund_amount"])
        elif name == "issue_compensation":
            vouchers += money(args["amount"])
        assert env.violations() == []
        assert seats(env.state) == seat_totals
        assert rooms(env.state) == room_totals
        assert taken(env.state) == unheld
    state = env.state
    assert sum(money(b["total_paid"]) for b in state["bookings"].values()) == paid_before + charged
    assert sum(money(b["refunded"]) for b in state["bookings"].values()) == refunded
    compensation = sum(money(c["amount"]) for c in state["credits"].values() if c["kind"] == "compensation")
    assert compensation == vouchers
    assert sum(money(s["total_paid"]) for s in state["hotel_stays"].values()) == stays_before + stay_charged
    assert sum(money(s["refunded"]) for s in state["hotel_stays"].values()) == stay_refunded
    assert sum(money(c["amount"]) for c in state["claims"].values()) == claimed


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
