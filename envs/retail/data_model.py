"""The retail world as one typed state model (objects modelled on Shopify's Admin API: Order with
its line items, Refund, Return, ExchangeLineItem, InventoryLevel, GiftCard).

The environment validates ``seed.json``, every task's ``initial_state`` and the state after every
write through :class:`RetailState`; tools read and write the plain tree it dumps, so task
contracts address it with dotted paths such as ``orders.ORD-1001.status``.

State layout::

    settings                     Settings        (windows, fee cap, loyalty rate, exchange store)
    customers.<CUS-…>            Customer        (identity: email; store credit, loyalty points)
    variants.<VAR-…>             Variant         (product, options, current price, final sale)
    stores.<STR-…>               Store           (InventoryLevel per variant)
    staff.<EMP-…>                StaffMember     (store manager or associate)
    orders.<ORD-…>               Order           (status, address, payment, line items)
    refunds.<RF-…>               Refund          (a return of a line and the money it gave back)
    exchanges.<EX-…>             Exchange        (units of a line swapped for another variant)
    price_adjustments.<PA-…>     PriceAdjustment (a price drop refunded on kept units)
    gift_cards.<GC-…>            GiftCard        (balance, active or disabled)
    points_ledger                [PointsEntry]   (loyalty points redeemed or awarded)
    transfers.<TR-…>             Transfer        (stock moved between stores)
    counts.<CNT-…>               InventoryCount  (a cycle count that set a store's level)
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import IsoDate, Money, Record, Ref, Timestamp

OrderStatus = Literal["pending", "processing", "shipped", "delivered", "returned", "cancelled"]
MODIFIABLE = ("pending", "processing")


# Ids of other records: the kit reports one naming no record ("names no variant").
CustomerId = Annotated[str, Ref("customers")]
VariantId = Annotated[str, Ref("variants")]
StoreId = Annotated[str, Ref("stores")]
GiftCardId = Annotated[str, Ref("gift_cards")]


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    return_window_days: int = Field(gt=0, description="Days after delivery a line can be returned or exchanged.")
    max_restocking_fee_percent: int = Field(ge=0, le=100, description="Cap on a restocking fee, % of the line.")
    price_match_days: int = Field(gt=0, description="Days after an order is placed a price drop is refunded.")
    points_block: int = Field(gt=0, description="Loyalty points are redeemed in blocks of this many points.")
    block_value: Money = Field(gt=0, description="Store credit one block of points is worth.")
    max_goodwill_points: int = Field(gt=0, description="Most points one goodwill award may give.")
    exchange_store: StoreId = Field(description="The store that ships exchange replacements.")


class Customer(Record):
    """A shopper; identity is checked with the email on file. The customer record is its own
    owner: reading it (``get_customer``) is reading that customer's private profile."""

    owner_field = "customer_id"

    customer_id: str = Field(description="e.g. CUS-1001.")
    name: str
    email: str
    store_credit: Money = Field(ge=0)
    loyalty_points: int = Field(ge=0)


class Variant(Record):
    """A product variant (size, colour) with today's price; final-sale variants are never returned."""

    variant_id: str = Field(description="e.g. VAR-BOOT-9.")
    product: str
    options: str
    price: Money = Field(gt=0)
    final_sale: bool


class Store(Record):
    """A store with its InventoryLevels: variant id -> units available."""

    store_id: str = Field(description="e.g. STR-BOS.")
    name: str
    inventory: dict[VariantId, int]


class StaffMember(Record):
    id_field = "employee_id"
    noun = "employee"

    employee_id: str = Field(description="e.g. EMP-301.")
    name: str
    store_id: str
    role: Literal["manager", "associate"]


class LineItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    line_id: str = Field(description="e.g. L1, unique within its order.")
    variant_id: VariantId
    quantity: int = Field(gt=0)
    unit_price: Money = Field(gt=0, description="What the customer pays per unit (lowered by a price adjustment).")
    returned_quantity: int = Field(ge=0)
    exchanged_quantity: int = Field(default=0, ge=0)


