from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_crmbench.core.matchers import (
    MISSING,
    as_decimal,
    check_constraint,
    describe,
    matches,
    result_reference,
    values_equal,
)


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        (50, Decimal("50.00")),
        (130.00, Decimal("130.00")),
        ("2500.75", Decimal("2500.75")),
        (0.1, "0.10"),
        ({"a": [1, 2.50]}, {"a": [Decimal("1"), Decimal("2.5")]}),
        ("ACC-1", "ACC-1"),
        (None, None),
    ],
)
def test_values_equal(expected: object, actual: object) -> None:
    assert values_equal(expected, actual)


@pytest.mark.parametrize(
    ("expected", "actual"),
    [
        (50, Decimal("50.01")),
        (True, 1),  # booleans are not numbers
        (1, True),
        ("130.0", "130.00"),  # two strings compare as strings (ids like "02139" must stay distinct)
        ("50", "fifty"),
        ({"a": 1}, {"a": 1, "b": 2}),
        ([1, 2], [2, 1]),
        (0.1 + 0.2, Decimal("0.3")),  # the float's exact text is 0.30000000000000004
    ],
)
def test_values_differ(expected: object, actual: object) -> None:
    assert not values_equal(expected, actual)


@pytest.mark.parametrize(
    ("constraint", "actual", "result"),
    [
        ({"$contains": "REFUND"}, "Partial refund issued", True),
        ({"$contains": "x"}, ["a", "x"], True),
        ({"$contains": "x"}, 5, False),
        ({"$one_of": ["open", "new"]}, "new", True),
        ({"$one_of": ["open", "new"]}, "closed", False),
        ({"$gte": 10}, Decimal("10.00"), True),
        ({"$gte": 10}, "9.99", False),
        ({"$lte": 10}, "abc", False),
        ({"$non_empty": True}, [1], True),
        ({"$non_empty": True}, "", False),
        ({"$non_empty": True}, "   \n\t", False),  # whitespace is not content (issue 11 item 5)
        ({"$non_empty": False}, "  ", True),
        ({"$non_empty": True}, " x ", True),
        ({"$non_empty": True}, MISSING, False),
        ({"$non_empty": False}, MISSING, True),
        ({"$min_length": 2}, [1, 2], True),
        ({"$min_length": 2}, [1], False),
        ({"$min_length": 0}, MISSING, False),
        ({"$max_length": 1}, [1], True),
        ({"$max_length": 1}, [1, 2], False),
        ({"$max_length": 0}, [], True),
        ({"$max_length": 5}, MISSING, False),
        ({"$max_length": 5}, 3, False),
        ({"$length": 1}, [{"amount": 5}], True),
        ({"$length": 1}, [], False),
        ({"$length": 1}, [1, 2], False),
        ({"$length": 2}, {"a": 1, "b": 2}, True),
        ({"$length": 3}, "abc", True),
        ({"$length": 0}, MISSING, False),
        ({"$eq": {"a": 1}}, {"a": 1}, True),
        (5, MISSING, False),
        (None, MISSING, False),
    ],
)
def test_matches(constraint: object, actual: object, result: bool) -> None:
    assert matches(constraint, actual) is result


def test_literal_mapping_without_dollar_is_exact() -> None:
    assert matches({"gte": 1}, {"gte": 1})
    assert not matches({"gte": 1}, 5)


@pytest.mark.parametrize(
    ("constraint", "problem"),
    [
        ({"$startswith": "A"}, "unknown operator '$startswith'"),
        ({"$gte": 1, "$lte": 2}, "exactly one $key"),
        ({"$one_of": "a"}, "needs a list"),
        ({"$gte": "ten"}, "needs a finite number"),
        ({"$gte": float("nan")}, "NaN is not a value"),
        ({"$lte": Decimal("NaN")}, "NaN is not a value"),
        ({"$gte": float("inf")}, "needs a finite number"),
        ({"$one_of": [1, float("nan")]}, "NaN is not a value"),
        ({"$min_length": -1}, "non-negative integer"),
        ({"$min_length": True}, "non-negative integer"),
        ({"$max_length": -1}, "$max_length needs a non-negative integer"),
        ({"$length": 1.5}, "$length needs a non-negative integer"),
        ({"$length": "2"}, "$length needs a non-negative integer"),
        ({"$non_empty": "yes"}, "true or false"),
        ({"$result": "process_payment"}, "needs '<tool>.<path>'"),
        ({"$result": "process_payment[x].transaction_id"}, "needs '<tool>.<path>'"),
        ({"$result": 3}, "needs '<tool>.<path>'"),
        ({"$instant": "2026-03-05"}, "with its UTC offset"),
        ({"$instant": "2026-03-05T10:00:00"}, "with its UTC offset"),
        ({"$instant": "tomorrow at ten"}, "with its UTC offset"),
        ({"$instant": 1772730000}, "with its UTC offset"),
    ],
)
def test_malformed_constraints(constraint: object, problem: str) -> None:
    message = check_constraint(constraint)
    assert message is not None and problem in message


