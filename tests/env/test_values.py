"""Value types: what Money, Amount, NonBlank, Required and the date types accept and refuse."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from pytest_crmbench import Amount, IsoDate, Money, NonBlank, Required, Timestamp, YearMonth
from pytest_crmbench.env.values import REJECTION_ERROR, argument_rejection

MONEY = TypeAdapter(Money)
AMOUNT = TypeAdapter(Amount)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (50, "50.00"),
        ("50", "50.00"),
        (" 50.5 ", "50.50"),
        ("+7", "7.00"),
        (15.5, "15.50"),
        (Decimal("10.000"), "10.00"),  # exactly ten dollars, written with three places
        (Decimal("1E+3"), "1000.00"),  # a Decimal (YAML's 1e3) is a number, not a notation
        ("-3", "-3.00"),
        ("-0", "0.00"),  # no negative zero in the state
        ("9999999999999.99", "9999999999999.99"),
    ],
    ids=repr,
)
def test_money_accepts_exact_amounts_and_keeps_two_places(value: Any, expected: str) -> None:
    money = MONEY.validate_python(value)
    assert type(money) is Decimal and str(money) == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1e308", "plain decimal notation"),
        (1e308, "plain decimal notation"),
        (1e16, "plain decimal notation"),  # repr is 1e+16
        ("1E3", "plain decimal notation"),
        ("1_0", "plain decimal notation"),
        ("١٢", "plain decimal notation"),  # Arabic-Indic digits: Decimal() would take them
        ("NaN", "finite number"),
        ("inf", "finite number"),
        (float("nan"), "finite number"),
        (Decimal("Infinity"), "finite number"),
        ("10.005", "more than two decimal places"),
        (0.1 + 0.2, "more than two decimal places"),
        ("10000000000000", "too large"),
        (10**30, "too large"),
    ],
    ids=repr,
)
def test_money_refuses_what_a_ledger_never_holds_as_a_value_rule(value: Any, message: str) -> None:
    with pytest.raises(ValidationError) as caught:
        MONEY.validate_python(value)
    (error,) = caught.value.errors()
    assert error["type"] == REJECTION_ERROR and error["ctx"]["code"] == "INVALID_AMOUNT"
    assert message in error["msg"]


@pytest.mark.parametrize("value", [True, "lots", "", None, [], {"a": 1}])
def test_money_of_the_wrong_type_is_a_type_error_not_a_rule(value: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        MONEY.validate_python(value)
    assert caught.value.errors()[0]["type"] != REJECTION_ERROR


@pytest.mark.parametrize("value", [0, "0.00", -1, "-0.01"])
def test_amount_is_greater_than_zero(value: Any) -> None:
    with pytest.raises(ValidationError, match="Amount must be greater than zero"):
        AMOUNT.validate_python(value)
    assert AMOUNT.validate_python("0.01") == Decimal("0.01")


def test_money_schemas_are_those_of_decimal_and_text_ones_of_str() -> None:
    assert MONEY.json_schema() == AMOUNT.json_schema() == TypeAdapter(Decimal).json_schema()
    for text_type in (NonBlank, IsoDate, YearMonth, Timestamp):
        assert TypeAdapter(text_type).json_schema() == {"type": "string"}


@given(st.decimals(min_value=-(10**12), max_value=10**12, places=2, allow_nan=False, allow_infinity=False))
def test_every_two_place_amount_round_trips_through_every_spelling(amount: Decimal) -> None:
    for spelling in (amount, str(amount), format(amount, "f")):
        assert MONEY.validate_python(spelling) == amount
    assert MONEY.validate_python(amount).as_tuple().exponent == -2


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_float_is_its_shortest_repr_or_refused(number: float) -> None:
    try:
        money = MONEY.validate_python(number)
    except ValidationError as exc:
        assert exc.errors()[0]["type"] == REJECTION_ERROR
    else:
        assert money == Decimal(repr(number))


class Args(BaseModel):
    amount: Amount
    reason: NonBlank
    note: Annotated[str, Required("Say what the note is about.", code="NOTE_MISSING")] = "x"
    since: IsoDate | None = None
    month: YearMonth | None = None


def rejection_of(**arguments: Any) -> Any:
    with pytest.raises(ValidationError) as caught:
        Args.model_validate(arguments)
    return argument_rejection(caught.value)


def test_nonblank_strips_and_a_blank_value_is_a_422_naming_the_field() -> None:
    assert Args.model_validate({"amount": 1, "reason": "  lost phone "}).reason == "lost phone"
    rejection = rejection_of(amount=1, reason="   ")
    assert rejection.as_error() == {
        "status": 422,
        "code": "REASON_REQUIRED",
        "message": "Give the reason.",
        "param": "reason",
    }
    custom = rejection_of(amount=1, reason="ok", note=" ")
    assert (custom.code, custom.message, custom.param) == ("NOTE_MISSING", "Say what the note is about.", "note")


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("since", "2026-02-30", "INVALID_DATE"),
        ("since", "20260201", "INVALID_DATE"),  # basic format: date.fromisoformat takes it, we do not
        ("since", "yesterday", "INVALID_DATE"),
        ("month", "2026-13", "INVALID_MONTH"),
        ("month", "2026-2", "INVALID_MONTH"),
        ("month", "Feb", "INVALID_MONTH"),
    ],
)
def test_dates_and_months_are_iso_or_a_422(field: str, value: str, code: str) -> None:
    rejection = rejection_of(amount=1, reason="x", **{field: value})
    assert (rejection.status, rejection.code, rejection.param) == (422, code, field)
    assert (
        Args.model_validate({"amount": 1, "reason": "x", "since": "2026-02-01", "month": "2026-02"}).month == "2026-02"
    )


def test_timestamps_need_their_offset() -> None:
    stamps = TypeAdapter(Timestamp)
    assert stamps.validate_python("2026-03-02T09:00:01+00:00") == "2026-03-02T09:00:01+00:00"
    for bad in ("2026-03-02T09:00:01", "2026-03-02", "soon"):
        with pytest.raises(ValidationError, match="ISO timestamp"):
            stamps.validate_python(bad)


def test_the_first_broken_rule_in_argument_order_is_the_rejection() -> None:
    rejection = rejection_of(amount="0", reason=" ")
    assert (rejection.code, rejection.param) == ("INVALID_AMOUNT", "amount")


def test_a_type_error_anywhere_makes_the_call_malformed_not_rejected() -> None:
    assert rejection_of(amount="lots", reason=" ") is None
    assert rejection_of(amount=1) is None  # a missing argument is malformed too


def test_a_required_rule_lets_an_optional_none_through() -> None:
    class Optional(BaseModel):
        reason: Annotated[str | None, Required()] = None

    assert Optional.model_validate({"reason": None}).reason is None
    with pytest.raises(ValidationError, match="Give the reason"):
        Optional.model_validate({"reason": " "})
