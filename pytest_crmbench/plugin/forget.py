"""Memory flat in run length (issue 14): what a finished item no longer needs is dropped.

pytest keeps every item for the whole session and its terminal reporter keeps every report, so
whatever an item or report still holds at its end stays in memory until the run ends: an
episode's evidence and verdict (on the item's stash), its trajectory's JSON text (a
``user_properties`` entry, copied onto each later report of the item), its result record's JSON
text (on the item and every later report too), and each report's own copy of the item's keywords.
The trajectory is dropped from the item when its teardown starts (so the teardown report never
copies it); the trajectory and the result record leave each report once every other
``pytest_runtest_logreport`` has seen it: after xdist sent it to the controller (on a worker),
after the recorder wrote it to the run directory and after ``--junitxml`` listed the record as a
property (on the controller); the result record leaves the item once its last report is logged.
The reports of one item share their keywords mapping, location and parsed node id with every
equal one, and the subtest reports of a check share one context with every trial's (pytest
makes an equal copy for each report: a subtest report is even rebuilt from its JSON). Only equal
values are shared, immutable ones but for the keywords mapping, and only after every other
``pytest_runtest_logreport`` hook has seen the report.

Under xdist the controller keeps a report rebuilt from each worker's message, every string of it
a fresh copy: its outcome, phase, report type, worker id and run id are interned, its outcome
property is one shared entry per outcome, and a subtest report's raw context (the JSON it was
rebuilt from, kept beside the ``context`` made of it) is dropped. That was about 13 KiB of the
29 KiB a controller kept per episode (``benchmarks/bench_memory.py --workers 1``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator, Mapping
from typing import Any, TypeVar

import pytest

from pytest_crmbench.plugin.collect import OUTCOME_PROPERTY
from pytest_crmbench.plugin.stash import evidence_key, played_key, verdict_key
from pytest_crmbench.results.records import RESULT_PROPERTY, TRACE_PROPERTY

T = TypeVar("T")


EPISODE_PROPERTIES = (TRACE_PROPERTY, RESULT_PROPERTY)


def without(properties: list[tuple[str, Any]], names: tuple[str, ...]) -> list[tuple[str, Any]]:
    """The properties without those ``names``; a user's own properties stay. A list with none of
    them is returned as it is: every subtest report has one, and copies would add up per episode."""
    if not any(entry[0] in names for entry in properties):
        return properties
    return [entry for entry in properties if entry[0] not in names]


def _drop(stash: pytest.Stash, key: pytest.StashKey[T]) -> None:
    if key in stash:
        del stash[key]


class ForgetFinished:
    """Registered as ``crmbench-forget`` on every process that runs or records items."""

    def __init__(self) -> None:
        # Per item whose reports are still coming (xdist interleaves workers' items) and attribute:
        # the first of each distinct value its reports carried.
        self._shared: dict[str, dict[str, dict[object, object]]] = {}
        # Subtest contexts by value; frozen dataclasses, and every trial of a task has the same.
        self._contexts: dict[object, object] = {}
        # The outcome property's entries, one per outcome (a handful for the whole run).
        self._outcomes: dict[tuple[str, str], tuple[str, str]] = {}

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        try:
            return (yield)
        finally:
            # Every report of the item is logged by now: the teardown report copied the record.
            item.user_properties = without(item.user_properties, EPISODE_PROPERTIES)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        # The call report exists by now (each check's subtest report goes through
        # pytest_runtest_makereport too, so that hook cannot tell the item's own); the teardown
        # report, made after this hook, no longer copies the trajectory.
        item.user_properties = without(item.user_properties, (TRACE_PROPERTY,))
        # The evidence and verdict after every other teardown hook (a conftest may read them there).
        try:
            yield
        finally:
            _drop(item.stash, evidence_key)
            _drop(item.stash, verdict_key)
            _drop(item.stash, played_key)

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if any(name in EPISODE_PROPERTIES for name, _ in report.user_properties):
            report.user_properties = without(report.user_properties, EPISODE_PROPERTIES)
        self._share_equal_values(report)

    def _share_equal_values(self, report: pytest.TestReport) -> None:
        shared = self._shared.setdefault(report.nodeid, {})
        for name in SHARED_ATTRIBUTES:
            _share(report, name, shared.setdefault(name, {}), _hashable)
        # A subtest report's (msg, kwargs): the same for a check in every trial of its task.
        _share(report, "context", self._contexts, _context_key)
        fields = vars(report)
        for name in INTERNED_ATTRIBUTES:
            if type(fields.get(name)) is str:
                fields[name] = sys.intern(fields[name])
        if "context" in fields:
            fields.pop(RAW_SUBTEST_CONTEXT, None)
        if report.user_properties:
            report.user_properties = [self._outcome_entry(entry) for entry in report.user_properties]
        if report.when == "teardown":  # the item's last report
            del self._shared[report.nodeid]

    def _outcome_entry(self, entry: Any) -> Any:
        if type(entry) is tuple and len(entry) == 2 and entry[0] == OUTCOME_PROPERTY and type(entry[1]) is str:
            return self._outcomes.setdefault(entry, entry)
        return entry


def _share(report: pytest.TestReport, name: str, kept: dict[object, object], key: Callable[[Any], object]) -> None:
    """Replace the report's ``name`` by the first equal value ``kept`` has, else keep this one."""
    value = getattr(report, name, None)
    if value is None:
        return
    try:
        first = kept.setdefault(key(value), value)
    except TypeError:  # unhashable (a plugin's own kind of value): left as it is
        return
    if first is not value:
        setattr(report, name, first)


INTERNED_ATTRIBUTES = ("outcome", "when", "$report_type", "_report_type", "worker_id", "testrun_uid")
"""Strings equal on most reports of a run; a report rebuilt from a worker's message has its own copies."""

RAW_SUBTEST_CONTEXT = "_subtest.context"
"""What pytest rebuilds a subtest report's ``context`` from, and then also keeps (pytest 9)."""

SHARED_ATTRIBUTES = ("keywords", "location", "_id")
"""Equal on the reports of an item. ``_id`` is pytest 9's parsed node id (frozen; ``nodeid`` is
its text), absent from older pytest, which the ``getattr`` default skips."""


def _context_key(context: Any) -> object:
    return (type(context), context.msg, _hashable(context.kwargs))


def _hashable(value: Any) -> object:
    """A key equal for equal values: a mapping (keywords, a subtest's kwargs) by its items."""
    if isinstance(value, Mapping):
        return frozenset((k, _hashable(v)) for k, v in value.items())
    return value
