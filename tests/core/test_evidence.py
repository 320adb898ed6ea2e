"""``jsonable``: the JSON-safe copy every trace, hash and tool output goes through."""

from __future__ import annotations

import collections
import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from pytest_crmbench.core.evidence import jsonable


class Text(str):
    pass


class Amount(Decimal):
    pass


class Box(BaseModel):
    value: Any = None


def walked(value: Any) -> Any:
    """The definition, by ``isinstance`` alone in the order it has always had (subclasses included)."""
    if isinstance(value, Mapping):
        return {str(k): walked(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [walked(v) for v in value]
    if isinstance(value, Decimal):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, BaseModel):
        return walked(value.model_dump())
    return repr(value)


leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.text(max_size=5).map(Text),
    st.decimals(allow_nan=False, allow_infinity=False, places=2),
    st.decimals(allow_nan=False, allow_infinity=False, places=2).map(Amount),
    st.just(frozenset({1})),
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.one_of(st.text(max_size=3), st.integers()), inner, max_size=4),
        st.dictionaries(st.text(max_size=3), inner, max_size=4).map(collections.OrderedDict),
        inner.map(lambda v: Box(value=v)),
    ),
    max_leaves=20,
)


@given(values)
def test_the_fast_path_gives_what_the_definition_gives(value: Any) -> None:
    assert jsonable(value) == walked(value)


def test_decimals_stay_exact_and_the_result_is_json() -> None:
    copied = jsonable({"amount": Decimal("130.10"), 3: (Amount("0.10"), Text("x")), "box": Box(value=[1])})
    assert copied == {"amount": "130.10", "3": ["0.10", "x"], "box": {"value": [1]}}
    assert type(copied["3"][1]) is Text  # kept as given: a str subclass is still a str to json
    json.dumps(copied, allow_nan=False)
