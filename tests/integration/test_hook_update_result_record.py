"""pytest_crmbench_update_result_record: a conftest annotates every record, even under xdist."""

from __future__ import annotations

import pytest

from pytest_crmbench.results.rundir import load_run
from tests.integration.helpers import MINI_IDS, CrmProject

CONFTEST = """
def pytest_crmbench_update_result_record(record, item):
    record.extra["agent_version"] = "1.2.3"
    record.extra["node"] = item.name
    if item.name == "mini_balance_only_01":
        record.extra["oops"] = object()  # not JSON: dropped with a note, the result kept
"""


@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "xdist"])
def test_records_carry_what_the_hook_adds(mini_project: CrmProject, xdist: bool) -> None:
    mini_project.pytester.makeconftest(CONFTEST)
    args = ["--crm-run-dir=out/run"]
    result = mini_project.run_subprocess(*args, "-n", "2", "-p", "xdist") if xdist else mini_project.run(*args)
    result.assert_outcomes(passed=6)
    records = {r.task_id: r for r in load_run(mini_project.path / "out" / "run").records}
    assert sorted(records) == sorted(MINI_IDS)
    for task_id, record in records.items():
        if task_id == "mini_balance_only_01":
            assert record.extra == {}
            assert record.error is not None and record.error.startswith("extra metadata dropped: not JSON")
            assert record.outcome == "not_judged"  # the result itself survives
        else:
            assert record.extra == {"agent_version": "1.2.3", "node": task_id}
            assert record.error is None
