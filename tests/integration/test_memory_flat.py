"""Memory flat in run length (issue 14 goal 1): nothing a finished item leaves behind holds its
trajectory, evidence or result record, while the run directory still gets every trajectory and
record and ``--junitxml`` still lists every record."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from pytest_crmbench.results.rundir import read_traces
from tests.integration.helpers import CrmProject

# Looks at what pytest still holds when the session ends: every item, every report it kept.
HELD_AT_END = """
import json
from pathlib import Path

import pytest

from pytest_crmbench.plugin.stash import evidence_key, played_key, verdict_key


def frozen(value):
    return frozenset(value.items()) if isinstance(value, dict) else value


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    reports = [r for kept in reporter.stats.values() for r in kept if hasattr(r, "user_properties")]
    subtests = [r for r in reports if hasattr(r, "context")]
    by_item = {}
    for r in reports:
        by_item.setdefault(r.nodeid, []).append(r)
    held = {
        "items": len(session.items),
        "reports": len(reports),
        "stash": sum(key in item.stash for item in session.items for key in (evidence_key, verdict_key, played_key)),
        "item_traces": sum(name == "crm_trace" for item in session.items for name, _ in item.user_properties),
        "report_traces": sum(name == "crm_trace" for r in reports for name, _ in r.user_properties),
        "item_results": sum(name == "crm_result" for item in session.items for name, _ in item.user_properties),
        "report_results": sum(name == "crm_result" for r in reports for name, _ in r.user_properties),
        "user_properties_kept": sum(name == "mine" for r in reports for name, _ in r.user_properties),
        # Per item and attribute: objects beyond one per distinct value (copies of an equal value).
        "copies_per_item": sorted(
            {
                len({id(getattr(r, name)) for r in mine}) - len({frozen(getattr(r, name)) for r in mine})
                for mine in by_item.values()
                for name in ("keywords", "location", "_id")
            }
        ),
        "contexts_per_check": sorted(
            {len({id(r.context) for r in subtests if r.context.msg == msg}) for msg in {r.context.msg for r in subtests}}
        ),
        "checks_seen_twice": len(subtests) - len({r.context.msg for r in subtests}),
        "transcripts": sorted(
            r.nodeid.rsplit("::", 1)[-1] for r in reports if any("crm transcript" in title for title, _ in r.sections)
        ),
    }
    Path(str(session.config.rootpath), "held.json").write_text(json.dumps(held))


@pytest.fixture(autouse=True)
def _mine(request):
    request.node.user_properties.append(("mine", "kept"))  # a user's own property is not ours to drop
"""


@pytest.mark.parametrize("parallel", [[], ["--crm-concurrency=3"], ["-n", "2"]], ids=["serial", "threads", "xdist"])
def test_finished_items_and_kept_reports_hold_no_trajectory(mini_project: CrmProject, parallel: list[str]) -> None:
    mini_project.pytester.makeconftest(HELD_AT_END)
    # Two trials: the items' node ids carry a parameter ("[t1]"), parsed differently per report kind.
    result = mini_project.run("--crm-run-dir=out/run", "--junitxml=out/junit.xml", "--crm-trials=2", *parallel)
    result.assert_outcomes(passed=12)
    held = json.loads((mini_project.path / "held.json").read_text())
    assert held["reports"] >= 6  # the check looked at the reports pytest keeps
    assert held["stash"] == 0 and held["item_traces"] == 0 and held["report_traces"] == 0
    assert held["item_results"] == 0 and held["report_results"] == 0
    assert held["user_properties_kept"] > 0
    # An item's reports share their keywords mapping, location and parsed node id with every equal
    # one; the subtest reports of one check share one context, whichever task or trial they come from.
    assert held["copies_per_item"] == [0]
    assert held["contexts_per_check"] == [1] and held["checks_seen_twice"] > 0
    assert held["transcripts"] == []  # every item passed: no transcript is kept
    traces = list(read_traces(mini_project.path / "out" / "run"))
    assert len(traces) == 12  # ... while every trajectory reached the run directory
    results = (mini_project.path / "out" / "run" / "results.jsonl").read_text().splitlines()
    assert len(results) == 12 and not any(json.loads(line)["outcome"] == "error" for line in results)
    junit = ET.parse(mini_project.path / "out" / "junit.xml")
    listed = [p.get("value") for p in junit.iter("property") if p.get("name") == "crm_result"]

    # The run directory's copies also say which run they belong to (the controller stamps them).
    def unbound(line: str | None) -> dict[str, object]:
        return {k: v for k, v in json.loads(line or "{}").items() if k != "run_id"}

    assert len(listed) == 12 and sorted(map(unbound, listed), key=str) == sorted(map(unbound, results), key=str)


def test_a_failing_item_keeps_its_transcript_and_a_passing_one_does_not(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(HELD_AT_END)
    result = mini_project.run("--crm-run-dir=out/run", "--crm-agent=null")
    assert result.ret == 1
    held = json.loads((mini_project.path / "held.json").read_text())
    failed = {r.nodeid.rsplit("::", 1)[-1] for r in result.reprec.getreports("pytest_runtest_logreport") if r.failed}  # type: ignore[attr-defined]
    assert failed and set(held["transcripts"]) == failed
    assert "Captured crm transcript call" in result.stdout.str()
