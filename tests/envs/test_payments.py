"""The payments environment: seed data, business rules, happy paths, invariants, determinism.

Every call goes through ``env.call(name, args)``, the entry point models use.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import ROUND_FLOOR, Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_crmbench.core.evidence import jsonable
from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.env.environment import ToolEnvironment, clone
from pytest_crmbench.env.registry import discover
from pytest_crmbench.release.manifest import load_manifest
from pytest_crmbench.release.replay import gold_problems
from pytest_crmbench.release.sufficiency import information_problems

ROOT = Path(__file__).parents[2]
ENV_DIR = ROOT / "envs"
SEED = ENV_DIR / "payments" / "seed.json"
TASKS = ROOT / "tasks" / "payments.yaml"
GRAPH = ROOT / "agents" / "payments.yaml"

PaymentsEnvironment: type[ToolEnvironment] = discover([ENV_DIR])["payments"]


def make(override: dict[str, Any] | None = None, seed: int = 0) -> ToolEnvironment:
    return PaymentsEnvironment(override or {}, seed=seed)


def ok(env: ToolEnvironment, name: str, **args: Any) -> Any:
    call = env.call(name, args)
    assert call.status == "ok", f"{name}({args}) -> {call.status}: {call.error}"
    return call.result


def code_of(env: ToolEnvironment, name: str, **args: Any) -> str | None:
    """The rejection code of a call, or None when it was not rejected."""
    call = env.call(name, args)
    return str(call.error["code"]) if call.status == "rejected" and call.error else None


def floor_points(amount: Decimal) -> int:
    return int((amount * 10).to_integral_value(rounding=ROUND_FLOOR))


def walk(tree: Any) -> Iterator[Any]:
    if isinstance(tree, dict):
        for value in tree.values():
            yield from walk(value)
    elif isinstance(tree, list):
        for value in tree:
            yield from walk(value)
    else:
        yield tree


# ----------------------------------------------------------------------------- seed and schema


def test_seed_validates_against_the_data_model() -> None:
    from crmbench_envs.payments.data_model import PaymentsState  # type: ignore[import-not-found]  # imported by discover()

    raw = json.loads(SEED.read_text(encoding="utf-8"), parse_float=Decimal)
    state = PaymentsState.model_validate(raw)
    assert state.accounts["ACC-1001"].balance == Decimal("2450.75")
    assert state.accounts["ACC-1002"].balance == Decimal("180.00")
    assert state.accounts["ACC-1002"].loyalty_points == 0
    assert {a.status for a in state.accounts.values()} == {"active", "frozen", "closed"}
    PaymentsState.model_validate(make().state)  # the normalised default state too


def test_seed_is_internally_consistent() -> None:
    state = make().state
    for txn_id, txn in state["transactions"].items():
        assert txn["transaction_id"] == txn_id
        method = state["payment_methods"][txn["payment_method_id"]]
        assert method["account_id"] == txn["account_id"] and method["type"] == txn["method_type"]
        assert txn["refunded_amount"] <= txn["amount"]
        assert (
            sum((state["refunds"][r]["amount"] for r in txn["refund_ids"]), Decimal("0.00")) == txn["refunded_amount"]
        )
        expected_points = floor_points(txn["amount"] - txn["refunded_amount"]) if txn["loyalty_awarded"] else 0
        assert txn["loyalty_points"] == expected_points, txn_id
        assert txn["status"] == PaymentsEnvironment._derive_status(txn, state["disputes"]), txn_id  # type: ignore[attr-defined]
    for account_id, account in state["accounts"].items():
        held = sum(t["loyalty_points"] for t in state["transactions"].values() if t["account_id"] == account_id)
        assert account["loyalty_points"] >= held, account_id
        assert account["default_payment_method"] in (None, *state["payment_methods"])
        assert (account["status"] == "frozen") == (account["freeze"] is not None)
    for dispute in state["disputes"].values():
        assert state["transactions"][dispute["transaction_id"]]["dispute_id"] == dispute["dispute_id"]


def test_money_is_decimal_cents_and_never_float() -> None:
    state = make({"accounts": {"ACC-1002": {"balance": 180.5}}, "settings": {"per_transfer_limit": "10000"}}).state
    assert not any(isinstance(value, float) for value in walk(state))
    assert state["accounts"]["ACC-1002"]["balance"] == Decimal("180.50")
    assert state["accounts"]["ACC-1002"]["balance"].as_tuple().exponent == -2
    assert state["settings"]["per_transfer_limit"] == Decimal("10000.00")


def test_every_tool_is_documented_for_the_model() -> None:
    for spec in PaymentsEnvironment.tool_schemas():
        function = spec["function"]
        assert len(function["description"]) > 30, function["name"]
        for name, prop in function["parameters"]["properties"].items():
            assert prop.get("description"), f"{function['name']}.{name} has no Args: entry"


def test_default_state_is_cached_and_each_environment_gets_its_own_copy() -> None:
    first, second = make(), make()
    ok(first, "execute_transfer", from_account="ACC-1001", to_account="ACC-1008", amount=100)
    assert second.state["accounts"]["ACC-1001"]["balance"] == Decimal("2450.75")
    assert PaymentsEnvironment.cached_default_state()["accounts"]["ACC-1001"]["balance"] == Decimal("2450.75")
    assert first.initial_state["accounts"]["ACC-1001"]["balance"] == Decimal("2450.75")


# ----------------------------------------------------------------------------- rejections

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
        {"transaction_id": "TXN-20260225-0006", "channel": "email"},
        422,
        "EMAIL_UNDELIVERABLE",
    ),
    (
        "receipt-no-phone",
        {},
        "send_receipt",
        {"transaction_id": "TXN-20260105-0001", "channel": "sms"},
        422,
        "NO_PHONE_ON_FILE",
    ),
    ("receipt-unknown-txn", {}, "send_receipt", {"transaction_id": "TXN-NOPE"}, 404, "TRANSACTION_NOT_FOUND"),
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
        {"transaction_id": "TXN-20260118-0009", "amount": 412.30, "reason": "x"},
        409,
        "CHARGE_DISPUTED",
    ),
    (
        "refund-already-refunded",
        {},
        "issue_refund",
        {"transaction_id": "TXN-20260203-0011", "amount": 1, "reason": "x"},
        409,
        "ALREADY_REFUNDED",
    ),
    (
        "refund-exceeds-remaining",
        {},
        "issue_refund",
        {"transaction_id": "TXN-20260222-0015", "amount": 260, "reason": "x"},
        422,
        "AMOUNT_EXCEEDS_REMAINING",
    ),
    (
        "refund-window",
        {},
        "issue_refund",
        {"transaction_id": "TXN-20251120-0002", "amount": 240, "reason": "x"},
        422,
        "REFUND_WINDOW_EXPIRED",
    ),
    (
        "refund-closed-account",
        {"transactions": {"TXN-20260214-0007": {"account_id": "ACC-1003"}}},
        "issue_refund",
        {"transaction_id": "TXN-20260214-0007", "amount": 5, "reason": "x"},
        409,
        "ACCOUNT_CLOSED",
    ),
    (
        "refund-no-reason",
        {},
        "issue_refund",
        {"transaction_id": "TXN-20260214-0007", "amount": 5, "reason": "  "},
        422,
        "REASON_REQUIRED",
    ),
    (
        "dispute-refunded",
        {},
        "open_dispute",
        {"transaction_id": "TXN-20260203-0011", "reason": "product_not_received", "details": "x"},
        409,
        "ALREADY_REFUNDED",
    ),
    (
        "dispute-twice",
        {},
        "open_dispute",
        {"transaction_id": "TXN-20260118-0009", "reason": "general", "details": "x"},
        409,
        "DISPUTE_EXISTS",
    ),
    (
        "dispute-window",
        {},
        "open_dispute",
        {"transaction_id": "TXN-20251015-0020", "reason": "product_not_received", "details": "x"},
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
        env.call("open_dispute", {"transaction_id": "TXN-20260214-0007", "reason": "angry", "details": "x"}).status
        == "error"
    )
    assert env.call("get_account_balance", {"account": "ACC-1001"}).status == "error"


# ----------------------------------------------------------------------------- happy paths


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
    receipt = ok(env, "send_receipt", transaction_id=txn)
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
    first = ok(env, "issue_refund", transaction_id="TXN-20260214-0007", amount=60, reason="one lamp returned")
    assert (first["remaining_refundable"], first["loyalty_points_reversed"], first["transaction_status"]) == (
        Decimal("60.00"),
        600,
        "partially_refunded",
    )
    assert first["refunded_to"] == "PM-2014"
    assert (
        code_of(env, "issue_refund", transaction_id="TXN-20260214-0007", amount=60.01, reason="x")
        == "AMOUNT_EXCEEDS_REMAINING"
    )
    ok(env, "issue_refund", transaction_id="TXN-20260214-0007", amount="60.00", reason="second lamp returned")
    txn = env.state["transactions"]["TXN-20260214-0007"]
    assert (txn["status"], txn["refunded_amount"], txn["loyalty_points"]) == ("refunded", Decimal("120.00"), 0)
    assert env.state["accounts"]["ACC-1008"]["loyalty_points"] == 9115 - 1200
    assert code_of(env, "issue_refund", transaction_id="TXN-20260214-0007", amount=1, reason="x") == "ALREADY_REFUNDED"
    assert [e["event"] for e in env.state["transaction_log"] if e["transaction_id"] == "TXN-20260214-0007"][-2:] == [
        "refund_issued",
        "refund_issued",
    ]


def test_dispute_blocks_refund_until_withdrawn() -> None:
    env = make()
    dispute = ok(
        env,
        "open_dispute",
        transaction_id="TXN-20260222-0015",
        reason="product_unacceptable",
        details="broke after a week",
    )
    assert dispute["amount"] == Decimal("249.99")  # only the unrefunded part
    assert env.state["transactions"]["TXN-20260222-0015"]["status"] == "disputed"
    assert code_of(env, "issue_refund", transaction_id="TXN-20260222-0015", amount=10, reason="x") == "CHARGE_DISPUTED"
    withdrawn = ok(env, "withdraw_dispute", dispute_id=dispute["dispute_id"], reason="merchant agreed to refund")
    assert withdrawn["transaction_status"] == "partially_refunded"
    ok(env, "issue_refund", transaction_id="TXN-20260222-0015", amount=249.99, reason="returned")
    assert env.state["transactions"]["TXN-20260222-0015"]["status"] == "refunded"


def test_freeze_blocks_money_movement_but_not_refunds_and_customer_can_lift_it() -> None:
    env = make()
    frozen = ok(env, "freeze_account", account_id="ACC-1005", reason="lost phone")
    assert frozen["freeze"]["frozen_by"] == "customer"
    assert (
        code_of(env, "execute_transfer", from_account="ACC-1005", to_account="ACC-1001", amount=1) == "ACCOUNT_FROZEN"
    )
    assert code_of(env, "remove_payment_method", account_id="ACC-1005", payment_method_id="PM-2008") == "ACCOUNT_FROZEN"
    ok(env, "issue_refund", transaction_id="TXN-20260212-0008", amount=766.67, reason="night not stayed")
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
    txn = ok(env, "get_transaction", transaction_id="TXN-20260214-0007")
    txn["refund_ids"].append("RFD-FAKE")
    dispute = ok(env, "get_dispute", dispute_id="DSP-000123")
    dispute["status"] = "won"
    assert env.state["transactions"]["TXN-20260214-0007"]["refund_ids"] == []
    assert env.state["disputes"]["DSP-000123"]["status"] == "under_review"


# ----------------------------------------------------------------------------- determinism


def _script(env: ToolEnvironment) -> list[str]:
    ids = [ok(env, "execute_transfer", from_account="ACC-1001", to_account="ACC-1008", amount=10)["transfer_id"]]
    txn = ok(
        env, "process_payment", account_id="ACC-1012", amount=8.75, payment_method_id="PM-2020", merchant="Bean & Leaf"
    )["transaction_id"]
    ids += [
        txn,
        ok(env, "send_receipt", transaction_id=txn)["receipt_id"],
        ok(env, "issue_refund", transaction_id=txn, amount=1, reason="x")["refund_id"],
    ]
    ids.append(ok(env, "open_dispute", transaction_id=txn, reason="general", details="x")["dispute_id"])
    return ids


def test_generated_ids_are_reproducible_from_the_seed() -> None:
    one, same, other = _script(make(seed=11)), _script(make(seed=11)), _script(make(seed=12))
    assert one == same
    assert one != other
    assert [i.split("-")[0] for i in one] == ["XFER", "TXN", "RCPT", "RFD", "DSP"]
    first, second = make(seed=11), make(seed=11)
    _script(first), _script(second)
    assert first.state == second.state  # timestamps come from the deterministic clock too


# ----------------------------------------------------------------------------- invariants (hypothesis)

ACCOUNTS = [f"ACC-{n}" for n in range(1001, 1013)] + ["ACC-1999"]
AMOUNTS = st.one_of(
    st.decimals(min_value=Decimal("-50"), max_value=Decimal("16000"), places=2, allow_nan=False, allow_infinity=False),
    st.decimals(min_value=Decimal("0.01"), max_value=Decimal("700"), places=2, allow_nan=False, allow_infinity=False),
    # edges: zero, sub-cent, just over the limits, exactly and just over small balances (ACC-1002, ACC-1012)
    st.sampled_from(["0", "0.001", "10000.01", "5000.01", "180.00", "180.01", "48.20", "48.21", "96.40"]).map(Decimal),
)
SEED_TXNS = sorted(json.loads(SEED.read_text(encoding="utf-8"))["transactions"])
DISPUTE_REASONS = ["fraudulent", "duplicate", "general", "product_not_received"]


@st.composite
def operations(draw: st.DrawFn) -> list[tuple[str, Any]]:
    ops = []
    for _ in range(draw(st.integers(1, 25))):
        kind = draw(
            st.sampled_from(["transfer", "validate", "pay", "refund", "award", "dispute", "withdraw", "freeze"])
        )
        ops.append(
            (
                kind,
                (
                    draw(st.sampled_from(ACCOUNTS)),
                    draw(st.sampled_from(ACCOUNTS)),
                    str(draw(AMOUNTS)),
                    draw(st.integers(0, 10_000)),
                ),
            )
        )
    return ops


def _method_of(env: ToolEnvironment, account_id: str, pick: int) -> str:
    methods: list[str] = sorted(
        m for m, v in env.state["payment_methods"].items() if v["account_id"] == account_id
    ) or ["PM-0000"]
    return methods[pick % len(methods)]


def _txn_of(env: ToolEnvironment, pick: int) -> str:
    txns: list[str] = SEED_TXNS + sorted(t for t in env.state["transactions"] if t not in SEED_TXNS)
    return txns[pick % len(txns)]


def _apply(
    env: ToolEnvironment, kind: str, source: str, target: str, amount: str, pick: int
) -> tuple[str, dict[str, Any]]:
    if kind in ("transfer", "validate"):
        if (
            pick % 3 == 0 and source in env.state["accounts"]
        ):  # probe the funds boundary: the whole balance, or a cent more
            amount = str(env.state["accounts"][source]["balance"] + Decimal("0.01") * (pick % 2))
        return ("execute_transfer" if kind == "transfer" else "validate_transfer"), {
            "from_account": source,
            "to_account": target,
            "amount": amount,
        }
    if kind == "pay":
        return "process_payment", {
            "account_id": source,
            "amount": amount,
            "payment_method_id": _method_of(env, source, pick),
            "merchant": "Hypothesis Shop",
        }
    if kind == "refund":
        return "issue_refund", {"transaction_id": _txn_of(env, pick), "amount": amount, "reason": "property test"}
    if kind == "award":
        txn = _txn_of(env, pick)
        return "award_loyalty_points", {
            "account_id": env.state["transactions"][txn]["account_id"],
            "transaction_id": txn,
        }
    if kind == "dispute":
        return "open_dispute", {
            "transaction_id": _txn_of(env, pick),
            "reason": DISPUTE_REASONS[pick % 4],
            "details": "property test",
        }
    if kind == "withdraw":
        disputes = sorted(env.state["disputes"]) or ["DSP-NONE"]
        return "withdraw_dispute", {"dispute_id": disputes[pick % len(disputes)], "reason": "property test"}
    return ("unfreeze_account" if pick % 2 else "freeze_account"), (
        {"account_id": source} if pick % 2 else {"account_id": source, "reason": "property test"}
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations(), seed=st.integers(0, 2**32 - 1))
def test_random_operation_sequences_keep_the_books_balanced(ops: list[tuple[str, Any]], seed: int) -> None:
    env = make(seed=seed)
    initial = clone(env.state)
    total = sum(a["balance"] for a in initial["accounts"].values())
    for kind, (source, target, amount, pick) in ops:
        name, args = _apply(env, kind, source, target, amount, pick)
        before = clone(env.state)
        call = env.call(name, args)
        assert call.status in ("ok", "rejected"), call
        if call.status == "rejected":
            assert env.state == before, f"rejected {name} changed the state"
        if name == "validate_transfer":  # validation and execution agree on every input
            probe = make(seed=seed)
            probe.state = clone(env.state)
            executed = probe.call("execute_transfer", args)
            assert (executed.status == "ok") == call.result["valid"]
            if not call.result["valid"]:
                assert executed.error is not None and executed.error["code"] == call.result["error_code"]
        state = env.state
        # money is conserved across transfers (nothing else touches balances) and never negative
        assert sum(a["balance"] for a in state["accounts"].values()) == total
        assert all(a["balance"] >= 0 for a in state["accounts"].values())
        assert not any(isinstance(v, float) for v in walk(state))
        for txn_id, txn in state["transactions"].items():
            # refunds never exceed the captured amount and add up
            assert Decimal("0") <= txn["refunded_amount"] <= txn["amount"]
            assert (
                sum((state["refunds"][r]["amount"] for r in txn["refund_ids"]), Decimal("0.00"))
                == txn["refunded_amount"]
            )
            # a payment's points are floor(10 x unrefunded amount) once awarded
            assert txn["loyalty_points"] == (
                floor_points(txn["amount"] - txn["refunded_amount"]) if txn["loyalty_awarded"] else 0
            ), txn_id
        for account_id, account in state["accounts"].items():
            held_now = sum(t["loyalty_points"] for t in state["transactions"].values() if t["account_id"] == account_id)
            held_before = sum(
                t["loyalty_points"] for t in initial["transactions"].values() if t["account_id"] == account_id
            )
            assert (
                account["loyalty_points"] - initial["accounts"][account_id]["loyalty_points"] == held_now - held_before
            )
            new_spend = sum(
                (
                    t["amount"]
                    for i, t in state["transactions"].items()
                    if t["account_id"] == account_id and i not in initial["transactions"]
                ),
                Decimal("0.00"),
            )
            assert account["cycle_spend"] == initial["accounts"][account_id]["cycle_spend"] + new_spend


# ----------------------------------------------------------------------------- task file and graph


def test_agent_graph_exposes_every_tool_the_tasks_name() -> None:
    graph = yaml.safe_load(GRAPH.read_text(encoding="utf-8"))
    assert graph["domain"] == "payments"
    nodes = graph["nodes"]
    assert [n["name"] for n in nodes if not n["tools"]] == ["general"]
    placed = {t for n in nodes for t in n["tools"]}
    assert placed <= set(PaymentsEnvironment.tools)
    for record in load_task_file(TASKS):
        contract = record.task.contract
        named = {a.tool for a in contract.expected_actions} | {p.tool for p in contract.expected_params}
        named |= {t for order in contract.action_order for t in order.names()} | set(contract.forbidden.actions)
        named |= {p.tool for p in contract.forbidden.params} | {g.tool for g in record.task.gold.path}
        assert named <= placed, (record.task.id, named - placed)


def test_gold_arguments_are_known_to_the_user_or_returned_earlier() -> None:
    """Information sufficiency (the release audit of `crmbench validate --gold`): every literal the
    gold path sends is in the brief or an earlier result, except the manifest's free-text arguments."""
    free_text = set(load_manifest(TASKS.parent).free_text_arguments["payments"])
    problems = []
    for record in load_task_file(TASKS):
        evidence, _ = gold_problems(record, PaymentsEnvironment)
        problems += [p.render() for p in information_problems(record, evidence, PaymentsEnvironment, free_text)]
    assert problems == []
