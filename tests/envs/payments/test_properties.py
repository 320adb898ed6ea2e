"""Properties over random operation sequences (hypothesis): the books balance, every world
invariant keeps holding, rejections change nothing, and the transfer dry run agrees with the transfer."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_crmbench.env.environment import ToolEnvironment, clone
from pytest_crmbench.env.state import canonical, identical

from .helpers import SEED, PaymentsEnvironment, floor_points, make, walk

PaymentsState = PaymentsEnvironment.state_model
assert PaymentsState is not None

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
            st.sampled_from(["transfer", "validate", "pay", "refund", "award", "dispute", "withdraw", "freeze", "read"])
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


def _bound(env: ToolEnvironment, source: str, pick: int) -> dict[str, str]:
    """A payment and the account the agent names for it: mostly its owner, sometimes another
    account (which the tools must refuse with NOT_OWNER, changing nothing)."""
    txn = _txn_of(env, pick)
    owner = env.state["transactions"][txn]["account_id"]
    return {"account_id": owner if pick % 5 else source, "transaction_id": txn}


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
        return "issue_refund", {**_bound(env, source, pick), "amount": amount, "reason": "property test"}
    if kind == "award":
        txn = _txn_of(env, pick)
        return "award_loyalty_points", {
            "account_id": env.state["transactions"][txn]["account_id"],
            "transaction_id": txn,
        }
    if kind == "dispute":
        return "open_dispute", {
            **_bound(env, source, pick),
            "reason": DISPUTE_REASONS[pick % 4],
            "details": "property test",
        }
    if kind == "read":
        reads = [
            ("get_account_balance", {"account_id": source}),
            ("get_transaction", _bound(env, source, pick)),
            ("list_transactions", {"account_id": source, "since": "2026-02-01"}),
            ("get_statement", {"account_id": source, "month": "2026-03"}),
            ("list_payment_methods", {"account_id": source}),
        ]
        return reads[pick % len(reads)]
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
        if call.status == "rejected" or PaymentsEnvironment.tools[name].kind == "read":
            assert env.state == before, f"{call.status} {PaymentsEnvironment.tools[name].kind} {name} changed the state"
        assert env.violations() == [], f"{name}({args}) broke a world invariant"
        assert identical(env.state, canonical(PaymentsState, env.state)), f"{name} wrote a non-canonical value"
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


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations(), seed=st.integers(0, 2**32 - 1))
def test_resets_are_isolated_whatever_an_episode_did(ops: list[tuple[str, Any]], seed: int) -> None:
    """No episode leaks into the next: not through the cached default, the initial state or ids."""
    pristine = clone(PaymentsEnvironment.cached_default_state())
    used = make(seed=seed)
    for kind, (source, target, amount, pick) in ops:
        used.call(*_apply(used, kind, source, target, amount, pick))
    fresh = make(seed=seed)
    assert fresh.state == pristine == PaymentsEnvironment.cached_default_state()
    assert used.initial_state == pristine
    replay = make(seed=seed)
    for call in used.trace:
        replay.call(call.name, call.arguments)
    assert replay.state == used.state  # same seed, same calls: same ids, stamps and world
