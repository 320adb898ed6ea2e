"""Each business rule the retail tools enforce, with the rejection code it answers."""

from __future__ import annotations

import copy
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


def test_cancelling_a_gift_card_order_gives_its_cost_back_on_the_card_or_its_replacement() -> None:
    processing = {"status": "processing", "delivered_on": None}
    env = make({"orders": {"ORD-1005": processing}})
    ok(env, "cancel_order", customer_id="CUS-1003", order_id="ORD-1005", reason="not needed")
    assert str(env.state["gift_cards"]["GC-5520"]["balance"]) == "118.00"  # 11.00 + 89.00 + 18.00
    env = make({"orders": {"ORD-1005": processing}})
    new = ok(env, "replace_gift_card", customer_id="CUS-1003", gift_card_id="GC-5520", reason="lost")
    ok(env, "cancel_order", customer_id="CUS-1003", order_id="ORD-1005", reason="not needed")
    assert str(env.state["gift_cards"][new["new_gift_card_id"]]["balance"]) == "118.00"
    assert str(env.state["gift_cards"]["GC-5520"]["balance"]) == "0.00"
    card_order = make({})
    ok(card_order, "cancel_order", customer_id="CUS-1006", order_id="ORD-1009", reason="trip is off")
    assert str(card_order.state["gift_cards"]["GC-6180"]["balance"]) == "120.00"  # a Visa order leaves the card alone


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
    assert ok(env, "get_inventory", variant_id="VAR-JKT-L-NVY")["available"] == {
        "STR-BOS": 3,
        "STR-CAM": 6,
        "STR-WEB": 9,
    }


# -- exchanges -----------------------------------------------------------------------------------

BOOTS_10 = {"customer_id": "CUS-1005", "order_id": "ORD-1008", "line_id": "L2", "quantity": 1}


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"new_variant_id": "VAR-JKT-L-NVY", "price_difference": "-31"}, "DIFFERENT_PRODUCT"),
        ({"new_variant_id": "VAR-BOOT-10", "price_difference": "0"}, "SAME_VARIANT"),
        ({"new_variant_id": "VAR-BOOT-99"}, "VARIANT_NOT_FOUND"),
        ({"quantity": 2, "price_difference": "30"}, "QUANTITY_NOT_RETURNABLE"),
        ({"customer_id": "CUS-1001"}, "NOT_OWNER"),
        ({"line_id": "L7"}, "LINE_NOT_FOUND"),
    ],
)
def test_exchange_rules(change: dict[str, Any], code: str) -> None:
    env = make()
    before = copy.deepcopy(env.state)
    args = {**BOOTS_10, "new_variant_id": "VAR-BOOT-10W", "price_difference": "15.00", **change}
    assert code_of(env, "exchange_item", **args) == code
    assert env.state == before


def test_exchange_windows_final_sale_and_stock() -> None:
    env = make()
    jacket = {"customer_id": "CUS-1005", "order_id": "ORD-1008", "line_id": "L1", "quantity": 1}
    assert code_of(env, "exchange_item", **jacket, new_variant_id="VAR-JKT-M-RED", price_difference="0") == (
        "OUT_OF_STOCK"
    )
    late = {"customer_id": "CUS-1007", "order_id": "ORD-1011", "line_id": "L1", "quantity": 1}
    assert code_of(env, "exchange_item", **late, new_variant_id="VAR-BOOT-10", price_difference="0") == (
        "RETURN_WINDOW_CLOSED"
    )
    lamp = {"customer_id": "CUS-1007", "order_id": "ORD-1010", "line_id": "L2", "quantity": 1}
    assert code_of(env, "exchange_item", **lamp, new_variant_id="VAR-LAMP-300", price_difference="0") == "FINAL_SALE"
    pending = {"customer_id": "CUS-1006", "order_id": "ORD-1009", "line_id": "L1", "quantity": 1}
    assert code_of(env, "exchange_item", **pending, new_variant_id="VAR-TENT-2P", price_difference="-80") == (
        "ORDER_NOT_DELIVERED"
    )


