"""Value matchers shared by parameter constraints and state checks.

A constraint written in a task contract is either a literal (exact match) or a mapping with a
single ``$operator`` key. The ``$`` prefix keeps operators unambiguous next to literal mappings::

    amount: 50                      # exact (numbers compare exactly as decimals: 50 == 50.00)
    reason: {$contains: duplicate}  # case-insensitive substring
    status: {$one_of: [open, new]}
    amount: {$gte: 10}
    notes: {$non_empty: true}
    items: {$min_length: 2}         # at least 2 items (or characters, or keys)
    items: {$max_length: 3}         # at most 3
    items: {$length: 1}             # exactly 1: one refund, not two
    payload: {$eq: {a: 1}}          # exact, for a literal that is itself a mapping
    transaction_id: {$result: process_payment.transaction_id}   # a value an earlier call returned
    start: {$instant: "2026-03-05T10:00:00-07:00"}   # any spelling of that moment (…17:00Z too)

Numbers never go through binary floats: both sides are converted with ``Decimal(str(x))``, so the
YAML literal ``130.00`` equals the state value ``Decimal("130.00")`` or ``"130.00"`` when the
state stores money as a decimal string.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<missing>"})()
"""Sentinel for a state path or argument that does not exist."""


def as_decimal(value: Any) -> Decimal | None:
    """The exact decimal value of a number or a numeric string, else None. Booleans are not numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    if isinstance(value, float):
        return Decimal(str(value)) if math.isfinite(value) else None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, str):
        try:
            number = Decimal(value.strip())
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    return None


def values_equal(expected: Any, actual: Any) -> bool:
    """Structural equality where numbers (and numeric strings facing numbers) compare as decimals."""
    if isinstance(expected, Mapping):
        return (
            isinstance(actual, Mapping)
            and expected.keys() == actual.keys()
            and all(values_equal(expected[k], actual[k]) for k in expected)
        )
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(actual, (list, tuple))
            and len(expected) == len(actual)
            and all(values_equal(e, a) for e, a in zip(expected, actual, strict=True))
        )
    if _is_number(expected) or _is_number(actual):
        left, right = as_decimal(expected), as_decimal(actual)
        return left is not None and right is not None and left == right
    return bool(expected == actual) and type(expected) is type(actual)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def _compare(op: Callable[[Decimal, Decimal], bool]) -> Callable[[Any, Any], bool]:
    def check(bound: Any, actual: Any) -> bool:
        left, right = as_decimal(actual), as_decimal(bound)
        return left is not None and right is not None and op(left, right)

    return check


def _contains(needle: Any, actual: Any) -> bool:
    if isinstance(actual, str):
        return str(needle).casefold() in actual.casefold()
    if isinstance(actual, (list, tuple)):
        return any(values_equal(needle, item) for item in actual)
    return False


def _non_empty(flag: Any, actual: Any) -> bool:
    # Whitespace is not content: a note of three spaces is as empty as no note.
    blank = isinstance(actual, str) and not actual.strip()
    present = actual is not MISSING and actual is not None and not blank and actual != [] and actual != {}
    return present if flag else not present


def _sized(test: Callable[[int, int], bool]) -> Callable[[Any, Any], bool]:
    # Only things with a length have one: a number or a missing path never satisfies a length bound.
    def check(bound: Any, actual: Any) -> bool:
        return isinstance(actual, (str, list, tuple, Mapping)) and test(len(actual), bound)

    return check


MAX_TIMESTAMP_CHARS = 64
"""Longer text is not a timestamp (and is never handed to the date parser)."""


def as_instant(value: Any) -> datetime | None:
    """The moment an ISO 8601 timestamp with a UTC offset names, else None (a date, a naive time)."""
    if not isinstance(value, str) or len(value) > MAX_TIMESTAMP_CHARS:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def _same_instant(expected: Any, actual: Any) -> bool:
    # "2026-03-05T10:00-07:00", "2026-03-05T17:00:00Z" and "…17:00:00+00:00" are one moment: an
    # agent that writes any of them did the same thing, and an exact-text pin would fail it.
    moment = as_instant(actual)
    return moment is not None and moment == as_instant(expected)


OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": values_equal,
    "$one_of": lambda options, actual: any(values_equal(o, actual) for o in options),
    "$contains": _contains,
    "$gte": _compare(lambda a, b: a >= b),
    "$lte": _compare(lambda a, b: a <= b),
    "$non_empty": _non_empty,
    "$min_length": _sized(lambda length, bound: length >= bound),
    "$max_length": _sized(lambda length, bound: length <= bound),
    "$length": _sized(lambda length, bound: length == bound),
    "$instant": _same_instant,
}


LENGTH_OPERATORS = ("$min_length", "$max_length", "$length")
"""Bounds on the size of a value: about its shape, not its type."""

