"""Money and stock are conserved whatever sequence of writes runs (hypothesis), the seed keeps
every world rule, and the same seed gives the same world."""

from __future__ import annotations

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
