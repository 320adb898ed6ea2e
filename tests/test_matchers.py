from decimal import Decimal

import pytest

from pytest_crmbench.core.matchers import MISSING, check_constraint, describe, matches, result_reference, values_equal


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
        ({"$non_empty": True}, MISSING, False),
        ({"$non_empty": False}, MISSING, True),
        ({"$min_length": 2}, [1, 2], True),
        ({"$min_length": 2}, [1], False),
        ({"$min_length": 0}, MISSING, False),
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
        ({"$gte": "ten"}, "needs a number"),
        ({"$min_length": -1}, "non-negative integer"),
        ({"$min_length": True}, "non-negative integer"),
        ({"$non_empty": "yes"}, "true or false"),
        ({"$result": "process_payment"}, "needs '<tool>.<path>'"),
        ({"$result": "process_payment[x].transaction_id"}, "needs '<tool>.<path>'"),
        ({"$result": 3}, "needs '<tool>.<path>'"),
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