RESULT = "$result"
"""``{$result: "<tool>[<n>].<path>"}``: equal to ``path`` in the result of the tool's n-th successful
call (``[0]``, the first, when omitted). Generated ids (``TXN-…``) depend on the seed; a contract
refers to them this way. The grader binds the reference against the trace before matching
(:func:`bind_results`); an unbound reference matches nothing."""

_RESULT_REFERENCE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?((?:\.[^.\s\[\]]+)+)$")


def result_reference(operand: Any) -> tuple[str, int, str] | None:
    """``(tool, n, path)`` of a ``$result`` operand such as ``process_payment[1].transaction_id``."""
    match = _RESULT_REFERENCE.match(operand) if isinstance(operand, str) else None
    if match is None:
        return None
    return match.group(1), int(match.group(2) or 0), match.group(3)[1:]


def operator_of(constraint: Any) -> tuple[str, Any] | None:
    """``("$op", operand)`` when the constraint is an operator mapping, else None (a literal)."""
    if isinstance(constraint, Mapping) and len(constraint) == 1:
        ((key, operand),) = constraint.items()
        if isinstance(key, str) and key.startswith("$"):
            return key, operand
    return None


def check_constraint(constraint: Any) -> str | None:
    """Why a constraint is malformed, or None. Used by the task loader to fail at collection."""
    if _has_nan(constraint):
        return "NaN is not a value (it equals nothing, and no number is above or below it)"
    top_level = isinstance(constraint, Mapping) and any(isinstance(k, str) and k.startswith("$") for k in constraint)
    if not top_level and _nested_operator(constraint):
        # {balance: {$gte: 1}} inside a literal would be compared as the literal text "$gte" and
        # never match: say so rather than fail every agent silently.
        return "operators apply to a whole value: use a dotted path per field (or $eq for a literal with $ keys)"
    if isinstance(constraint, Mapping) and any(isinstance(k, str) and k.startswith("$") for k in constraint):
        found = operator_of(constraint)
        if found is None:
            return "an operator mapping must have exactly one $key"
        name, operand = found
        if name == RESULT:
            if result_reference(operand) is None:
                return "$result needs '<tool>.<path>' or '<tool>[<n>].<path>', e.g. 'process_payment.transaction_id'"
            return None
        if name not in OPERATORS:
            return f"unknown operator {name!r}; known: {', '.join([*OPERATORS, RESULT])}"
        if name == "$one_of" and not isinstance(operand, list):
            return "$one_of needs a list"
        if name in ("$gte", "$lte") and as_decimal(operand) is None:
            return f"{name} needs a finite number"
        if name in LENGTH_OPERATORS and (not isinstance(operand, int) or isinstance(operand, bool) or operand < 0):
            return f"{name} needs a non-negative integer"
        if name == "$non_empty" and not isinstance(operand, bool):
            return "$non_empty needs true or false"
        if name == "$instant" and as_instant(operand) is None:
            return "$instant needs an ISO 8601 timestamp with its UTC offset, e.g. 2026-03-05T10:00:00-07:00"
    if _has_infinity(constraint):
        # No state holds an infinite amount (the state model refuses one), so the check could never
        # pass: `crmbench validate` and collection refuse it alike (bounds say "needs a finite number").
        return "an infinite number is not a value a state can hold"
    return None


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, Decimal):
        return value.is_nan()
    if isinstance(value, Mapping):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_nan(v) for v in value)
    return False


def _has_infinity(value: Any) -> bool:
    if isinstance(value, (float, Decimal)):
        return math.isinf(value)
    if isinstance(value, Mapping):
        return any(_has_infinity(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_infinity(v) for v in value)
    return False


def _nested_operator(value: Any) -> bool:
    if isinstance(value, Mapping):
        return any((isinstance(k, str) and k.startswith("$")) or _nested_operator(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_nested_operator(v) for v in value)
    return False


def matches(constraint: Any, actual: Any) -> bool:
    """Whether ``actual`` satisfies the constraint (literal = exact match)."""
    found = operator_of(constraint)
    if found is None:
        return actual is not MISSING and values_equal(constraint, actual)
    name, operand = found
    if name == RESULT or (actual is MISSING and name != "$non_empty"):
        return False  # an unbound reference: the call it names never succeeded
    return OPERATORS[name](operand, actual)


def show(value: Any) -> str:
    """A value as a diff shows it: decimals without ``Decimal(...)`` noise, missing paths named."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return repr(value)


def describe(constraint: Any) -> str:
    """A short human text for a constraint, used in verdict diffs."""
    found = operator_of(constraint)
    if found is None:
        return show(constraint)
    name, operand = found
    return f"{name[1:]} {show(operand)}"