class Order(Record):
    owner_field = "customer_id"

    order_id: str = Field(description="e.g. ORD-1001.")
    customer_id: CustomerId
    status: OrderStatus
    placed_at: Timestamp
    delivered_on: IsoDate | None
    shipping_address: str
    payment_method: str = Field(description="The original payment method, e.g. 'Visa ending 4242'.")
    gift_card_id: GiftCardId | None = Field(default=None, description="The gift card that paid, when one did.")
    line_items: list[LineItem]
    cancel_reason: str | None = None


class Refund(Record):
    """Money given back for returned units of one line (Shopify Refund with its Return)."""

    owner_field = "customer_id"
    id_prefix = "RF"

    refund_id: str
    order_id: str
    customer_id: str
    line_id: str
    quantity: int = Field(gt=0)
    unit_price: Money = Field(gt=0, description="The unit price the refund was worked out from.")
    condition: Literal["unopened", "opened", "damaged"]
    restocking_fee: Money = Field(ge=0)
    amount: Money = Field(ge=0)
    method: Literal["original", "store_credit"]
    created_at: Timestamp


class Exchange(Record):
    """Units of a delivered line swapped for another variant of the same product."""

    owner_field = "customer_id"
    id_prefix = "EX"

    exchange_id: str
    order_id: str
    customer_id: str
    line_id: str
    quantity: int = Field(gt=0)
    from_variant: str
    to_variant: str
    price_difference: Money = Field(
        description="What was charged (> 0) or paid back (< 0), as the agent gave it: the policy says the new"
        " units' price less the paid price."
    )
    settlement: Literal["original", "store_credit"]
    created_at: Timestamp


class PriceAdjustment(Record):
    """A price drop within the price-match window, refunded on the units the customer kept. The
    amount is what the agent refunded (the tool takes the agent's figure; the policy says it is the
    drop times the units kept)."""

    owner_field = "customer_id"
    id_prefix = "PA"

    price_adjustment_id: str
    order_id: str
    customer_id: str
    line_id: str
    units: int = Field(gt=0)
    from_price: Money = Field(gt=0)
    to_price: Money = Field(gt=0)
    amount: Money = Field(gt=0, description="What was refunded, as the agent gave it.")
    created_at: Timestamp


class GiftCard(Record):
    owner_field = "customer_id"
    id_prefix = "GC"

    gift_card_id: str = Field(description="e.g. GC-4471.")
    customer_id: CustomerId
    last4: str
    balance: Money = Field(ge=0)
    status: Literal["active", "disabled"]
    disabled_reason: str | None = None
    replaced_by: GiftCardId | None = None


class PointsEntry(Record):
    """One line of the points ledger: a redemption or a goodwill award, the customer's own."""

    owner_field = "customer_id"

    customer_id: str
    points: int = Field(description="Positive for an award, negative for a redemption.")
    kind: Literal["redemption", "goodwill"]
    reason: str
    created_at: Timestamp


class Transfer(Record):
    id_prefix = "TR"

    transfer_id: str
    employee_id: str
    from_store: StoreId
    to_store: StoreId
    variant_id: str
    quantity: int = Field(gt=0)
    created_at: Timestamp


class InventoryCount(Record):
    """A cycle count: the units a manager counted replace the store's recorded level."""

    id_field = "count_id"
    id_prefix = "CNT"

    count_id: str
    employee_id: str
    store_id: str
    variant_id: str
    previous: int = Field(ge=0)
    counted: int = Field(ge=0)
    created_at: Timestamp


class RetailState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    settings: Settings
    customers: dict[str, Customer]
    variants: dict[str, Variant]
    stores: dict[str, Store]
    staff: dict[str, StaffMember]
    orders: dict[str, Order]
    refunds: dict[str, Refund]
    exchanges: dict[str, Exchange]
    price_adjustments: dict[str, PriceAdjustment]
    gift_cards: dict[str, GiftCard]
    points_ledger: list[PointsEntry]
    transfers: dict[str, Transfer]
    counts: dict[str, InventoryCount]


__all__ = ["RetailState"]
