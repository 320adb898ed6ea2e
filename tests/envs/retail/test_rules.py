"""Each business rule the retail tools enforce, with the rejection code it answers."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import code_of, make, ok

BOOTS = {"customer_id": "CUS-1001", "order_id": "ORD-1001", "line_id": "L1", "quantity": 1, "condition": "opened"}
TRANSFER = {"employee_id": "EMP-301", "from_store": "STR-BOS", "to_store": "STR-CAM", "variant_id": "VAR-JKT-L-NVY"}


def test_verify_customer_checks_the_email_without_revealing_it() -> None:
    env = make()
    assert ok(env, "verify_customer", customer_id="CUS-1001", email=" Aisha.Rahman@example.com")["verified"] is True
    wrong = ok(env, "verify_customer", customer_id="CUS-1001", email="someone@example.com")
    assert wrong == {"customer_id": "CUS-1001", "verified": False, "name": None}


def test_another_customers_order_is_refused() -> None:
    env = make()
    assert code_of(env, "get_order", customer_id="CUS-1001", order_id="ORD-1003") == "NOT_OWNER"
    assert code_of(env, "cancel_order", customer_id="CUS-1001", order_id="ORD-1004", reason="x") == "NOT_OWNER"
    assert code_of(env, "get_order", customer_id="CUS-1001", order_id="ORD-9999") == "ORDER_NOT_FOUND"


def test_only_unshipped_orders_change() -> None:
    env = make()
    args = {"customer_id": "CUS-1002", "order_id": "ORD-1004"}
    assert code_of(env, "update_shipping_address", **args, address="1 Main St, Chicago, IL 60601") == (
        "ORDER_ALREADY_SHIPPED"
    )
    assert code_of(env, "cancel_order", **args, reason="changed my mind") == "ORDER_ALREADY_SHIPPED"
    assert code_of(env, "cancel_order", customer_id="CUS-1001", order_id="ORD-1002", reason=" ") == "REASON_REQUIRED"
    ok(env, "cancel_order", customer_id="CUS-1001", order_id="ORD-1002", reason="ordered the wrong size")
    assert env.state["orders"]["ORD-1002"]["status"] == "cancelled"


def test_a_short_address_is_refused() -> None:
    assert code_of(make(), "update_shipping_address", customer_id="CUS-1001", order_id="ORD-1002", address="Elm") == (
        "ADDRESS_INCOMPLETE"
    )


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"order_id": "ORD-1002", "line_id": "L1"}, "ORDER_NOT_DELIVERED"),
        ({"line_id": "L2"}, "FINAL_SALE"),
        ({"line_id": "L9"}, "LINE_NOT_FOUND"),
        ({"quantity": 2}, "QUANTITY_NOT_RETURNABLE"),
        ({"restocking_fee": "24.01"}, "RESTOCKING_FEE_OUT_OF_RANGE"),
        ({"restocking_fee": "-1"}, "RESTOCKING_FEE_OUT_OF_RANGE"),
    ],
)
def test_return_rules(change: dict[str, Any], code: str) -> None:
    assert code_of(make(), "create_return", **{**BOOTS, "restocking_fee": "24.00", **change}) == code


def test_the_return_window_closes_30_days_after_delivery() -> None:
    env = make()
    args = {**BOOTS, "customer_id": "CUS-1002", "order_id": "ORD-1003", "restocking_fee": "0"}
    assert code_of(env, "create_return", **args) == "RETURN_WINDOW_CLOSED"


def test_a_return_refunds_price_less_fee_and_store_credit_lands_on_the_customer() -> None:
    env = make()
    refund = ok(env, "create_return", **BOOTS, restocking_fee="24.00")
    assert str(refund["amount"]) == "136.00"
    assert env.state["orders"]["ORD-1001"]["line_items"][0]["returned_quantity"] == 1
    assert code_of(env, "create_return", **BOOTS, restocking_fee="0") == "QUANTITY_NOT_RETURNABLE"
    assert env.state["customers"]["CUS-1001"]["store_credit"] == 0
    env = make()
    ok(env, "create_return", **{**BOOTS, "condition": "unopened"}, restocking_fee="0", refund_method="store_credit")
    assert str(env.state["customers"]["CUS-1001"]["store_credit"]) == "160.00"


def test_transfers_need_a_manager_and_stock() -> None:
    env = make()
    assert code_of(env, "transfer_inventory", **{**TRANSFER, "employee_id": "EMP-302"}, quantity=1) == ("NOT_A_MANAGER")
    assert code_of(env, "transfer_inventory", **TRANSFER, quantity=8) == "INSUFFICIENT_STOCK"
    assert code_of(env, "transfer_inventory", **TRANSFER, quantity=0) == "INSUFFICIENT_STOCK"
    assert code_of(env, "transfer_inventory", **{**TRANSFER, "to_store": "STR-BOS"}, quantity=1) == "SAME_STORE"
    ok(env, "transfer_inventory", **TRANSFER, quantity=4)
    assert ok(env, "get_inventory", variant_id="VAR-JKT-L-NVY")["available"] == {"STR-BOS": 3, "STR-CAM": 6}
