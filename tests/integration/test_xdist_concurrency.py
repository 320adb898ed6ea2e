"""``--crm-concurrency`` composed with ``-n``/``--tx`` (issue 14 goal 4): every worker plays its own
share of the items ahead in its thread pool, and the run's results equal a single-process run's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.helpers import CrmProject

# Notes, per process, whether each item's episode was played ahead (by the pool) or inline.
PLAYED_WHERE = """
import os
from pathlib import Path

import pytest

from pytest_crmbench.plugin.stash import played_key


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    line = f"{item.name} {'ahead' if played_key in item.stash else 'inline'}\\n"
    with open(Path(str(item.config.rootpath), f"played-{worker}.txt"), "a") as out:
        out.write(line)
"""


def results(run: Path) -> dict[tuple[str, int], tuple[str, list[tuple[str, str]]]]:
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    return {
        (row["task_id"], row["trial"]): (row["outcome"], [(c["name"], c["status"]) for c in row["checks"]])
        for row in rows
    }


def figures(run: Path) -> dict[str, object]:
    """The leaderboard without what must differ between two runs: their names and wall times."""
    data = json.loads((run / "leaderboard.json").read_text())
    data.pop("runs", None)
    for system in data["systems"]:
        system.pop("runs")
        system.pop("mean_latency_s")
        for row in system["rounds"]:
            row.pop("run")
    return data


@pytest.mark.parametrize("workers", [["-n", "2"], ["--tx", "2*popen", "--dist", "load"]], ids=["n", "tx"])
def test_each_worker_plays_its_share_ahead_and_results_equal_a_single_process(
    mini_project: CrmProject, workers: list[str]
) -> None:
    # The null agent fails some tasks and passes none of the action checks: a mix of outcomes.
    single = mini_project.run("--crm-agent=null", "--crm-trials=2", "--crm-run-dir=out/single")
    mini_project.pytester.makeconftest(PLAYED_WHERE)
    spread = mini_project.run(
        "--crm-agent=null", "--crm-trials=2", "--crm-run-dir=out/spread", "--crm-concurrency=3", *workers
    )
    assert spread.ret == single.ret
    played = {path.name: path.read_text().split("\n")[:-1] for path in sorted(mini_project.path.glob("played-*.txt"))}
    assert set(played) == {"played-gw0.txt", "played-gw1.txt"}  # both workers ran items ...
    lines = [line for share in played.values() for line in share]
    assert len(lines) == 12 and all(line.endswith(" ahead") for line in lines)  # ... every one played ahead
    out = mini_project.path / "out"
    assert results(out / "spread") == results(out / "single")
    assert len(results(out / "single")) == 12
    assert figures(out / "spread") == figures(out / "single")