def test_an_uneven_exchange_settles_the_difference_where_asked() -> None:
    env = make()
    down = {"customer_id": "CUS-1005", "order_id": "ORD-1008", "line_id": "L1", "quantity": 1}
    ok(env, "exchange_item", **down, new_variant_id="VAR-JKT-L-NVY", price_difference="-10", settlement="store_credit")
    assert str(env.state["customers"]["CUS-1005"]["store_credit"]) == "50.00"
    assert env.state["stores"]["STR-WEB"]["inventory"]["VAR-JKT-L-NVY"] == 8
    assert env.state["orders"]["ORD-1008"]["line_items"][0]["exchanged_quantity"] == 1
    assert code_of(env, "create_return", **down, condition="unopened", restocking_fee="0") == "QUANTITY_NOT_RETURNABLE"
    up = {**BOOTS_10, "new_variant_id": "VAR-BOOT-10W", "price_difference": "15"}
    ok(env, "exchange_item", **up, settlement="store_credit")
    assert str(env.state["customers"]["CUS-1005"]["store_credit"]) == "35.00"
    assert env.violations() == []


def test_an_exchange_takes_the_agents_figure_as_given() -> None:
    # The tool does not check the arithmetic for the agent: a wrong difference is charged or paid
    # back as given, and recorded (the task's checks judge it; guessing until accepted is useless).
    env = make()
    wrong = {**BOOTS_10, "new_variant_id": "VAR-BOOT-10W", "price_difference": "-15", "settlement": "store_credit"}
    assert ok(env, "exchange_item", **wrong)["settlement"] == "store_credit"
    assert str(env.state["customers"]["CUS-1005"]["store_credit"]) == "55.00"
    (exchange,) = env.state["exchanges"].values()
    assert str(exchange["price_difference"]) == "-15.00"
    assert code_of(env, "exchange_item", **{**wrong, "price_difference": "15"}) == "QUANTITY_NOT_RETURNABLE"
    assert env.violations() == []


def test_an_exchange_paid_on_store_credit_needs_the_credit() -> None:
    env = make()
    tent = {"customer_id": "CUS-1004", "order_id": "ORD-1007", "line_id": "L1", "quantity": 1}
    args = {**tent, "new_variant_id": "VAR-TENT-3P", "price_difference": "80"}
    assert code_of(env, "exchange_item", **args, settlement="store_credit") == "INSUFFICIENT_STORE_CREDIT"
    ok(env, "exchange_item", **args)
    assert env.state["customers"]["CUS-1004"]["store_credit"] == 0


def test_a_gift_card_order_settles_on_its_card() -> None:
    env = make()
    fleece = {"customer_id": "CUS-1003", "order_id": "ORD-1005", "line_id": "L1", "quantity": 1}
    ok(env, "exchange_item", **fleece, new_variant_id="VAR-FLC-M-BLK", price_difference="-15")
    assert str(env.state["gift_cards"]["GC-5520"]["balance"]) == "26.00"
    env = make({"variants": {"VAR-FLC-M-GRN": {"price": "119.00"}}})
    assert code_of(env, "exchange_item", **fleece, new_variant_id="VAR-FLC-M-GRN", price_difference="30") == (
        "INSUFFICIENT_GIFT_CARD_BALANCE"
    )


def test_list_variants_finds_a_product_or_says_none() -> None:
    env = make()
    found = ok(env, "list_variants", product="Rain Jacket")["variants"]
    assert {v["variant_id"]: v["online_units"] for v in found}["VAR-JKT-M-RED"] == 0
    assert len(found) == 4
    assert code_of(env, "list_variants", product="kayak") == "PRODUCT_NOT_FOUND"
    assert code_of(env, "list_variants", product="  ") == "PRODUCT_NOT_FOUND"


