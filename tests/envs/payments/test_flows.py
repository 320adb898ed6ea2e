"""Happy paths and multi-step journeys through the payments tools (spec cases A and B included)."""

from __future__ import annotations

import json
from decimal import Decimal

from pytest_crmbench.core.evidence import jsonable

from .helpers import code_of, make, ok


def test_spec_case_a_insufficient_then_fifty() -> None:
    env = make(seed=997688223)
    assert ok(env, "get_account_balance", account_id="ACC-1002")["balance"] == Decimal("180.00")
    assert ok(env, "validate_transfer", from_account="ACC-1002", to_account="ACC-1001", amount=1000)["valid"] is False
    assert ok(env, "validate_transfer", from_account="ACC-1002", to_account="ACC-1001", amount=50)["valid"] is True
    result = ok(env, "execute_transfer", from_account="ACC-1002", to_account="ACC-1001", amount=50)
    assert result["transfer_id"].startswith("XFER-")
    assert env.state["accounts"]["ACC-1002"]["balance"] == Decimal("130.00")
    assert env.state["accounts"]["ACC-1001"]["balance"] == Decimal("2500.75")
    assert env.state["transfers"][result["transfer_id"]]["amount"] == Decimal("50.00")


def test_spec_case_b_checkout_chain_and_double_checkout() -> None:
    env = make()
    txn = ok(
        env,
        "process_payment",
        account_id="ACC-1002",
        amount=15.50,
        payment_method_id="PM-2003",
        merchant="Blue Bottle Coffee",
    )["transaction_id"]
    receipt = ok(env, "send_receipt", account_id="ACC-1002", transaction_id=txn)
    assert receipt["destination"] == "dan.okafor@example.com"
    award = ok(env, "award_loyalty_points", account_id="ACC-1002", transaction_id=txn)
    assert (award["points_awarded"], award["loyalty_balance"]) == (155, 155)
    log = ok(env, "log_transaction", transaction_id=txn)
    assert log["receipt_sent"] and log["loyalty_awarded"]
    assert env.state["transactions"][txn]["method_type"] == "paypal"
    assert env.state["accounts"]["ACC-1002"]["cycle_spend"] == Decimal("15.50")
    # Re-running the whole chain (spec case D.2) is a second purchase: loyalty becomes 310.
    txn2 = ok(
        env,
        "process_payment",
        account_id="ACC-1002",
        amount="15.50",
        payment_method_id="PM-2003",
        merchant="Blue Bottle Coffee",
    )["transaction_id"]
    ok(env, "award_loyalty_points", account_id="ACC-1002", transaction_id=txn2)
    assert txn2 != txn
    assert env.state["accounts"]["ACC-1002"]["loyalty_points"] == 310


def test_partial_refunds_reverse_points_and_stop_at_the_captured_amount() -> None:
    env = make()
    first = ok(
        env,
        "issue_refund",
        account_id="ACC-1008",
        transaction_id="TXN-20260214-0007",
        amount=60,
        reason="one lamp returned",
    )
    assert (first["loyalty_points_reversed"], first["transaction_status"]) == (
        600,
        "partially_refunded",
    )
    assert first["refunded_to"] == "PM-2014"
    assert (
        code_of(
            env, "issue_refund", account_id="ACC-1008", transaction_id="TXN-20260214-0007", amount=60.01, reason="x"
        )
        == "AMOUNT_EXCEEDS_REMAINING"
    )
    ok(
        env,
        "issue_refund",
        account_id="ACC-1008",
        transaction_id="TXN-20260214-0007",
        amount="60.00",
        reason="second lamp returned",
    )
    txn = env.state["transactions"]["TXN-20260214-0007"]
    assert (txn["status"], txn["refunded_amount"], txn["loyalty_points"]) == ("refunded", Decimal("120.00"), 0)
    assert env.state["accounts"]["ACC-1008"]["loyalty_points"] == 9115 - 1200
    assert (
        code_of(env, "issue_refund", account_id="ACC-1008", transaction_id="TXN-20260214-0007", amount=1, reason="x")
        == "ALREADY_REFUNDED"
    )
    assert [e["event"] for e in env.state["transaction_log"] if e["transaction_id"] == "TXN-20260214-0007"][-2:] == [
        "refund_issued",
        "refund_issued",
    ]


def test_dispute_blocks_refund_until_withdrawn() -> None:
    env = make()
    dispute = ok(
        env,
        "open_dispute",
        account_id="ACC-1008",
        transaction_id="TXN-20260222-0015",
        reason="product_unacceptable",
        details="broke after a week",
    )
    assert dispute["amount"] == Decimal("249.99")  # only the unrefunded part
    assert env.state["transactions"]["TXN-20260222-0015"]["status"] == "disputed"
    assert (
        code_of(env, "issue_refund", account_id="ACC-1008", transaction_id="TXN-20260222-0015", amount=10, reason="x")
        == "CHARGE_DISPUTED"
    )
    withdrawn = ok(env, "withdraw_dispute", dispute_id=dispute["dispute_id"], reason="merchant agreed to refund")
    assert withdrawn["transaction_status"] == "partially_refunded"
    ok(env, "issue_refund", account_id="ACC-1008", transaction_id="TXN-20260222-0015", amount=249.99, reason="returned")
    assert env.state["transactions"]["TXN-20260222-0015"]["status"] == "refunded"


