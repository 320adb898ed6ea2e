"""Memory flat in run length (issue 14): what a finished item no longer needs is dropped.

pytest keeps every item for the whole session and its terminal reporter keeps every report, so
whatever an item or report still holds at its end stays in memory until the run ends: an
episode's evidence and verdict (on the item's stash), its trajectory's JSON text (a
``user_properties`` entry, copied onto each later report of the item). The trajectory is dropped
from the item when its teardown starts (so the teardown report never copies it) and from that
report once every other ``pytest_runtest_logreport`` has seen it: after xdist sent it to the
controller (on a worker) and after the recorder wrote it to the run directory (on the controller).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

import pytest

from pytest_crmbench.plugin.stash import evidence_key, played_key, verdict_key
from pytest_crmbench.results.records import TRACE_PROPERTY

T = TypeVar("T")


def without_trace(properties: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return [entry for entry in properties if entry[0] != TRACE_PROPERTY]


def _drop(stash: pytest.Stash, key: pytest.StashKey[T]) -> None:
    if key in stash:
        del stash[key]


class ForgetFinished:
    """Registered as ``crmbench-forget`` on every process that runs or records items."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        # The call report exists by now (each check's subtest report goes through
        # pytest_runtest_makereport too, so that hook cannot tell the item's own); the teardown
        # report, made after this hook, no longer copies the trajectory.
        item.user_properties = without_trace(item.user_properties)
        # The evidence and verdict after every other teardown hook (a conftest may read them there).
        try:
            yield
        finally:
            _drop(item.stash, evidence_key)
            _drop(item.stash, verdict_key)
            _drop(item.stash, played_key)

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" and any(name == TRACE_PROPERTY for name, _ in report.user_properties):
            report.user_properties = without_trace(report.user_properties)