# -- refunds on gift cards and price adjustments ---------------------------------------------------

PACK = {"customer_id": "CUS-1004", "order_id": "ORD-1006", "line_id": "L1"}


def test_a_gift_card_order_is_refunded_on_its_card_or_its_replacement() -> None:
    env = make()
    mug = {"customer_id": "CUS-1003", "order_id": "ORD-1005", "line_id": "L2", "quantity": 1, "condition": "unopened"}
    ok(env, "create_return", **mug, restocking_fee="0")
    assert str(env.state["gift_cards"]["GC-5520"]["balance"]) == "29.00"
    env = make()
    new = ok(env, "replace_gift_card", customer_id="CUS-1003", gift_card_id="GC-5520", reason="lost")[
        "new_gift_card_id"
    ]
    ok(env, "create_return", **mug, restocking_fee="0")
    assert str(env.state["gift_cards"][new]["balance"]) == "29.00"
    env = make({"gift_cards": {"GC-5520": {"status": "disabled", "balance": "0", "disabled_reason": "expired"}}})
    assert code_of(env, "create_return", **mug, restocking_fee="0") == "GIFT_CARD_DISABLED"
    ok(env, "create_return", **mug, restocking_fee="0", refund_method="store_credit")


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ({**PACK, "line_id": "L2", "amount": "1"}, "NO_PRICE_DROP"),
        ({**PACK, "line_id": "L3", "amount": "1"}, "LINE_NOT_FOUND"),
        ({**PACK, "customer_id": "CUS-1001", "amount": "30"}, "NOT_OWNER"),
        ({**PACK, "amount": "0"}, "INVALID_AMOUNT"),
    ],
)
def test_price_adjustment_rules(args: dict[str, Any], code: str) -> None:
    assert code_of(make(), "create_price_adjustment", **args) == code


def test_a_price_adjustment_refunds_the_agents_figure_once() -> None:
    # A wrong amount is refunded as given and recorded; the line then costs today's price, so
    # there is no second try (the task's checks judge the one figure the agent gave).
    env = make()
    record = ok(env, "create_price_adjustment", **PACK, amount="29.99")
    assert str(record["amount"]) == "29.99"
    assert str(env.state["orders"]["ORD-1006"]["line_items"][0]["unit_price"]) == "159.00"
    assert code_of(env, "create_price_adjustment", **PACK, amount="30") == "NO_PRICE_DROP"
    assert env.violations() == []


def test_price_adjustments_close_14_days_after_the_order_and_cover_kept_units() -> None:
    late = make({"orders": {"ORD-1006": {"placed_at": "2026-02-15T08:50:00-05:00"}}})
    assert code_of(late, "create_price_adjustment", **PACK, amount="30") == "PRICE_MATCH_WINDOW_CLOSED"
    edge = make({"orders": {"ORD-1006": {"placed_at": "2026-02-16T08:50:00-05:00"}}})
    ok(edge, "create_price_adjustment", **PACK, amount="30")
    env = make({"variants": {"VAR-BTL-1L": {"price": "25.00"}}})
    bottles = {**PACK, "line_id": "L2"}
    ok(env, "create_return", **bottles, quantity=1, condition="unopened", restocking_fee="0")
    ok(env, "create_price_adjustment", **bottles, amount="7")
    assert str(env.state["orders"]["ORD-1006"]["line_items"][1]["unit_price"]) == "25.00"
    assert code_of(env, "create_price_adjustment", **bottles, amount="7") == "NO_PRICE_DROP"
    refund = ok(env, "create_return", **bottles, quantity=1, condition="unopened", restocking_fee="0")
    assert str(refund["amount"]) == "25.00"
    assert env.violations() == []
    cancelled = make({"orders": {"ORD-1009": {"status": "cancelled", "cancel_reason": "x"}}})
    args = {"customer_id": "CUS-1006", "order_id": "ORD-1009", "line_id": "L1", "amount": "1"}
    assert code_of(cancelled, "create_price_adjustment", **args) == "ORDER_NOT_ELIGIBLE"


