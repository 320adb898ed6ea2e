"""Value types for tool arguments and state fields: money, non-blank text, dates.

Use them as type hints; the environment validates with them once, where a value enters:

* a **tool argument** that breaks the rule becomes a 422 :class:`~pytest_crmbench.env.rejection.Rejection`
  naming the argument (``{"status": 422, "code": "INVALID_AMOUNT", "param": "amount"}``): the
  model sent a well-formed call the business refuses, and can correct it. A value of the wrong
  JSON type (``true`` or ``"lots"`` for an amount) stays a malformed call (status ``error``).
* a **state field** (the seed, a task's ``initial_state``, a record a tool writes) that breaks it
  is an error in the data, reported with its dotted path by ``crmbench validate``.

==============  ==================================================================================
``Money``       exact :class:`~decimal.Decimal` with two places, any sign. Accepts a JSON number,
                an int, a Decimal or a string in plain decimal notation (``"1250.5"``, ``"-3"``);
                refuses ``1e308``, ``"1_0"``, non-ASCII digits, NaN/infinity, sub-cent values
                and anything from 10,000,000,000,000 up. Always stored as ``Decimal("x.yy")``.
``Amount``      ``Money`` greater than zero (what a customer pays, transfers or is refunded).
``NonBlank``    text that is not empty after stripping; the stripped text is what the tool gets.
                A blank value is 422 ``<ARGUMENT>_REQUIRED`` ("Give the reason."); customise with
                ``Annotated[str, Required("Give the reason for the freeze.")]``.
``IsoDate``     ``YYYY-MM-DD`` (a real date), kept as the string; 422 ``INVALID_DATE``.
``YearMonth``   ``YYYY-MM``, kept as the string; 422 ``INVALID_MONTH``.
``Timestamp``   an ISO 8601 timestamp with its UTC offset (state fields written by :meth:`stamp`).
==============  ==================================================================================

The JSON schema the model sees is that of the plain type (``Money``: number or string).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, get_args

from pydantic import BeforeValidator, GetCoreSchemaHandler, ValidationError, ValidationInfo
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError, core_schema

from pytest_crmbench.env.rejection import Rejection

CENT = Decimal("0.01")
ZERO = Decimal("0.00")
"""Money zero, as every Money value is stored (two places)."""


def norm(text: str | None) -> str:
    """Text as identity details are compared in every domain: case and runs of spaces ignored
    ("Dana  Whitfield " is "dana whitfield"), so whether an agent's verification succeeds never
    depends on which domain checks it."""
    return " ".join((text or "").split()).casefold()


MONEY_LIMIT = Decimal(10) ** 13
"""Amounts must stay below ten trillion: more digits than that are a typo or an attack, and a
cents Decimal of that size still fits the default 28-digit context exactly."""

REJECTION_ERROR = "crm_rejection"
"""The pydantic error type of a value rule; :func:`argument_rejection` turns it into a Rejection."""

_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?")
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_YEAR_MONTH = re.compile(r"[0-9]{4}-(0[1-9]|1[0-2])")


def value_rule(code: str, message: str, status: int = 422) -> PydanticCustomError:
    """The validation error of a broken value rule (a rejection when it comes from an argument)."""
    return PydanticCustomError(REJECTION_ERROR, "{message}", {"status": status, "code": code, "message": message})


def argument_rejection(exc: ValidationError) -> Rejection | None:
    """The rejection a tool call's validation error stands for, or None when the call is malformed.

    Only when every error is a broken value rule is the call a business rejection (of the first
    one, in argument order); a single type error makes the whole call malformed.
    """
    errors = exc.errors(include_url=False)
    if not errors or any(error["type"] != REJECTION_ERROR for error in errors):
        return None
    first = errors[0]
    context = first.get("ctx") or {}
    param = ".".join(str(part) for part in first["loc"]) or None
    return Rejection(int(context["status"]), str(context["code"]), str(context["message"]), param=param)


# -- money -------------------------------------------------------------------------------------


def _money_rule(message: str) -> PydanticCustomError:
    return value_rule("INVALID_AMOUNT", message)


def _exact_number(value: Any) -> Decimal:
    """The exact number a JSON/YAML/Python value spells, refusing notations a ledger never uses."""
    if isinstance(value, bool):
        raise ValueError("expected a number, got a boolean")
    if not isinstance(value, int | float | str | Decimal):  # pydantic's own wording for Decimal
        raise PydanticCustomError("decimal_type", "Decimal input should be an integer, float, string or Decimal object")
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise _money_rule("Amount must be a finite number.")
        return value
    text = repr(value) if isinstance(value, float) else value.strip()
    if isinstance(value, str):
        try:
            Decimal(text)
        except InvalidOperation:
            raise PydanticCustomError("decimal_parsing", "Input should be a valid decimal") from None
    if not _PLAIN_NUMBER.fullmatch(text):
        finite = Decimal(text).is_finite()
        raise _money_rule(
            "Write the amount in plain decimal notation, such as 1250.00."
            if finite
            else "Amount must be a finite number."
        )
    return Decimal(text)


def to_money(value: Any) -> Decimal:
    """``value`` as an exact amount with two places (see the module docstring for what is refused)."""
    if type(value) is Decimal and value.as_tuple().exponent == -2 and value and abs(value) < MONEY_LIMIT:
        return value  # already canonical: the common case when the state is re-validated after a write
    number = _exact_number(value)
    if abs(number) >= MONEY_LIMIT:
        raise _money_rule("Amount is too large.")
    cents = number.quantize(CENT)
    if cents != number:
        raise _money_rule("Amount cannot have more than two decimal places.")
    return cents + Decimal("0.00")  # ``+ 0.00`` turns -0.00 into 0.00


def to_amount(value: Any) -> Decimal:
    """Money strictly greater than zero."""
    money = to_money(value)
    if money <= 0:
        raise _money_rule("Amount must be greater than zero.")
    return money


Money = Annotated[Decimal, BeforeValidator(to_money)]
Amount = Annotated[Decimal, BeforeValidator(to_amount)]


# -- text and dates ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Required:
    """``Annotated[str, Required(message)]``: non-blank text, stripped; blank is a 422 naming the field.

    ``code`` defaults to ``<FIELD>_REQUIRED`` and ``message`` to ``"Give the <field>."``.
    """

    message: str | None = None
    code: str | None = None

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.with_info_after_validator_function(self._check, handler(source))

    def _check(self, value: str | None, info: ValidationInfo) -> str | None:
        if not isinstance(value, str):
            return value  # an optional argument left out (Annotated[str | None, Required(...)])
        text = value.strip()
        if not text:
            field = info.field_name or "value"
            raise value_rule(
                self.code or f"{field.upper()}_REQUIRED", self.message or f"Give the {field.replace('_', ' ')}."
            )
        return text


@dataclass(frozen=True)
class _Format:
    """A string that must parse with ``parse`` (after matching ``pattern``); kept as the string."""

    pattern: re.Pattern[str]
    parse: Any
    code: str
    message: str

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self._check, handler(source))

    def _check(self, value: str | None) -> str | None:
        if value is not None and not self._valid(value):
            raise value_rule(self.code, self.message)
        return value

    @functools.lru_cache(maxsize=8192)  # noqa: B019 - instances are a handful of module constants
    def _valid(self, value: str) -> bool:
        try:
            return bool(self.pattern.fullmatch(value)) and self.parse(value) is not None
        except ValueError:
            return False


def _parse_timestamp(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError("no UTC offset")
    return parsed


NonBlank = Annotated[str, Required()]
IsoDate = Annotated[str, _Format(_ISO_DATE, date.fromisoformat, "INVALID_DATE", "Use an ISO date such as 2026-02-01.")]
YearMonth = Annotated[str, _Format(_YEAR_MONTH, lambda value: value, "INVALID_MONTH", "Use YYYY-MM, e.g. 2026-02.")]
_TIMESTAMP_RULE = _Format(
    re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T.+"),
    _parse_timestamp,
    "INVALID_TIMESTAMP",
    "Use an ISO timestamp with its offset, such as 2026-03-02T09:00:00+00:00.",
)
Timestamp = Annotated[str, _TIMESTAMP_RULE]


def names_an_instant(field: FieldInfo) -> bool:
    """Whether a tool argument is a :data:`Timestamp` (also inside ``Timestamp | None``): many
    spellings name one moment, so a contract compares it with ``$instant``, never as text."""
    return _TIMESTAMP_RULE in field.metadata or any(
        _TIMESTAMP_RULE in getattr(member, "__metadata__", ()) for member in get_args(field.annotation)
    )
