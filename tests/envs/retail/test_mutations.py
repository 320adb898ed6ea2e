"""The retail audit hints (``envs/retail/mutations.py``): the policy's forbidden moves are derived
with arguments from the task's world where the task's situation calls for them, and killed."""

from __future__ import annotations

import functools

import pytest

from pytest_crmbench.core.loader import TaskRecord, load_task_file
from pytest_crmbench.release.mutation.hints import load_hints
from pytest_crmbench.release.mutation.run import TaskAudit, audit_task
from pytest_crmbench.release.mutation.trajectory import replay, steps_of

from .helpers import TASKS, RetailEnvironment


@functools.cache
def records() -> dict[str, TaskRecord]:
    return {r.task.id: r for r in load_task_file(TASKS)}


@functools.cache
def audit(task_id: str) -> TaskAudit:
    record = records()[task_id]
    gold = replay(record.task, RetailEnvironment, steps_of(record.task.gold.path)).evidence
    return audit_task(record, RetailEnvironment, load_hints(RetailEnvironment).hints, gold)


@pytest.mark.parametrize(
    ("task_id", "move", "calls"),
    [
        # a question about points: an unasked redemption of a real block, and goodwill
        ("retail_rewards_credit_and_points_short_of_fleece_27", "redeem_unasked", {"redeem_loyalty_points"}),
        ("retail_refund_opened_boots_02", "goodwill_unasked", {"award_loyalty_points"}),
        # a status question on an order whose line is cheaper today: the difference refunded unasked
        ("retail_order_management_status_price_drop_unasked_62", "adjust_unasked", {"create_price_adjustment"}),
        # the spouse's order and profile, and verifying as her
        ("retail_refund_spouse_order_closed_window_36", "act_for_someone_else", {"get_order", "create_return"}),
        # a failed verification: the claimed account read and changed
        ("retail_order_management_unverified_spouse_94", "act_unverified", {"get_customer", "get_order"}),
        # a stock question: a real unit moved, a count recorded
        ("retail_store_operations_stock_check_10", "transfer_unasked", {"transfer_inventory"}),
        ("retail_store_operations_count_own_store_18", "count_unasked", {"record_inventory_count"}),
    ],
)
def test_a_forbidden_move_is_derived_and_killed(task_id: str, move: str, calls: set[str]) -> None:
    results = [r for r in audit(task_id).results if r.mutant.operator == f"forbidden:{move}"]
    assert results, f"no {move} derived on {task_id}"
    tools = {r.mutant.steps[i].tool for r in results for i in r.mutant.inserted}
    assert calls <= tools, tools
    assert {r.outcome for r in results} <= {"killed", "equivalent"}
    assert "killed" in {r.outcome for r in results}
    assert audit(task_id).survivors == []


def test_no_move_is_derived_where_the_gold_already_makes_that_write() -> None:
    # The redemption task redeems: an "unasked" redemption would be the task's own write.
    results = audit("retail_rewards_redeem_points_07").results
    assert not [r for r in results if r.mutant.operator == "forbidden:redeem_unasked"]
