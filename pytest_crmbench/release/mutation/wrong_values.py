"""Plausible wrong values for a write's argument: what an agent gets wrong, not random noise.

* a choice the schema offers (enum, ``Literal``, boolean): every other choice;
* a number: one cent less, one cent more, and the nearest round number (money an agent rounded);
* an id (a key of a collection in the world): other ids of the same collection, those the task
  mentions or that share an owner with the right record first (the customer's *other* card);
* a value of a record's field (a merchant name): another value of that field in the same collection.

Anything else (prose the agent composes, values the world does not know) has no plausible wrong
value and is left alone.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pytest_crmbench.core.matchers import as_decimal, values_equal
from pytest_crmbench.env.environment import ToolEnvironment

CENT = Decimal("0.01")
MAX_IDS = 2
"""How many other ids of a collection to try per argument (related ones first)."""


def wrong_values(
    environment: type[ToolEnvironment],
    tool: str,
    argument: str,
    value: Any,
    world: Mapping[str, Any],
    mentioned: Collection[str] = (),
) -> list[Any]:
    """Distinct plausible wrong values for ``tool(argument=value)``, in a stable order."""
    schema = _argument_schema(environment, tool, argument)
    choices = _choices(schema)
    if choices is not None:
        candidates = [choice for choice in choices if not values_equal(choice, value)]
    elif isinstance(value, bool) or value is None:
        candidates = []
    elif (number := as_decimal(value)) is not None and _numeric(schema, value):
        candidates = list(_near_numbers(number, integer=_is_integer(schema)))
    elif isinstance(value, str):
        candidates = _other_ids(value, world, mentioned) or _other_field_values(value, argument, world)
    else:
        candidates = []
    unique: list[Any] = []
    for candidate in candidates:
        if not values_equal(candidate, value) and not any(values_equal(candidate, u) for u in unique):
            unique.append(candidate)
    return unique


def _argument_schema(environment: type[ToolEnvironment], tool: str, argument: str) -> Mapping[str, Any]:
    spec = environment.tools[tool]
    properties = spec.json_schema()["function"]["parameters"].get("properties", {})
    schema = properties.get(argument, {})
    return schema if isinstance(schema, Mapping) else {}


def _variants(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    options = schema.get("anyOf")
    if isinstance(options, list):
        return [o for o in options if isinstance(o, Mapping) and o.get("type") != "null"]
    return [schema]


def _choices(schema: Mapping[str, Any]) -> list[Any] | None:
    values: list[Any] = []
    for variant in _variants(schema):
        if "enum" in variant:
            values.extend(variant["enum"])
        elif "const" in variant:
            values.append(variant["const"])
        elif variant.get("type") == "boolean":
            values.extend([True, False])
        else:
            return None
    return values or None


def _numeric(schema: Mapping[str, Any], value: Any) -> bool:
    types = {variant.get("type") for variant in _variants(schema)}
    # A Decimal parameter's schema is {"anyOf": [{"type": "number"}, {"type": "string", "pattern": ...}]}.
    return bool(types & {"number", "integer"}) or (not types - {None} and not isinstance(value, str))


def _is_integer(schema: Mapping[str, Any]) -> bool:
    return {variant.get("type") for variant in _variants(schema)} == {"integer"}


def _near_numbers(number: Decimal, *, integer: bool) -> Iterator[Decimal]:
    step = Decimal(1) if integer else CENT
    if number - step > 0 or number <= 0:
        yield number - step
    yield number + step
    yield _round_number(number)


def _round_number(number: Decimal) -> Decimal:
    """The amount an agent that rounds would use: whole dollars, else one significant figure."""
    if number != number.to_integral_value():
        return number.quantize(Decimal(1), rounding=ROUND_HALF_UP)
    magnitude = Decimal(10) ** max(len(str(abs(int(number)))) - 1, 0)
    rounded = (number / magnitude).quantize(Decimal(1), rounding=ROUND_HALF_UP) * magnitude
    return rounded if rounded != number else number + magnitude


def _collections(world: Any, prefix: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every mapping of records (id -> mapping) in the world, with its dotted path."""
    if not isinstance(world, Mapping):
        return
    for key, child in world.items():
        if isinstance(child, Mapping):
            if child and all(isinstance(record, Mapping) for record in child.values()):
                yield f"{prefix}{key}", child
            yield from _collections(child, f"{prefix}{key}.")


def _other_ids(value: str, world: Mapping[str, Any], mentioned: Collection[str]) -> list[str]:
    for _, records in _collections(world):
        if value not in records:
            continue
        record = records[value]
        owners = {k: v for k, v in record.items() if k.endswith("_id") and isinstance(v, str) and v != value}
        others = [key for key in records if key != value]
        related = [k for k in others if any(records[k].get(f) == v for f, v in owners.items())]
        ranked = [k for k in others if k in mentioned] + related + others
        return list(dict.fromkeys(ranked))[:MAX_IDS]
    return []


def _other_field_values(value: str, argument: str, world: Mapping[str, Any]) -> list[str]:
    for _, records in _collections(world):
        # An ordered set: iterating a plain set would make mutation ids depend on the hash seed.
        fields = dict.fromkeys([argument, *(f for r in records.values() for f, v in r.items() if v == value)])
        for field in fields:
            seen = [r.get(field) for r in records.values() if isinstance(r.get(field), str)]
            if value in seen:
                return [v for v in dict.fromkeys(seen) if v != value][:MAX_IDS]
    return []
