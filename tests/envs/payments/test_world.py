"""The payments world: one typed state model for the seed, every override and every write; the
seed and every task's initial state keep the world invariants, and each invariant can fail."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.env.state import StateError

from .helpers import SEED, TASKS, PaymentsEnvironment, make, ok, walk

TASK_RECORDS = load_task_file(TASKS)


def test_seed_validates_against_the_state_model() -> None:
    state = make().state
    assert state["accounts"]["ACC-1001"]["balance"] == Decimal("2450.75")
    assert state["accounts"]["ACC-1002"]["balance"] == Decimal("180.00")
    assert state["accounts"]["ACC-1002"]["loyalty_points"] == 0
    assert {a["status"] for a in state["accounts"].values()} == {"active", "frozen", "closed"}
    # the model fills what the seed leaves out: a PayPal method has no card fields, but they exist
    assert state["payment_methods"]["PM-2003"]["brand"] is None
    raw = json.loads(SEED.read_text(encoding="utf-8"), parse_float=Decimal)
    assert "brand" not in raw["payment_methods"]["PM-2003"]


def test_seed_keeps_every_world_invariant() -> None:
    assert make().violations() == []
    assert set(PaymentsEnvironment.invariants) == {
        "payments_add_up",
        "references_resolve",
        "disputes_match_their_payment",
        "accounts_are_consistent",
        "transfers_move_balances",
    }


@pytest.mark.parametrize("record", TASK_RECORDS, ids=[r.task.id for r in TASK_RECORDS])
def test_every_task_starts_in_a_consistent_world(record: Any) -> None:
    env = make(record.task.initial_state)
    assert env.violations() == []


BROKEN_WORLDS: list[tuple[str, dict[str, Any], str]] = [
    # (case, override, the path the violation names)
    (
        "refund-without-record",
        {"transactions": {"TXN-20260214-0007": {"refunded_amount": "60.00", "status": "partially_refunded"}}},
        "transactions.TXN-20260214-0007.refunded_amount",
    ),
    (
        "status-not-derived",
        {"transactions": {"TXN-20260214-0007": {"status": "refunded"}}},
        "transactions.TXN-20260214-0007.status",
    ),
    (
        "points-not-earned",
        {"transactions": {"TXN-20260214-0007": {"loyalty_points": 5}}},
        "transactions.TXN-20260214-0007.loyalty_points",
    ),
    (
        "foreign-method",
        {"transactions": {"TXN-20260214-0007": {"payment_method_id": "PM-2001"}}},
        "transactions.TXN-20260214-0007.payment_method_id",
    ),
    (
        "dangling-dispute",
        {"transactions": {"TXN-20260214-0007": {"dispute_id": "DSP-404"}}},
        "transactions.TXN-20260214-0007.dispute_id",
    ),
    ("frozen-without-freeze", {"accounts": {"ACC-1002": {"status": "frozen"}}}, "accounts.ACC-1002.freeze"),
    (
        "removed-default",
        {"payment_methods": {"PM-2003": {"status": "removed"}}},
        "accounts.ACC-1002.default_payment_method",
    ),
    ("points-below-payments", {"accounts": {"ACC-1008": {"loyalty_points": 0}}}, "accounts.ACC-1008.loyalty_points"),
    (
        "open-dispute-elsewhere",
        {"transactions": {"TXN-20260118-0009": {"dispute_id": None, "status": "settled"}}},
        "transactions.TXN-20260118-0009.dispute_id",
    ),
    (
        "transfer-to-nobody",
        {"transfers": {"XFER-000449": {"to_account": "ACC-0000"}}},
        "transfers.XFER-000449.to_account",
    ),
    (
        # The world issue 10 found: a transfer record that debits and credits nobody.
        "transfer-without-balance-change",
        {
            "transfers": {
                "XFER-000460": {
                    "transfer_id": "XFER-000460",
                    "from_account": "ACC-1010",
                    "to_account": "ACC-1005",
                    "amount": "9000.00",
                    "currency": "USD",
                    "memo": "Down payment",
                    "status": "completed",
                    "created_at": "2026-03-02T07:30:00+00:00",
                }
            }
        },
        "accounts.ACC-1010.balance",
    ),
    ("balance-changed-by-no-transfer", {"accounts": {"ACC-1002": {"balance": "500.00"}}}, "accounts.ACC-1002.balance"),
    ("key-is-not-the-id", {"accounts": {"ACC-1002": {"account_id": "ACC-2002"}}}, "accounts.ACC-1002.account_id"),
]


@pytest.mark.parametrize(("override", "path"), [c[1:] for c in BROKEN_WORLDS], ids=[c[0] for c in BROKEN_WORLDS])
def test_an_override_that_breaks_the_world_is_named_by_its_path(override: dict[str, Any], path: str) -> None:
    assert path in [v.path for v in make(override).violations()]


@pytest.mark.parametrize(
    ("override", "path"),
    [
        ({"accounts": {"ACC-1002": {"balance": "10.005"}}}, "accounts.ACC-1002.balance"),
        ({"accounts": {"ACC-1002": {"balance": -1}}}, "accounts.ACC-1002.balance"),
        ({"accounts": {"ACC-1002": {"status": "asleep"}}}, "accounts.ACC-1002.status"),
        ({"accounts": {"ACC-1002": {"nickname": "Dan"}}}, "accounts.ACC-1002.nickname"),
        (
            {"transactions": {"TXN-20260214-0007": {"created_at": "yesterday"}}},
            "transactions.TXN-20260214-0007.created_at",
        ),
        ({"settings": {"per_transfer_limit": "1e308"}}, "settings.per_transfer_limit"),
    ],
)
def test_an_override_the_state_model_refuses_names_its_field(override: dict[str, Any], path: str) -> None:
    with pytest.raises(StateError) as caught:
        make(override)
    assert path in [p for p, _ in caught.value.problems]
    assert f"initial_state.{path}" in str(caught.value)


def test_money_is_decimal_cents_and_never_float() -> None:
    state = make({"accounts": {"ACC-1002": {"balance": 180.5}}, "settings": {"per_transfer_limit": "10000"}}).state
    assert not any(isinstance(value, float) for value in walk(state))
    assert state["accounts"]["ACC-1002"]["balance"] == Decimal("180.50")
    assert state["accounts"]["ACC-1002"]["balance"].as_tuple().exponent == -2
    assert state["settings"]["per_transfer_limit"] == Decimal("10000.00")
    money = [v for v in walk(state) if isinstance(v, Decimal)]
    assert money and all(v.as_tuple().exponent == -2 for v in money)


def test_every_write_leaves_the_state_equal_to_its_canonical_dump() -> None:
    env = make()
    ok(env, "execute_transfer", from_account="ACC-1001", to_account="ACC-1008", amount=7)
    ok(env, "add_payment_method", account_id="ACC-1012", method_type="paypal", paypal_email="chloe@example.com")
    new_method = next(m for m in env.state["payment_methods"].values() if m.get("paypal_email") == "chloe@example.com")
    assert new_method["brand"] is None and new_method["routing_number"] is None  # every field present
    transfer = next(t for t in env.state["transfers"].values() if t["amount"] == Decimal("7.00"))
    assert (transfer["currency"], transfer["status"], transfer["memo"]) == ("USD", "completed", "")


def test_every_tool_is_documented_for_the_model() -> None:
    for spec in PaymentsEnvironment.tool_schemas():
        function = spec["function"]
        assert len(function["description"]) > 30, function["name"]
        for name, prop in function["parameters"]["properties"].items():
            assert prop.get("description"), f"{function['name']}.{name} has no Args: entry"


def test_every_tool_declares_its_kind() -> None:
    kinds = {name: spec.kind for name, spec in PaymentsEnvironment.tools.items()}
    assert sorted(n for n, k in kinds.items() if k == "read") == [
        "get_account_balance",
        "get_dispute",
        "get_loyalty_balance",
        "get_statement",
        "get_transaction",
        "list_payment_methods",
        "list_transactions",
        "validate_transfer",
        "verify_identity",
    ]


def test_default_state_is_cached_and_each_environment_gets_its_own_copy() -> None:
    first, second = make(), make()
    ok(first, "execute_transfer", from_account="ACC-1001", to_account="ACC-1008", amount=100)
    assert second.state["accounts"]["ACC-1001"]["balance"] == Decimal("2450.75")
    assert PaymentsEnvironment.cached_default_state()["accounts"]["ACC-1001"]["balance"] == Decimal("2450.75")
    assert first.initial_state["accounts"]["ACC-1001"]["balance"] == Decimal("2450.75")
