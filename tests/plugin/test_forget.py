"""plugin/forget.py shares equal values between kept reports, and never breaks on values it cannot key."""

from __future__ import annotations

from typing import Any

import pytest

# pytest 9 builds a subtest report's context from this; it exports the report, not the context.
from _pytest.subtests import SubtestContext

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


def rebuilt(original: pytest.TestReport) -> pytest.TestReport:
    """The report as an xdist controller holds it: rebuilt from the worker's message, every string a copy."""
    data = original._to_json()
    copied = {k: (v.encode().decode() if isinstance(v, str) else v) for k, v in data.items()}
    # What xdist adds: the report's type (its serialisation hook), the worker and the run.
    copied["$report_type"] = type(original).__name__.encode().decode()
    copied["worker_id"], copied["testrun_uid"] = b"gw0".decode(), b"5a43b1f5f3854cdda88a".decode()
    copied["user_properties"] = [
        (name.encode().decode(), value.encode().decode()) for name, value in data["user_properties"]
    ]
    return type(original)._from_json(copied)


def test_a_controllers_rebuilt_reports_share_their_strings_and_outcome_entry() -> None:
    forget = ForgetFinished()
    reports = []
    for number in range(2):
        original = pytest.TestReport(f"tasks/t.yaml::task{number}", ("t", 1, "x"), {}, "passed", None, "call")
        original.user_properties = [("crm_outcome", "success"), ("mine", "kept")]
        reports.append(rebuilt(original))
    first, second = reports
    assert first.outcome is not second.outcome  # fresh copies, as execnet makes them
    for each in reports:
        forget.pytest_runtest_logreport(each)
    for name in ("outcome", "when", "worker_id", "testrun_uid", "$report_type"):
        assert getattr(first, name) is getattr(second, name), name
    assert first.user_properties[0] is second.user_properties[0]
    assert first.user_properties == second.user_properties == [("crm_outcome", "success"), ("mine", "kept")]


def test_a_rebuilt_subtest_report_keeps_its_context_not_the_json_it_came_from() -> None:
    forget = ForgetFinished()
    call = pytest.TestReport("tasks/t.yaml::task", ("t", 1, "x"), {}, "passed", None, "call")
    subtest = pytest.SubtestReport._new(call, SubtestContext(msg="state[0] x", kwargs={}), None, None)
    again = pytest.SubtestReport._from_json(subtest._to_json())
    assert "_subtest.context" in vars(again)
    forget.pytest_runtest_logreport(again)
    assert "_subtest.context" not in vars(again)
    assert again.context == SubtestContext(msg="state[0] x", kwargs={})
    assert pytest.SubtestReport._from_json(again._to_json()).context == again.context  # still serialisable
