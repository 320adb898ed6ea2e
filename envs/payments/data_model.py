"""The payments world as one typed state model: the single source of truth for the state.

The environment validates ``seed.json``, every task's ``initial_state`` and the state after every
write tool through :class:`PaymentsState`; tools read and write the plain tree it dumps (so task
contracts address it with dotted paths such as ``accounts.ACC-1002.balance``). Money is a
two-place ``Decimal`` (:data:`~pytest_crmbench.Money`) wherever it appears; points are whole
numbers; ids are generated from each record's ``id_prefix``. Field defaults are what a new record
starts with (a new payment is settled, unrefunded and without points), so tools write only the rest.

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

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import IsoDate, Money, Record, Ref, Timestamp
from pytest_crmbench.env.values import ZERO

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
OPEN_DISPUTE = ("needs_response", "under_review")


# Ids of other records: the kit reports one naming no record ("names no account").
AccountId = Annotated[str, Ref("accounts")]
DisputeId = Annotated[str, Ref("disputes")]


class Freeze(BaseModel):
    """Why an account is frozen; only a customer-initiated freeze can be lifted by the assistant."""

    model_config = ConfigDict(extra="forbid")

    frozen_by: Literal["customer", "risk", "compliance"] = Field(description="Who placed the hold.")
    reason: str = Field(description="Free-text reason recorded with the hold.")
    frozen_at: Timestamp = Field(description="ISO timestamp of the hold.")


class Account(Record):
    """A customer's stored-value payments account (a wallet with a USD balance)."""

    id_prefix = "ACC"
    owner_field = "account_id"  # the customer record: its own owner

    account_id: str = Field(description="Public account id, e.g. ACC-1002.")
    holder_name: str = Field(description="Full legal name of the account holder (identity check).")
    email: str = Field(description="Email on file (identity check; receipts go here).")
    email_status: Literal["ok", "bounced"] = Field(description="'bounced' when mail to the address fails.")
    phone: str | None = Field(description="Mobile number on file for SMS receipts, or null.")
    status: AccountStatus = Field(description="active, frozen (no money movement) or closed.")
    freeze: Freeze | None = Field(description="Set while the account is frozen.")
    balance: Money = Field(
        ge=0, description="Current balance in USD; changes only by transfers (payments are charged to payment methods)."
    )
    opening_balance: Money = Field(
        description="Balance before every transfer on record: the balance is this plus transfers in minus out."
    )
    currency: Literal["USD"] = Field(description="Every account is in US dollars.")
    loyalty_points: int = Field(ge=0, description="Loyalty balance: 10 points per settled dollar, floor.")
    daily_transfer_limit: Money = Field(ge=0, description="Maximum total of outgoing transfers per calendar day.")
    cycle_spend: Money = Field(
        ge=0, description="Gross card/PayPal/bank payments since the 1st of the month (refunds do not reduce it)."
    )
    default_payment_method: str | None = Field(description="Id of the default payment method, if any.")
    opened_on: IsoDate = Field(description="ISO date the account was opened.")
    closed_on: IsoDate | None = Field(description="ISO date the account was closed, if closed.")


class PaymentMethod(Record):
    """A funding instrument linked to an account. Cards are stored as brand + last 4 only (PCI DSS)."""

    id_prefix = "PM"
    owner_field = "account_id"

    payment_method_id: str = Field(description="e.g. PM-2002.")
    account_id: AccountId = Field(description="Owning account.")
    type: MethodType = Field(description="card, paypal or bank_account.")
    status: MethodStatus = Field(description="Bank accounts start as pending_verification (micro-deposits).")
    brand: str | None = Field(None, description="Card brand (Visa, Mastercard, Amex) for cards.")
    last4: str | None = Field(None, description="Last four digits of a card or bank account number.")
    exp_month: int | None = Field(None, ge=1, le=12, description="Card expiry month.")
    exp_year: int | None = Field(None, description="Card expiry year (four digits).")
    paypal_email: str | None = Field(None, description="PayPal login email for PayPal methods.")
    bank_name: str | None = Field(None, description="Bank name for bank accounts.")
    routing_number: str | None = Field(None, description="ABA routing number (public) for bank accounts.")
    added_on: IsoDate = Field(description="ISO date the method was linked.")


