"""The records of the payments world, as pydantic models.

The environment keeps its state as plain JSON-like dicts (so task contracts can address it with
dotted paths such as ``accounts.ACC-1002.balance``); these models document every field and are
used to validate ``seed.json`` and tool outputs in the tests. Money is always a ``Decimal`` with
two places (cents); points are whole numbers.

State layout::

    accounts.<ACC-…>            Account
    payment_methods.<PM-…>      PaymentMethod
    transactions.<TXN-…>        Transaction      (card / PayPal / bank payments)
    transfers.<XFER-…>          Transfer         (account-to-account moves of balance)
    refunds.<RFD-…>             Refund
    disputes.<DSP-…>            Dispute
    receipts.<RCPT-…>           Receipt
    loyalty_ledger[]            LoyaltyEntry     (append-only)
    transaction_log[]           TransactionLogEntry (append-only audit log)
    settings                    Settings         (limits and windows)
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Money = Decimal
AccountStatus = Literal["active", "frozen", "closed"]
MethodType = Literal["card", "paypal", "bank_account"]
MethodStatus = Literal["active", "pending_verification", "removed"]
TransactionStatus = Literal["settled", "partially_refunded", "refunded", "disputed"]
DisputeReason = Literal[
    "fraudulent",
    "unrecognized",
    "duplicate",
    "product_not_received",
    "product_unacceptable",
    "subscription_canceled",
    "credit_not_processed",
    "general",
]
DisputeStatus = Literal["needs_response", "under_review", "won", "lost", "withdrawn"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Freeze(_Record):
    """Why an account is frozen; only a customer-initiated freeze can be lifted by the assistant."""

    frozen_by: Literal["customer", "risk", "compliance"] = Field(description="Who placed the hold.")
    reason: str = Field(description="Free-text reason recorded with the hold.")
    frozen_at: str = Field(description="ISO timestamp of the hold.")


class Account(_Record):
    """A customer's stored-value payments account (a wallet with a USD balance)."""

    account_id: str = Field(description="Public account id, e.g. ACC-1002.")
    holder_name: str = Field(description="Full legal name of the account holder (identity check).")
    email: str = Field(description="Email on file (identity check; receipts go here).")
    email_status: Literal["ok", "bounced"] = Field(description="'bounced' when mail to the address fails.")
    phone: str | None = Field(description="Mobile number on file for SMS receipts, or null.")
    status: AccountStatus = Field(description="active, frozen (no money movement) or closed.")
    freeze: Freeze | None = Field(description="Set while the account is frozen.")
    balance: Money = Field(
        description="Current balance in USD; changes only by transfers (payments are charged to payment methods)."
    )
    currency: Literal["USD"] = Field(description="Every account is in US dollars.")
    loyalty_points: int = Field(ge=0, description="Loyalty balance: 10 points per settled dollar, floor.")
    daily_transfer_limit: Money = Field(description="Maximum total of outgoing transfers per calendar day.")
    cycle_spend: Money = Field(
        description="Gross card/PayPal/bank payments since the 1st of the month (refunds do not reduce it)."
    )
    default_payment_method: str | None = Field(description="Id of the default payment method, if any.")
    opened_on: str = Field(description="ISO date the account was opened.")
    closed_on: str | None = Field(description="ISO date the account was closed, if closed.")


class PaymentMethod(_Record):
    """A funding instrument linked to an account. Cards are stored as brand + last 4 only (PCI DSS)."""

    payment_method_id: str = Field(description="e.g. PM-2002.")
    account_id: str = Field(description="Owning account.")
    type: MethodType = Field(description="card, paypal or bank_account.")
    status: MethodStatus = Field(description="Bank accounts start as pending_verification (micro-deposits).")
    brand: str | None = Field(None, description="Card brand (Visa, Mastercard, Amex) for cards.")
    last4: str | None = Field(None, description="Last four digits of a card or bank account number.")
    exp_month: int | None = Field(None, ge=1, le=12, description="Card expiry month.")
    exp_year: int | None = Field(None, description="Card expiry year (four digits).")
    paypal_email: str | None = Field(None, description="PayPal login email for PayPal methods.")
    bank_name: str | None = Field(None, description="Bank name for bank accounts.")
    routing_number: str | None = Field(None, description="ABA routing number (public) for bank accounts.")
    added_on: str = Field(description="ISO date the method was linked.")


