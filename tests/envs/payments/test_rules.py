"""Business rules the payments tools enforce: each rejection, its code, and an untouched state."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_crmbench.env.environment import clone

from .helpers import make

PENDING_BANK = {
    "payment_methods": {
        "PM-2030": {
            "payment_method_id": "PM-2030",
            "account_id": "ACC-1010",
            "type": "bank_account",
            "status": "pending_verification",
            "bank_name": "Capital One",
            "routing_number": "051405515",
            "last4": "7702",
            "added_on": "2026-03-01",
        }
    }
}

REJECTIONS: list[tuple[str, dict[str, Any], str, dict[str, Any], int, str]] = [
    # (case id, override, tool, args, status, code)
    (
        "transfer-frozen-source",
        {},
        "execute_transfer",
        {"from_account": "ACC-1004", "to_account": "ACC-1001", "amount": 50},
        403,
        "ACCOUNT_FROZEN",
    ),
    (
        "transfer-frozen-destination",
        {},
        "execute_transfer",
        {"from_account": "ACC-1001", "to_account": "ACC-1009", "amount": 50},
        403,
        "ACCOUNT_FROZEN",
    ),
    (
        "transfer-closed-destination",
        {},
        "execute_transfer",
        {"from_account": "ACC-1001", "to_account": "ACC-1003", "amount": 75},
        409,
        "ACCOUNT_CLOSED",
    ),
    (
        "transfer-unknown-account",
        {},
        "execute_transfer",
        {"from_account": "ACC-1006", "to_account": "ACC-1210", "amount": 75},
        404,
        "ACCOUNT_NOT_FOUND",
    ),
    (
        "transfer-same-account",
        {},
        "execute_transfer",
        {"from_account": "ACC-1005", "to_account": "ACC-1005", "amount": 10},
        422,
        "SAME_ACCOUNT",
    ),
    (
        "transfer-insufficient",
        {},
        "execute_transfer",
        {"from_account": "ACC-1002", "to_account": "ACC-1001", "amount": 1000},
        422,
        "INSUFFICIENT_FUNDS",
    ),
    (
        "transfer-insufficient-by-a-cent",
        {},
        "execute_transfer",
        {"from_account": "ACC-1002", "to_account": "ACC-1001", "amount": "180.01"},
        422,
        "INSUFFICIENT_FUNDS",
    ),
    (
        "transfer-over-limit",
        {},
        "execute_transfer",
        {"from_account": "ACC-1005", "to_account": "ACC-1010", "amount": 15000},
        422,
        "AMOUNT_EXCEEDS_LIMIT",
    ),
    (
        "transfer-daily-limit",
        {},
        "execute_transfer",
        {"from_account": "ACC-1011", "to_account": "ACC-1008", "amount": 5500.01},
        422,
        "DAILY_LIMIT_EXCEEDED",
    ),
    (
        "transfer-zero",
        {},
        "execute_transfer",
        {"from_account": "ACC-1001", "to_account": "ACC-1008", "amount": 0},
        422,
        "INVALID_AMOUNT",
    ),
    (
        "transfer-negative",
        {},
        "execute_transfer",
        {"from_account": "ACC-1001", "to_account": "ACC-1008", "amount": "-5"},
        422,
        "INVALID_AMOUNT",
    ),
    (
        "transfer-sub-cent",
        {},
        "execute_transfer",
        {"from_account": "ACC-1001", "to_account": "ACC-1008", "amount": "10.005"},
        422,
        "INVALID_AMOUNT",
    ),
    (
        "pay-expired-card",
        {},
        "process_payment",
        {"account_id": "ACC-1007", "amount": 64, "payment_method_id": "PM-2011", "merchant": "Fresh Bakes"},
        422,
        "PAYMENT_METHOD_EXPIRED",
    ),
    (
        "pay-unverified-bank",
        PENDING_BANK,
        "process_payment",
        {"account_id": "ACC-1010", "amount": 980, "payment_method_id": "PM-2030", "merchant": "Northside"},
        409,
        "PAYMENT_METHOD_UNVERIFIED",
    ),
    (
        "pay-frozen-account",
        {},
        "process_payment",
        {"account_id": "ACC-1009", "amount": 89, "payment_method_id": "PM-2016", "merchant": "CityGym"},
        403,
        "ACCOUNT_FROZEN",
    ),
    (
        "pay-closed-account",
        {},
        "process_payment",
        {"account_id": "ACC-1003", "amount": 5, "payment_method_id": "PM-2005", "merchant": "Shop"},
        409,
        "ACCOUNT_CLOSED",
    ),
    (
        "pay-over-limit",
        {},
        "process_payment",
        {"account_id": "ACC-1005", "amount": 6200, "payment_method_id": "PM-2007", "merchant": "Aurora Jewelers"},
        422,
        "AMOUNT_EXCEEDS_LIMIT",
    ),
    (
        "pay-someone-elses-method",
        {},
        "process_payment",
        {"account_id": "ACC-1002", "amount": 5, "payment_method_id": "PM-2001", "merchant": "Shop"},
        404,
        "PAYMENT_METHOD_NOT_FOUND",
    ),
    (
        "pay-removed-method",
        {"payment_methods": {"PM-2004": {"status": "removed"}}},
        "process_payment",
        {"account_id": "ACC-1002", "amount": 5, "payment_method_id": "PM-2004", "merchant": "Shop"},
        409,
        "PAYMENT_METHOD_INACTIVE",
    ),
    (
        "receipt-email-bounces",
        {},
        "send_receipt",
        {"account_id": "ACC-1006", "transaction_id": "TXN-20260225-0006", "channel": "email"},
        422,
        "EMAIL_UNDELIVERABLE",
    ),
    (
        "receipt-no-phone",
        {},
        "send_receipt",
        {"account_id": "ACC-1010", "transaction_id": "TXN-20260105-0001", "channel": "sms"},
        422,
        "NO_PHONE_ON_FILE",
    ),
    # Payments are bound to their customer: another customer's transaction id is a 403 NOT_OWNER
    # (TXN-20260301-0004 is ACC-1001's), for every tool that acts on or shows a payment.
    (
        "receipt-not-owner",
        {},
        "send_receipt",
        {"account_id": "ACC-1010", "transaction_id": "TXN-20260301-0004", "channel": "email"},
        403,
        "NOT_OWNER",
    ),
    (
        "refund-not-owner",
        {},
        "issue_refund",
        {"account_id": "ACC-1010", "transaction_id": "TXN-20260301-0004", "amount": 1, "reason": "x"},
        403,
        "NOT_OWNER",
    ),
    (
        "dispute-not-owner",
        {},
        "open_dispute",
        {"account_id": "ACC-1010", "transaction_id": "TXN-20260301-0004", "reason": "general", "details": "x"},
        403,
        "NOT_OWNER",
    ),
    (
        "read-not-owner",
        {},
        "get_transaction",
        {"account_id": "ACC-1010", "transaction_id": "TXN-20260301-0004"},
        403,
        "NOT_OWNER",
    ),
    (
        "receipt-unknown-txn",
        {},
        "send_receipt",
        {"account_id": "ACC-1001", "transaction_id": "TXN-NOPE"},
        404,
        "TRANSACTION_NOT_FOUND",
    ),
    (
        "points-twice",
        {},
        "award_loyalty_points",
        {"account_id": "ACC-1008", "transaction_id": "TXN-20260214-0007"},
        409,
        "POINTS_ALREADY_AWARDED",
    ),
    (
        "points-not-owner",
        {},
        "award_loyalty_points",
        {"account_id": "ACC-1002", "transaction_id": "TXN-20260227-0018"},
        403,
        "NOT_OWNER",
    ),
    (
        "points-on-disputed",
        {"transactions": {"TXN-20260227-0018": {"dispute_id": "DSP-000125"}}},
        "award_loyalty_points",
        {"account_id": "ACC-1011", "transaction_id": "TXN-20260227-0018"},
        409,
        "NOT_ELIGIBLE",
    ),
    ("log-twice", {}, "log_transaction", {"transaction_id": "TXN-20260214-0007"}, 409, "ALREADY_LOGGED"),
    (
        "refund-disputed",
        {},
        "issue_refund",
        {"account_id": "ACC-1001", "transaction_id": "TXN-20260118-0009", "amount": 412.30, "reason": "x"},
        409,
        "CHARGE_DISPUTED",
    ),
    (
        "refund-already-refunded",
        {},
        "issue_refund",
        {"account_id": "ACC-1008", "transaction_id": "TXN-20260203-0011", "amount": 1, "reason": "x"},
        409,
        "ALREADY_REFUNDED",
    ),
    (
        "refund-exceeds-remaining",
        {},
        "issue_refund",
        {"account_id": "ACC-1008", "transaction_id": "TXN-20260222-0015", "amount": 260, "reason": "x"},
        422,
        "AMOUNT_EXCEEDS_REMAINING",
    ),
    (
        "refund-window",
        {},
        "issue_refund",
        {"account_id": "ACC-1008", "transaction_id": "TXN-20251120-0002", "amount": 240, "reason": "x"},
        422,
        "REFUND_WINDOW_EXPIRED",
    ),
    (
        "refund-closed-account",
        {"transactions": {"TXN-20260214-0007": {"account_id": "ACC-1003"}}},
        "issue_refund",
        {"account_id": "ACC-1003", "transaction_id": "TXN-20260214-0007", "amount": 5, "reason": "x"},
        409,
        "ACCOUNT_CLOSED",
    ),
    (
        "refund-no-reason",
        {},
        "issue_refund",
        {"account_id": "ACC-1008", "transaction_id": "TXN-20260214-0007", "amount": 5, "reason": "  "},
        422,
        "REASON_REQUIRED",
    ),
    (
        "dispute-refunded",
        {},
        "open_dispute",
        {
            "account_id": "ACC-1008",
            "transaction_id": "TXN-20260203-0011",
            "reason": "product_not_received",
            "details": "x",
        },
        409,
        "ALREADY_REFUNDED",
    ),
    (
        "dispute-twice",
        {},
        "open_dispute",
        {"account_id": "ACC-1001", "transaction_id": "TXN-20260118-0009", "reason": "general", "details": "x"},
        409,
        "DISPUTE_EXISTS",
    ),
    (
        "dispute-window",
        {},
        "open_dispute",
        {
            "account_id": "ACC-1006",
            "transaction_id": "TXN-20251015-0020",
            "reason": "product_not_received",
            "details": "x",
        },
        422,
        "DISPUTE_WINDOW_EXPIRED",
    ),
    ("withdraw-unknown", {}, "withdraw_dispute", {"dispute_id": "DSP-999999", "reason": "x"}, 404, "DISPUTE_NOT_FOUND"),
    (
        "withdraw-closed",
        {"disputes": {"DSP-000124": {"status": "won"}}},
        "withdraw_dispute",
        {"dispute_id": "DSP-000124", "reason": "x"},
        409,
        "DISPUTE_CLOSED",
    ),
    ("freeze-twice", {}, "freeze_account", {"account_id": "ACC-1009", "reason": "lost phone"}, 409, "ALREADY_FROZEN"),
    ("freeze-closed", {}, "freeze_account", {"account_id": "ACC-1003", "reason": "lost phone"}, 409, "ACCOUNT_CLOSED"),
    ("unfreeze-compliance-hold", {}, "unfreeze_account", {"account_id": "ACC-1004"}, 403, "HOLD_NOT_REMOVABLE"),
    ("unfreeze-active", {}, "unfreeze_account", {"account_id": "ACC-1001"}, 409, "NOT_FROZEN"),
    (
        "add-card-number",
        {},
        "add_payment_method",
        {"account_id": "ACC-1002", "method_type": "paypal", "paypal_email": "4111 1111 1111 1111"},
        422,
        "SENSITIVE_DATA_REJECTED",
    ),
    (
        "add-duplicate-paypal",
        {},
        "add_payment_method",
        {"account_id": "ACC-1002", "method_type": "paypal", "paypal_email": "DAN.okafor@example.com"},
        409,
        "DUPLICATE_PAYMENT_METHOD",
    ),
    (
        "add-bad-routing",
        {},
        "add_payment_method",
        {
            "account_id": "ACC-1012",
            "method_type": "bank_account",
            "bank_name": "Frost",
            "routing_number": "1234",
            "account_number": "4400187263",
        },
        422,
        "INVALID_ROUTING_NUMBER",
    ),
    (
        "add-on-frozen",
        {},
        "add_payment_method",
        {"account_id": "ACC-1009", "method_type": "paypal", "paypal_email": "e@example.com"},
        403,
        "ACCOUNT_FROZEN",
    ),
    (
        "remove-default",
        {},
        "remove_payment_method",
        {"account_id": "ACC-1008", "payment_method_id": "PM-2014"},
        409,
        "DEFAULT_PAYMENT_METHOD",
    ),
    (
        "remove-foreign",
        {},
        "remove_payment_method",
        {"account_id": "ACC-1008", "payment_method_id": "PM-2001"},
        404,
        "PAYMENT_METHOD_NOT_FOUND",
    ),
    (
        "default-already",
        {},
        "set_default_payment_method",
        {"account_id": "ACC-1002", "payment_method_id": "PM-2003"},
        409,
        "ALREADY_DEFAULT",
    ),
    (
        "default-expired",
        {"accounts": {"ACC-1007": {"default_payment_method": "PM-2012"}}},
        "set_default_payment_method",
        {"account_id": "ACC-1007", "payment_method_id": "PM-2011"},
        422,
        "PAYMENT_METHOD_EXPIRED",
    ),
    (
        "default-pending",
        {},
        "set_default_payment_method",
        {"account_id": "ACC-1007", "payment_method_id": "PM-2013"},
        409,
        "PAYMENT_METHOD_INACTIVE",
    ),
    ("verify-without-details", {}, "verify_identity", {"account_id": "ACC-1001"}, 422, "MISSING_IDENTITY_DETAILS"),
    ("balance-unknown-account", {}, "get_account_balance", {"account_id": "ACC-9999"}, 404, "ACCOUNT_NOT_FOUND"),
    ("statement-future", {}, "get_statement", {"account_id": "ACC-1001", "month": "2026-04"}, 422, "FUTURE_PERIOD"),
    ("statement-bad-month", {}, "get_statement", {"account_id": "ACC-1001", "month": "Feb"}, 422, "INVALID_MONTH"),
]


@pytest.mark.parametrize(
    ("override", "tool", "args", "status", "code"),
    [case[1:] for case in REJECTIONS],
    ids=[case[0] for case in REJECTIONS],
)
def test_business_rule_rejects_and_leaves_state_unchanged(
    override: dict[str, Any], tool: str, args: dict[str, Any], status: int, code: str
) -> None:
    env = make(override)
    before = clone(env.state)
    call = env.call(tool, args)
    assert call.status == "rejected", call
    assert call.error is not None and (call.error["status"], call.error["code"]) == (status, code)
    assert call.error["message"]
    assert env.state == before


def test_validate_transfer_answers_a_negative_business_result_as_ok() -> None:
    # Spec case A: validate_transfer(amount=1000) returns valid=false, reason Insufficient funds, 422.
    env = make()
    call = env.call("validate_transfer", {"from_account": "ACC-1002", "to_account": "ACC-1001", "amount": 1000})
    assert call.status == "ok"
    assert call.result["valid"] is False
    assert (call.result["reason"], call.result["code"], call.result["error_code"]) == (
        "Insufficient funds",
        422,
        "INSUFFICIENT_FUNDS",
    )
    assert "820.00" in call.result["message"]  # the shortfall


def test_malformed_arguments_are_errors_not_rejections() -> None:
    env = make()
    assert (
        env.call("execute_transfer", {"from_account": "ACC-1001", "to_account": "ACC-1008", "amount": "lots"}).status
        == "error"
    )
    assert (
        env.call(
            "open_dispute",
            {"account_id": "ACC-1008", "transaction_id": "TXN-20260214-0007", "reason": "angry", "details": "x"},
        ).status
        == "error"
    )
    assert env.call("get_account_balance", {"account": "ACC-1001"}).status == "error"


# ----------------------------------------------------------------------------- happy paths
