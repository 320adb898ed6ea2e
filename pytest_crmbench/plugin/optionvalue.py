"""The one rule for every ``--crm-*`` option and its ``crm_*`` ini twin: the command line wins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

T = TypeVar("T")


def option_value(config: pytest.Config, name: str, convert: Callable[[Any], T]) -> T | None:
    """``--crm-x`` if given, else the ini value ``crm_x``, converted; None when neither is set.

    Option ``dest`` and ini name are the same string. A malformed ini value is a UsageError naming
    it (command-line values were already typed by argparse; ``convert`` may still refuse them).
    """
    given = config.getoption(name, None)
    if given is not None:
        return convert(given)
    raw = str(config.getini(name)).strip()
    if not raw:
        return None
    try:
        return convert(raw)
    except ValueError:
        kind = getattr(convert, "__name__", "value")
        raise pytest.UsageError(f"ini option {name} = {raw!r} is not a valid {kind}") from None


def required_value(config: pytest.Config, name: str, convert: Callable[[Any], T]) -> T:
    """:func:`option_value` for options whose ini twin has a default, so a value always exists."""
    value = option_value(config, name, convert)
    if value is None:
        raise pytest.UsageError(f"ini option {name} must not be empty")
    return value
