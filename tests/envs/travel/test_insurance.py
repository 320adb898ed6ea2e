"""Travel-insurance claims: each rule the insurer's system enforces with its code and an untouched
world; which reasons are covered and the amount are the policy's."""

from __future__ import annotations

from decimal import Decimal

import pytest

from .helpers import code_of, make, ok

LUCAS, DANIEL, HANNAH = "TRV-20424", "TRV-20418", "TRV-20419"


def claim(env: object, traveller: str, locator: str, amount: str, reason: str = "bereavement") -> str | None:
    return code_of(env, "file_insurance_claim", traveller_id=traveller, locator=locator, reason=reason, amount=amount)  # type: ignore[arg-type]


def test_a_claim_needs_a_cancelled_insured_booking_once_within_the_loss() -> None:
    env = make()
    assert claim(env, LUCAS, "M2XK7V", "540.00") == "BOOKING_NOT_CANCELLED"
    assert claim(env, HANNAH, "H4LM8P", "100.00") == "NOT_INSURED"
    assert claim(env, HANNAH, "M2XK7V", "100.00") == "NOT_OWNER"
    ok(env, "cancel_booking", traveller_id=LUCAS, locator="M2XK7V", refund_amount="0.00", refund_to="original_payment")
    before = env.state
    assert claim(env, LUCAS, "M2XK7V", "540.01") == "CLAIM_EXCEEDS_LOSS"
    assert env.state == before
    filed = ok(env, "file_insurance_claim", traveller_id=LUCAS, locator="M2XK7V", reason="bereavement", amount="540.00")
    assert filed["status"] == "submitted" and Decimal(str(filed["amount"])) == Decimal("540.00")
    assert claim(env, LUCAS, "M2XK7V", "1.00") == "CLAIM_EXISTS"
    booking = ok(env, "get_booking", traveller_id=LUCAS, locator="M2XK7V")
    assert [c["claim_id"] for c in booking["claims"]] == [filed["claim_id"]]


def test_the_loss_is_what_was_not_refunded_or_credited() -> None:
    env = make()
    ok(env, "cancel_booking", traveller_id=DANIEL, locator="D3RY6F", refund_amount="1130.00", refund_to="travel_credit")
    assert claim(env, DANIEL, "D3RY6F", "150.01", reason="illness") == "CLAIM_EXCEEDS_LOSS"
    assert claim(env, DANIEL, "D3RY6F", "150.00", reason="illness") is None


@pytest.mark.parametrize("amount", ["0", "-5.00"])
def test_a_claim_amount_is_positive(amount: str) -> None:
    env = make()
    ok(env, "cancel_booking", traveller_id=LUCAS, locator="M2XK7V", refund_amount="0.00", refund_to="original_payment")
    assert claim(env, LUCAS, "M2XK7V", amount) == "INVALID_AMOUNT"


def test_the_tool_takes_any_reason_the_policy_decides_coverage() -> None:
    env = make()
    ok(env, "cancel_booking", traveller_id=LUCAS, locator="M2XK7V", refund_amount="0.00", refund_to="original_payment")
    assert claim(env, LUCAS, "M2XK7V", "540.00", reason="other") is None