def test_freeze_blocks_money_movement_but_not_refunds_and_customer_can_lift_it() -> None:
    env = make()
    frozen = ok(env, "freeze_account", account_id="ACC-1005", reason="lost phone")
    assert frozen["freeze"]["frozen_by"] == "customer"
    assert (
        code_of(env, "execute_transfer", from_account="ACC-1005", to_account="ACC-1001", amount=1) == "ACCOUNT_FROZEN"
    )
    assert code_of(env, "remove_payment_method", account_id="ACC-1005", payment_method_id="PM-2008") == "ACCOUNT_FROZEN"
    ok(
        env,
        "issue_refund",
        account_id="ACC-1005",
        transaction_id="TXN-20260212-0008",
        amount=766.67,
        reason="night not stayed",
    )
    assert env.state["accounts"]["ACC-1005"]["loyalty_points"] == 42300 - 7667
    ok(env, "unfreeze_account", account_id="ACC-1005")
    assert (
        env.state["accounts"]["ACC-1005"]["status"] == "active" and env.state["accounts"]["ACC-1005"]["freeze"] is None
    )


def test_payment_methods_lifecycle() -> None:
    env = make()
    bank = ok(
        env,
        "add_payment_method",
        account_id="ACC-1012",
        method_type="bank_account",
        bank_name="Frost Bank",
        routing_number="114000093",
        account_number="4400187263",
    )
    assert (bank["status"], bank["last4"]) == ("pending_verification", "7263")
    assert "4400187263" not in json.dumps(jsonable(env.state))  # only the last 4 digits are kept
    assert (
        code_of(
            env,
            "process_payment",
            account_id="ACC-1012",
            amount=5,
            payment_method_id=bank["payment_method_id"],
            merchant="x",
        )
        == "PAYMENT_METHOD_UNVERIFIED"
    )
    ok(env, "set_default_payment_method", account_id="ACC-1012", payment_method_id="PM-2021")
    ok(env, "remove_payment_method", account_id="ACC-1012", payment_method_id="PM-2020")
    listed = ok(env, "list_payment_methods", account_id="ACC-1012")["payment_methods"]
    assert {m["payment_method_id"] for m in listed} == {"PM-2021", bank["payment_method_id"]}
    assert [m["payment_method_id"] for m in listed if m["is_default"]] == ["PM-2021"]
    assert all("routing_number" not in m for m in listed)


def test_identity_check_reveals_only_whether_details_match() -> None:
    env = make()
    assert ok(env, "verify_identity", account_id="ACC-1010", full_name="  grace   LIU ")["verified"] is True
    answer = ok(env, "verify_identity", account_id="ACC-1010", full_name="Grace Lee", email="grace.lee@example.com")
    assert answer["verified"] is False
    assert "grace.liu@example.com" not in json.dumps(jsonable(answer))
    assert (
        ok(env, "verify_identity", account_id="ACC-1010", full_name="Grace Liu", email="wrong@example.com")["verified"]
        is False
    )


def test_statement_balances_reconcile_with_the_live_balance() -> None:
    env = make()
    ok(env, "execute_transfer", from_account="ACC-1008", to_account="ACC-1001", amount=49.25)
    feb = ok(env, "get_statement", account_id="ACC-1001", month="2026-02")
    mar = ok(env, "get_statement", account_id="ACC-1001", month="2026-03")
    assert mar["opening_balance"] == feb["closing_balance"] == Decimal("2000.75")
    assert mar["closing_balance"] == env.state["accounts"]["ACC-1001"]["balance"] == Decimal("2500.00")
    for statement in (feb, mar):
        assert (
            statement["opening_balance"] + statement["transfers_in"] - statement["transfers_out"]
            == statement["closing_balance"]
        )
    assert feb["payments_total"] == Decimal("23.15") and mar["transfers_in"] == Decimal("499.25")


def test_daily_limit_counts_todays_transfers_only() -> None:
    env = make()
    assert ok(env, "get_account_balance", account_id="ACC-1011")["transfer_allowance_remaining_today"] == Decimal(
        "5500.00"
    )
    ok(env, "execute_transfer", from_account="ACC-1011", to_account="ACC-1008", amount=3000)
    assert (
        ok(env, "validate_transfer", from_account="ACC-1011", to_account="ACC-1005", amount=3000)["error_code"]
        == "DAILY_LIMIT_EXCEEDED"
    )
    ok(env, "execute_transfer", from_account="ACC-1011", to_account="ACC-1005", amount=2500)
    assert ok(env, "get_account_balance", account_id="ACC-1011")["transfer_allowance_remaining_today"] == Decimal(
        "0.00"
    )


def test_tool_results_are_copies_not_live_state() -> None:
    env = make()
    txn = ok(env, "get_transaction", account_id="ACC-1008", transaction_id="TXN-20260214-0007")
    txn["refund_ids"].append("RFD-FAKE")
    dispute = ok(env, "get_dispute", dispute_id="DSP-000123")
    dispute["status"] = "won"
    assert env.state["transactions"]["TXN-20260214-0007"]["refund_ids"] == []
    assert env.state["disputes"]["DSP-000123"]["status"] == "under_review"