class Transaction(_Record):
    """A payment (checkout) charged to a payment method. Refunds and disputes refer to it."""

    transaction_id: str = Field(description="e.g. TXN-20260214-0007 (seed) or TXN-HD10VI (generated).")
    account_id: str
    merchant: str = Field(description="Who was paid.")
    description: str = Field(description="What was bought.")
    amount: Money = Field(description="Captured amount in USD.")
    currency: Literal["USD"]
    payment_method_id: str = Field(description="The method charged; refunds go back to it.")
    method_type: MethodType
    status: TransactionStatus = Field(description="Derived from refunds and an open dispute.")
    created_at: str = Field(description="ISO timestamp of capture.")
    refunded_amount: Money = Field(description="Sum of refunds so far; never above amount.")
    refund_ids: list[str]
    loyalty_awarded: bool = Field(description="Whether points were awarded for this payment.")
    loyalty_points: int = Field(ge=0, description="Points this payment currently holds (reduced by refunds).")
    receipt_ids: list[str]
    logged: bool = Field(description="Whether the checkout was written to the transaction log.")
    dispute_id: str | None = Field(description="The open or last dispute on this charge.")


class Transfer(_Record):
    """A move of balance from one account to another."""

    transfer_id: str = Field(description="e.g. XFER-HD10VI.")
    from_account: str
    to_account: str
    amount: Money
    currency: Literal["USD"]
    memo: str
    status: Literal["completed"]
    created_at: str


class Refund(_Record):
    """Money returned to the original payment method of a transaction."""

    refund_id: str
    transaction_id: str
    account_id: str
    amount: Money
    reason: str
    payment_method_id: str = Field(description="Always the transaction's original method.")
    status: Literal["succeeded"]
    created_at: str


class Dispute(_Record):
    """A cardholder dispute (chargeback) on a transaction; blocks refunds while open."""

    dispute_id: str
    transaction_id: str
    account_id: str
    amount: Money = Field(description="Disputed amount: the charge minus what was already refunded.")
    reason: DisputeReason
    details: str
    status: DisputeStatus
    opened_at: str
    evidence_due_by: str = Field(description="ISO date the merchant must respond by.")
    closed_at: str | None = Field(None, description="When the dispute was withdrawn or decided.")


class Receipt(_Record):
    receipt_id: str
    transaction_id: str
    account_id: str
    channel: Literal["email", "sms"]
    destination: str = Field(description="Email or phone number on file.")
    sent_at: str


class LoyaltyEntry(_Record):
    entry_id: str
    account_id: str
    transaction_id: str
    points: int = Field(description="Positive when earned, negative when reversed by a refund.")
    kind: Literal["earn", "reversal"]
    created_at: str


class TransactionLogEntry(_Record):
    log_id: str
    transaction_id: str
    account_id: str
    event: str = Field(description="checkout_completed, refund_issued, dispute_opened, ...")
    note: str
    created_at: str


class Settings(_Record):
    per_transfer_limit: Money = Field(description="Largest single transfer.")
    per_payment_limit: Money = Field(description="Largest single checkout payment.")
    refund_window_days: int = Field(description="Refunds only within this many days of capture.")
    dispute_window_days: int = Field(description="Disputes only within this many days of capture.")
    loyalty_points_per_dollar: int
    max_active_payment_methods: int


class PaymentsState(_Record):
    """The whole world; ``seed.json`` must validate against it."""

    settings: Settings
    accounts: dict[str, Account]
    payment_methods: dict[str, PaymentMethod]
    transactions: dict[str, Transaction]
    transfers: dict[str, Transfer]
    refunds: dict[str, Refund]
    disputes: dict[str, Dispute]
    receipts: dict[str, Receipt]
    loyalty_ledger: list[LoyaltyEntry]
    transaction_log: list[TransactionLogEntry]


class StatementLine(_Record):
    date: str
    kind: Literal["payment", "refund", "transfer_in", "transfer_out"]
    reference: str = Field(description="TXN, RFD, XFER or DSP id.")
    description: str
    amount: Money = Field(description="Signed: positive adds to the balance or reverses spend.")


class Statement(_Record):
    """What get_statement returns for one calendar month."""

    account_id: str
    period: str = Field(description="YYYY-MM.")
    opening_balance: Money
    closing_balance: Money
    transfers_in: Money
    transfers_out: Money
    payments_total: Money = Field(description="Card/PayPal/bank spend in the month (does not touch the balance).")
    refunds_total: Money
    lines: list[StatementLine]
