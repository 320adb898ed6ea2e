"""The retail world as one typed state model (objects modelled on Shopify's Admin API: Order with
its line items, Refund, Return, InventoryLevel, GiftCard).

The environment validates ``seed.json``, every task's ``initial_state`` and the state after every
write through :class:`RetailState`; tools read and write the plain tree it dumps, so task
contracts address it with dotted paths such as ``orders.ORD-1001.status``.

State layout::

    settings                     Settings      (return window, restocking fee cap)
    customers.<CUS-…>            Customer      (identity: email; store credit, loyalty points)
    variants.<VAR-…>             Variant       (product, options, price, final sale)
    stores.<STR-…>               Store         (InventoryLevel per variant)
    staff.<EMP-…>                StaffMember   (store manager or associate)
    orders.<ORD-…>               Order         (status, address, payment, line items)
    refunds.<RF-…>               Refund        (a return of a line and the money it gave back)
    transfers.<TR-…>             Transfer      (stock moved between stores)
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import IsoDate, Money, Record, Timestamp

OrderStatus = Literal["pending", "processing", "shipped", "delivered", "returned", "cancelled"]
MODIFIABLE = ("pending", "processing")
ZERO = Decimal("0.00")


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    return_window_days: int = Field(gt=0, description="Days after delivery a line can be returned.")
    max_restocking_fee_percent: int = Field(ge=0, le=100, description="Cap on a restocking fee, % of the line.")


class Customer(Record):
    """A shopper; identity is checked with the email on file."""

    customer_id: str = Field(description="e.g. CUS-1001.")
    name: str
    email: str
    store_credit: Money = Field(ge=0)
    loyalty_points: int = Field(ge=0)


class Variant(Record):
    """A product variant (size, colour) with its price; final-sale variants are never returned."""

    variant_id: str = Field(description="e.g. VAR-BOOT-9.")
    product: str
    options: str
    price: Money = Field(gt=0)
    final_sale: bool


class Store(Record):
    """A store with its InventoryLevels: variant id -> units available."""

    store_id: str = Field(description="e.g. STR-BOS.")
    name: str
    inventory: dict[str, int]


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
    variant_id: str
    quantity: int = Field(gt=0)
    unit_price: Money = Field(gt=0, description="What the customer paid per unit.")
    returned_quantity: int = Field(ge=0)


class Order(Record):
    owner_field = "customer_id"

    order_id: str = Field(description="e.g. ORD-1001.")
    customer_id: str
    status: OrderStatus
    placed_at: Timestamp
    delivered_on: IsoDate | None
    shipping_address: str
    payment_method: str = Field(description="The original payment method, e.g. 'Visa ending 4242'.")
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
    condition: Literal["unopened", "opened", "damaged"]
    restocking_fee: Money = Field(ge=0)
    amount: Money = Field(ge=0)
    method: Literal["original", "store_credit"]
    created_at: Timestamp


class Transfer(Record):
    id_prefix = "TR"

    transfer_id: str
    employee_id: str
    from_store: str
    to_store: str
    variant_id: str
    quantity: int = Field(gt=0)
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
    transfers: dict[str, Transfer]


__all__ = ["RetailState"]
