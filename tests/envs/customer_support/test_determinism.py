"""Determinism: generated ids, timestamps and the whole state are reproducible from the seed."""

from __future__ import annotations

from pytest_crmbench.env.environment import ToolEnvironment

from .helpers import make, ok


def _script(env: ToolEnvironment) -> list[str]:
    case = ok(
        env,
        "create_case",
        account_id="ACC-5002",
        subject="Suspended for a duplicate VoIP line",
        description="January invoice bills the VoIP bundle twice.",
        case_type="billing",
        priority="urgent",
        entitlement_id="ENT-0042",
    )["case_id"]
    comment = ok(env, "add_comment", account_id="ACC-5002", case_id=case, body="Investigating.")["comment_id"]
    credit = ok(
        env,
        "apply_credit",
        account_id="ACC-5002",
        invoice_id="INV-5002-2601",
        line_id="L3",
        amount=144,
        reason="duplicate line",
        case_id=case,
    )["credit_id"]
    refund = ok(env, "issue_refund", account_id="ACC-5006", payment_id="PAY-5006-0211", amount="69.99", reason="x")
    handoff = ok(env, "handoff_to_human", account_id="ACC-5002", case_id=case, summary="wants a person")
    return [case, comment, credit, refund["refund_id"], handoff["handoff_id"]]


def test_generated_ids_are_reproducible_from_the_seed() -> None:
    one, same, other = _script(make(seed=7)), _script(make(seed=7)), _script(make(seed=8))
    assert one == same
    assert one != other
    assert [i.split("-")[0] for i in one] == ["CS", "CC", "CR", "RF", "HO"]
    first, second = make(seed=7), make(seed=7)
    _script(first), _script(second)
    assert first.state == second.state  # timestamps come from the deterministic clock too
