"""Money and stock are conserved whatever sequence of writes runs (hypothesis), the seed keeps
every world rule, and the same seed gives the same world."""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_crmbench.core.loader import load_task_file

from .helpers import TASKS, make, ok

STORES = ("STR-BOS", "STR-CAM")
VARIANTS = ("VAR-JKT-M-NVY", "VAR-JKT-L-NVY", "VAR-BOOT-9", "VAR-MUG-12")


def stock(state: dict[str, Any]) -> dict[str, int]:
    return {v: sum(int(s["inventory"].get(v, 0)) for s in state["stores"].values()) for v in VARIANTS}


def test_the_seed_and_every_task_start_keep_the_world_rules() -> None:
    assert make().violations() == []
    for record in load_task_file(TASKS):
        assert make(record.task.initial_state).violations() == [], record.task.id


transfer = st.tuples(
    st.just("transfer"), st.sampled_from(STORES), st.sampled_from(STORES), st.sampled_from(VARIANTS), st.integers(-1, 9)
)
returning = st.tuples(
    st.just("return"),
    st.sampled_from(["L1", "L2"]),
    st.integers(0, 2),
    st.sampled_from(["0", "10.00", "24.00", "30"]),
    st.sampled_from(["original", "store_credit"]),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(transfer, returning), max_size=8))
def test_units_and_money_are_conserved(operations: list[tuple[Any, ...]]) -> None:
    env = make()
    units = stock(env.state)
    for op in operations:
        if op[0] == "transfer":
            _, source, target, variant, quantity = op
            env.call(
                "transfer_inventory",
                {
                    "employee_id": "EMP-201",
                    "from_store": source,
                    "to_store": target,
                    "variant_id": variant,
                    "quantity": quantity,
                },
            )
        else:
            _, line, quantity, fee, method = op
            env.call(
                "create_return",
                {
                    "customer_id": "CUS-1001",
                    "order_id": "ORD-1001",
                    "line_id": line,
                    "quantity": quantity,
                    "condition": "opened",
                    "restocking_fee": fee,
                    "refund_method": method,
                },
            )
        assert env.violations() == []
        assert stock(env.state) == units
    credited = sum(Decimal(r["amount"]) for r in env.state["refunds"].values() if r["method"] == "store_credit")
    assert Decimal(env.state["customers"]["CUS-1001"]["store_credit"]) == credited


def run(seed: int) -> dict[str, Any]:
    env = make(seed=seed)
    ok(
        env,
        "create_return",
        customer_id="CUS-1001",
        order_id="ORD-1001",
        line_id="L1",
        quantity=1,
        condition="opened",
        restocking_fee="24.00",
    )
    ok(
        env,
        "transfer_inventory",
        employee_id="EMP-301",
        from_store="STR-BOS",
        to_store="STR-CAM",
        variant_id="VAR-MUG-12",
        quantity=2,
    )
    return env.state


def test_the_same_seed_gives_the_same_world_and_another_seed_other_ids() -> None:
    assert run(7) == run(7)
    assert set(run(1)["refunds"]) != set(run(2)["refunds"])


exchange = st.tuples(
    st.just("exchange"),
    st.sampled_from(["L1", "L2"]),
    st.sampled_from(["VAR-JKT-L-NVY", "VAR-JKT-M-RED", "VAR-BOOT-10W", "VAR-BOOT-9", "VAR-TENT-3P"]),
    st.integers(0, 2),
    st.sampled_from(["-10", "0", "15", "30", "-20"]),
    st.sampled_from(["original", "store_credit"]),
)
chloe_return = st.tuples(
    st.just("return"),
    st.sampled_from(["L1", "L2"]),
    st.integers(0, 2),
    st.sampled_from(["0", "20.85", "24.00"]),
    st.sampled_from(["original", "store_credit"]),
)
redeem = st.tuples(st.just("redeem"), st.sampled_from([0, 100, 250, 500, 600]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(exchange, chloe_return, redeem), max_size=8))
def test_store_credit_and_online_stock_follow_the_records(operations: list[tuple[Any, ...]]) -> None:
    """Chloe's store credit moves only by her store-credit refunds, store-credit exchanges and
    redeemed points; online stock falls only by the units exchanges sent."""
    env = make()
    customer = {"customer_id": "CUS-1005"}
    order = {**customer, "order_id": "ORD-1008"}
    for op in operations:
        if op[0] == "exchange":
            _, line, variant, quantity, difference, settlement = op
            args = {"line_id": line, "quantity": quantity, "new_variant_id": variant}
            env.call("exchange_item", {**order, **args, "price_difference": difference, "settlement": settlement})
        elif op[0] == "return":
            _, line, quantity, fee, method = op
            args = {"line_id": line, "quantity": quantity, "condition": "opened", "restocking_fee": fee}
            env.call("create_return", {**order, **args, "refund_method": method})
        else:
            env.call("redeem_loyalty_points", {**customer, "points": op[1]})
        assert env.violations() == []
    state = env.state
    credited = sum(Decimal(r["amount"]) for r in state["refunds"].values() if r["method"] == "store_credit")
    charged = sum(
        Decimal(e["price_difference"]) for e in state["exchanges"].values() if e["settlement"] == "store_credit"
    )
    redeemed = -sum(e["points"] for e in state["points_ledger"])
    assert redeemed == 560 - state["customers"]["CUS-1005"]["loyalty_points"]
    expected = Decimal("40.00") + credited - charged + Decimal("5.00") * (redeemed // 100)
    assert Decimal(state["customers"]["CUS-1005"]["store_credit"]) == expected
    seed = make().state["stores"]["STR-WEB"]["inventory"]
    for variant, units in state["stores"]["STR-WEB"]["inventory"].items():
        sent = sum(e["quantity"] for e in state["exchanges"].values() if e["to_variant"] == variant)
        assert units == seed[variant] - sent


def test_a_reset_gives_a_fresh_world_and_reads_change_nothing() -> None:
    env = make()
    before = copy.deepcopy(env.state)
    for name, args in [
        ("get_customer", {"customer_id": "CUS-1003"}),
        ("get_order", {"customer_id": "CUS-1003", "order_id": "ORD-1005"}),
        ("list_variants", {"product": "fleece"}),
        ("get_gift_card", {"customer_id": "CUS-1003", "gift_card_id": "GC-5520"}),
        ("get_inventory", {"variant_id": "VAR-FLC-M-BLK"}),
        ("verify_customer", {"customer_id": "CUS-1003", "email": "maria.lopez@example.com"}),
    ]:
        ok(env, name, **args)
    assert env.state == before
    ok(env, "redeem_loyalty_points", customer_id="CUS-1004", points=100)
    assert make().state == before


def test_each_world_rule_can_fail() -> None:
    broken: list[dict[str, Any]] = [
        {"orders": {"ORD-1005": {"gift_card_id": "GC-0000"}}},
        {"orders": {"ORD-1002": {"status": "delivered"}}},
        {"gift_cards": {"GC-6180": {"status": "disabled"}}},
        {"settings": {"exchange_store": "STR-NYC"}},
        {"stores": {"STR-BOS": {"inventory": {"VAR-BOOT-9": -1}}}},
    ]
    for override in broken:
        assert make(override).violations() != [], override
