"""plugin/forget.py shares equal values between kept reports, and never breaks on values it cannot key."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_crmbench.plugin.forget import ForgetFinished


def report(when: Any, *location: Any, kind: type = tuple) -> pytest.TestReport:
    """A report as pytest makes them: its own location and keywords (built here, never a constant)."""
    return pytest.TestReport("tasks/t.yaml::task[t1]", kind(location), {"task": 1}, "passed", None, when)


def test_equal_values_are_shared_within_an_item_and_forgotten_after_its_teardown() -> None:
    forget = ForgetFinished()
    setup, call, teardown = (report(when, "tasks/t.yaml", 3, "task") for when in ("setup", "call", "teardown"))
    assert setup.location is not call.location  # pytest makes a copy per report
    for each in (setup, call, teardown):
        forget.pytest_runtest_logreport(each)
    assert setup.location is call.location is teardown.location
    assert setup.keywords is call.keywords is teardown.keywords
    later = report("setup", "tasks/t.yaml", 3, "task")
    forget.pytest_runtest_logreport(later)  # the same node id again (a rerun): nothing kept from before
    assert later.location is not setup.location


def test_a_different_or_unhashable_value_is_left_as_it_is() -> None:
    forget = ForgetFinished()
    first, other, odd = (
        report("setup", "a", 1, "x"),
        report("call", "b", 2, "y"),
        report("call", "a", 1, "x", kind=list),
    )
    for each in (first, other, odd):
        forget.pytest_runtest_logreport(each)
    assert other.location == ("b", 2, "y") and other.location is not first.location
    assert odd.location == list(first.location)  # a list cannot be a key: kept, no error
    assert isinstance(odd.location, list)
