"""Plausible wrong values: what an agent gets wrong, in a stable order."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

import pytest

from pytest_crmbench.env.environment import ToolEnvironment, tool
from pytest_crmbench.release.mutation.wrong_values import wrong_values


class Shop(ToolEnvironment):
    domain = "shop_values"

    def default_state(self) -> dict[str, Any]:
        return {}

    @tool(kind="write")
    def pay(
        self,
        account_id: str,
        method_id: str,
        amount: Decimal,
        merchant: str,
        channel: Literal["email", "sms"] = "email",
        express: bool = False,
        quantity: int = 1,
        memo: str | None = None,
    ) -> dict[str, Any]:
        """Pay.

        Args:
            account_id: Account.
            method_id: Payment method.
            amount: Amount.
            merchant: Merchant.
            channel: Receipt channel.
            express: Express.
            quantity: Items.
            memo: Memo.
        """
        return {}


WORLD = {
    "accounts": {"ACC-1": {"name": "Ada"}, "ACC-2": {"name": "Alan"}, "ACC-3": {"name": "Grace"}},
    "methods": {
        "PM-1": {"account_id": "ACC-1", "brand": "Visa"},
        "PM-2": {"account_id": "ACC-2", "brand": "Visa"},
        "PM-3": {"account_id": "ACC-1", "brand": "Amex"},
    },
    "payments": {
        "TXN-1": {"merchant": "Corner Market"},
        "TXN-2": {"merchant": "SkyJet"},
        "TXN-3": {"merchant": "Bean & Leaf"},
    },
}


def wrong(argument: str, value: Any, mentioned: frozenset[str] = frozenset()) -> list[Any]:
    return wrong_values(Shop, "pay", argument, value, WORLD, mentioned)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Decimal("50"), ["49.99", "50.01", "60"]),  # a round amount: the next round one
        (Decimal("120"), ["119.99", "120.01", "100"]),
        (Decimal("15.50"), ["15.49", "15.51", "16"]),  # cents: the whole dollars an agent rounds to
        (Decimal("0.01"), ["0.02", "0"]),  # never a negative amount from "one cent less"
    ],
)
def test_amounts_are_off_by_a_cent_or_rounded(value: Decimal, expected: list[str]) -> None:
    assert [str(v) for v in wrong("amount", value)] == expected


def test_choices_are_every_other_choice() -> None:
    assert wrong("channel", "email") == ["sms"]
    assert wrong("express", False) == [True]


def test_integers_step_by_one() -> None:
    assert wrong("quantity", 3) == [2, 4]


def test_ids_prefer_the_same_owner_then_the_collection() -> None:
    # PM-3 belongs to the same account as PM-1: the customer's *other* card is the plausible mistake.
    assert wrong("method_id", "PM-1") == ["PM-3", "PM-2"]


def test_ids_the_task_mentions_come_first() -> None:
    assert wrong("account_id", "ACC-1") == ["ACC-2", "ACC-3"]
    assert wrong("account_id", "ACC-1", frozenset({"ACC-3"})) == ["ACC-3", "ACC-2"]


def test_field_values_are_other_values_of_the_same_field() -> None:
    assert wrong("merchant", "Bean & Leaf") == ["Corner Market", "SkyJet"]


def test_values_the_world_does_not_know_have_no_plausible_wrong_value() -> None:
    assert wrong("memo", "for dinner") == []
    assert wrong("memo", None) == []
