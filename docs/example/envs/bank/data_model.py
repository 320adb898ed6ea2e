"""The bank's world: customers, their accounts, transfers. The one source of truth for the state."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import Money, Record, Ref, Timestamp

# Ids of other records: the kit reports one naming no record ("names no customer").
CustomerId = Annotated[str, Ref("customers")]
AccountId = Annotated[str, Ref("accounts")]


class Customer(Record):
    customer_id: str = Field(description="e.g. CUS-1.")
    name: str
    email: str = Field(description="Identity check: the customer must state it.")


class Account(Record):
    owner_field = "customer_id"  # get("accounts", id, owner=customer_id): 403 for anyone else

    account_id: str = Field(description="e.g. ACC-1.")
    customer_id: CustomerId
    balance: Money = Field(ge=0)
    status: Literal["active", "frozen"] = "active"
    frozen_reason: str | None = None


class Transfer(Record):
    id_prefix = "XFER"  # insert() generates XFER-7Q2KD0

    transfer_id: str
    from_account: AccountId
    to_account: AccountId
    amount: Money = Field(gt=0)
    memo: str = ""
    created_at: Timestamp


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    per_transfer_limit: Money = Field(gt=0)


class BankState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    settings: Settings
    customers: dict[str, Customer]
    accounts: dict[str, Account]
    transfers: dict[str, Transfer]