class Transaction(Record):
    """A payment (checkout) charged to a payment method. Refunds and disputes refer to it."""

    id_prefix = "TXN"
    owner_field = "account_id"

    transaction_id: str = Field(description="e.g. TXN-20260214-0007 (seed) or TXN-HD10VI (generated).")
    account_id: str
    merchant: str = Field(description="Who was paid.")
    description: str = Field(description="What was bought.")
    amount: Money = Field(gt=0, description="Captured amount in USD.")
    currency: Literal["USD"] = "USD"
    payment_method_id: str = Field(description="The method charged; refunds go back to it.")
    method_type: MethodType
    status: TransactionStatus = Field("settled", description="Derived from refunds and an open dispute.")
    created_at: Timestamp = Field(description="ISO timestamp of capture.")
    refunded_amount: Money = Field(ZERO, ge=0, description="Sum of refunds so far; never above amount.")
    refund_ids: list[str] = Field(default_factory=list)
    loyalty_awarded: bool = Field(False, description="Whether points were awarded for this payment.")
    loyalty_points: int = Field(0, ge=0, description="Points this payment currently holds (reduced by refunds).")
    receipt_ids: list[str] = Field(default_factory=list)
    logged: bool = Field(False, description="Whether the checkout was written to the transaction log.")
    dispute_id: DisputeId | None = Field(None, description="The open or last dispute on this charge.")


class Transfer(Record):
    """A move of balance from one account to another."""

    id_prefix = "XFER"
    owner_field = "from_account"

    transfer_id: str = Field(description="e.g. XFER-HD10VI.")
    from_account: AccountId
    to_account: AccountId
    amount: Money = Field(gt=0)
    currency: Literal["USD"] = "USD"
    memo: str = ""
    status: Literal["completed"] = "completed"
    created_at: Timestamp


class Refund(Record):
    """Money returned to the original payment method of a transaction."""

    id_prefix = "RFD"
    owner_field = "account_id"

    refund_id: str
    transaction_id: str
    account_id: str
    amount: Money = Field(gt=0)
    reason: str
    payment_method_id: str = Field(description="Always the transaction's original method.")
    status: Literal["succeeded"] = "succeeded"
    created_at: Timestamp


class Dispute(Record):
    """A cardholder dispute (chargeback) on a transaction; blocks refunds while open."""

    id_prefix = "DSP"
    owner_field = "account_id"

    dispute_id: str
    transaction_id: str
    account_id: str
    amount: Money = Field(gt=0, description="Disputed amount: the charge minus what was already refunded.")
    reason: DisputeReason
    details: str
    status: DisputeStatus = "needs_response"
    opened_at: Timestamp
    evidence_due_by: IsoDate = Field(description="ISO date the merchant must respond by.")
    closed_at: Timestamp | None = Field(None, description="When the dispute was withdrawn or decided.")


class Receipt(Record):
    id_prefix = "RCPT"
    owner_field = "account_id"

    receipt_id: str
    transaction_id: str
    account_id: str
    channel: Literal["email", "sms"]
    destination: str = Field(description="Email or phone number on file.")
    sent_at: Timestamp


class LoyaltyEntry(Record):
    id_prefix = "LOY"
    owner_field = "account_id"
    id_field = "entry_id"

    entry_id: str
    account_id: str
    transaction_id: str
    points: int = Field(description="Positive when earned, negative when reversed by a refund.")
    kind: Literal["earn", "reversal"]
    created_at: Timestamp


class TransactionLogEntry(Record):
    id_prefix = "LOG"
    owner_field = "account_id"
    id_field = "log_id"

    log_id: str
    transaction_id: str
    account_id: str
    event: str = Field(description="checkout_completed, refund_issued, dispute_opened, ...")
    note: str
    created_at: Timestamp


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    per_transfer_limit: Money = Field(gt=0, description="Largest single transfer.")
    per_payment_limit: Money = Field(gt=0, description="Largest single checkout payment.")
    refund_window_days: int = Field(ge=0, description="Refunds only within this many days of capture.")
    dispute_window_days: int = Field(ge=0, description="Disputes only within this many days of capture.")
    loyalty_points_per_dollar: int = Field(ge=0)
    max_active_payment_methods: int = Field(ge=1)


class PaymentsState(BaseModel):
    """The whole world; ``seed.json`` and every task's ``initial_state`` must validate against it."""

    model_config = ConfigDict(extra="forbid")

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
