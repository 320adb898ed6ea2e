"""Determinism: generated ids, timestamps and whole gold replays are reproducible from the seed."""

from __future__ import annotations

from pytest_crmbench.env.environment import ToolEnvironment

from .helpers import make, ok


def _script(env: ToolEnvironment) -> list[str]:
    ids = [ok(env, "execute_transfer", from_account="ACC-1001", to_account="ACC-1008", amount=10)["transfer_id"]]
    txn = ok(
        env, "process_payment", account_id="ACC-1012", amount=8.75, payment_method_id="PM-2020", merchant="Bean & Leaf"
    )["transaction_id"]
    ids += [
        txn,
        ok(env, "send_receipt", account_id="ACC-1012", transaction_id=txn)["receipt_id"],
        ok(env, "issue_refund", account_id="ACC-1012", transaction_id=txn, amount=1, reason="x")["refund_id"],
    ]
    ids.append(
        ok(env, "open_dispute", account_id="ACC-1012", transaction_id=txn, reason="general", details="x")["dispute_id"]
    )
    return ids


def test_generated_ids_are_reproducible_from_the_seed() -> None:
    one, same, other = _script(make(seed=11)), _script(make(seed=11)), _script(make(seed=12))
    assert one == same
    assert one != other
    assert [i.split("-")[0] for i in one] == ["XFER", "TXN", "RCPT", "RFD", "DSP"]
    first, second = make(seed=11), make(seed=11)
    _script(first), _script(second)
    assert first.state == second.state  # timestamps come from the deterministic clock too