# -- gift cards and points ---------------------------------------------------------------------------


def test_gift_cards_belong_to_their_owner_and_move_their_balance_when_replaced() -> None:
    env = make()
    assert code_of(env, "get_gift_card", customer_id="CUS-1001", gift_card_id="GC-6180") == "NOT_OWNER"
    assert code_of(env, "replace_gift_card", customer_id="CUS-1001", gift_card_id="GC-6180", reason="lost") == (
        "NOT_OWNER"
    )
    assert code_of(env, "replace_gift_card", customer_id="CUS-1006", gift_card_id="GC-6180", reason=" ") == (
        "REASON_REQUIRED"
    )
    new = ok(env, "replace_gift_card", customer_id="CUS-1006", gift_card_id="GC-6180", reason="reported lost")
    old = ok(env, "get_gift_card", customer_id="CUS-1006", gift_card_id="GC-6180")
    assert (old["status"], old["balance"], old["replaced_by"]) == ("disabled", 0, new["new_gift_card_id"])
    assert str(env.state["gift_cards"][new["new_gift_card_id"]]["balance"]) == "120.00"
    assert code_of(env, "replace_gift_card", customer_id="CUS-1006", gift_card_id="GC-6180", reason="again") == (
        "GIFT_CARD_DISABLED"
    )
    assert new["new_gift_card_id"] in ok(env, "get_customer", customer_id="CUS-1006")["gift_card_ids"]


def test_points_are_redeemed_in_blocks_and_goodwill_is_capped() -> None:
    env = make()
    assert code_of(env, "redeem_loyalty_points", customer_id="CUS-1004", points=250) == "POINTS_NOT_IN_BLOCKS"
    assert code_of(env, "redeem_loyalty_points", customer_id="CUS-1004", points=0) == "POINTS_NOT_IN_BLOCKS"
    assert code_of(env, "redeem_loyalty_points", customer_id="CUS-1004", points=2200) == "INSUFFICIENT_POINTS"
    assert ok(env, "redeem_loyalty_points", customer_id="CUS-1004", points=500) == {
        "loyalty_points": 1650,
        "store_credit": 25,
    }
    assert code_of(env, "award_loyalty_points", customer_id="CUS-1004", points=501, reason="x") == "GOODWILL_LIMIT"
    assert code_of(env, "award_loyalty_points", customer_id="CUS-1004", points=-5, reason="x") == "GOODWILL_LIMIT"
    assert code_of(env, "award_loyalty_points", customer_id="CUS-9999", points=5, reason="x") == "CUSTOMER_NOT_FOUND"
    ok(env, "award_loyalty_points", customer_id="CUS-1004", points=250, reason="tent arrived damaged")
    assert env.state["customers"]["CUS-1004"]["loyalty_points"] == 1900
    assert [e["points"] for e in env.state["points_ledger"]] == [-500, 250]


# -- cycle counts ------------------------------------------------------------------------------------


def test_cycle_counts_need_a_manager_and_a_real_count() -> None:
    env = make()
    count = {"store_id": "STR-BOS", "variant_id": "VAR-BOOT-10"}
    assert code_of(env, "record_inventory_count", employee_id="EMP-202", **count, counted=4) == "NOT_A_MANAGER"
    assert code_of(env, "record_inventory_count", employee_id="EMP-201", **count, counted=-1) == "INVALID_COUNT"
    assert code_of(
        env, "record_inventory_count", employee_id="EMP-201", store_id="STR-NYC", variant_id="VAR-BOOT-10", counted=1
    ) == ("STORE_NOT_FOUND")
    record = ok(env, "record_inventory_count", employee_id="EMP-201", **count, counted=4)
    assert env.state["stores"]["STR-BOS"]["inventory"]["VAR-BOOT-10"] == 4
    assert env.state["counts"][record["count_id"]]["previous"] == 6
