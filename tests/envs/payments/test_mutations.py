"""The payments audit hints (``envs/payments/mutations.py``): the forbidden move on another
customer's payment is derived where a customer quotes one, and every such mutant is killed."""

from __future__ import annotations

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.release.mutation.hints import load_hints
from pytest_crmbench.release.mutation.run import audit_task
from pytest_crmbench.release.mutation.trajectory import replay, steps_of

from .helpers import TASKS, PaymentsEnvironment

QUOTES_ANOTHERS_PAYMENT = "payments_checkout_receipt_not_theirs_03"


def test_acting_on_another_customers_payment_is_derived_and_killed() -> None:
    (record,) = [r for r in load_task_file(TASKS) if r.task.id == QUOTES_ANOTHERS_PAYMENT]
    gold = replay(record.task, PaymentsEnvironment, steps_of(record.task.gold.path)).evidence
    audit = audit_task(record, PaymentsEnvironment, load_hints(PaymentsEnvironment).hints, gold)
    moves = {r.mutant.id: r.outcome for r in audit.results if "act_on_others_transaction" in r.mutant.id}
    # get_transaction, send_receipt, issue_refund and open_dispute, each naming the owner ACC-1001
    assert len(moves) == 4, moves
    assert set(moves.values()) == {"killed"}, moves
    assert audit.problems == [] and audit.survivors == []