def test_describe_shows_decimals_plainly() -> None:
    assert describe(Decimal("130.00")) == "130.00"
    assert describe({"$gte": 10}) == "gte 10"


@pytest.mark.parametrize(
    "constraint",
    [
        {"balance": {"$gte": 1}, "status": "active"},
        {"a": {"$bogus": 1}},
        [{"$contains": "x"}],
        {"a": [{"b": {"$eq": 1}}]},
    ],
)
def test_operators_nested_in_a_literal_are_refused(constraint: object) -> None:
    message = check_constraint(constraint)
    assert message is not None and "dotted path" in message


def test_eq_may_hold_a_literal_with_dollar_keys() -> None:
    assert check_constraint({"$eq": {"$weird": 1}}) is None
    assert matches({"$eq": {"$weird": 1}}, {"$weird": 1})


def test_non_finite_numbers_are_not_decimals_and_never_crash_a_comparison() -> None:
    # {$gte: .nan} once passed validation, then crashed grading with InvalidOperation (issue 11 item 13).
    assert as_decimal(float("nan")) is None
    assert as_decimal(Decimal("sNaN")) is None
    assert as_decimal(float("inf")) is None
    assert matches({"$gte": 1}, Decimal("NaN")) is False
    assert matches({"$lte": 1}, float("nan")) is False


@pytest.mark.parametrize(
    ("operand", "reference"),
    [
        ("process_payment.transaction_id", ("process_payment", 0, "transaction_id")),
        ("process_payment[1].transaction_id", ("process_payment", 1, "transaction_id")),
        ("open_dispute.dispute.id", ("open_dispute", 0, "dispute.id")),
    ],
)
def test_result_references_name_a_tool_call_and_a_path(operand: str, reference: tuple[str, int, str]) -> None:
    assert check_constraint({"$result": operand}) is None
    assert result_reference(operand) == reference


def test_an_unbound_result_reference_matches_nothing() -> None:
    # The grader binds references against the trace; left unbound (no such call), nothing matches.
    assert not matches({"$result": "process_payment.transaction_id"}, "TXN-1")


@pytest.mark.parametrize(
    ("actual", "result"),
    [
        ("2026-03-05T10:00:00-07:00", True),
        ("2026-03-05T10:00-07:00", True),
        ("2026-03-05T17:00:00Z", True),
        ("2026-03-05T17:00:00+00:00", True),
        ("2026-03-05T18:00:00.000+01:00", True),
        ("2026-03-05T10:00:00+00:00", False),  # the local clock time with the wrong offset
        ("2026-03-05T10:00:00", False),  # no offset: not a moment
        ("2026-03-05", False),
        ("soon", False),
        ("2026-03-05T17:00:00Z" + " " * 80, False),  # too long to be a timestamp
        (None, False),
        (MISSING, False),
    ],
)
def test_instant_matches_every_spelling_of_the_same_moment(actual: object, result: bool) -> None:
    assert matches({"$instant": "2026-03-05T10:00:00-07:00"}, actual) is result


@given(
    moment=st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 1, 1), timezones=st.just(UTC)),
    minutes=st.integers(-14 * 60, 14 * 60),
    shift=st.integers(-(10**6), 10**6).filter(bool),
)
def test_instant_is_offset_independent_and_tells_moments_apart(moment: datetime, minutes: int, shift: int) -> None:
    written = moment.isoformat()
    local = moment.astimezone(timezone(timedelta(minutes=minutes))).isoformat()
    assert matches({"$instant": written}, local)
    assert not matches({"$instant": written}, (moment + timedelta(microseconds=shift)).isoformat())
