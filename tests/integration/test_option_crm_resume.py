"""--crm-resume: a killed or interrupted run continues where it stopped; it refuses other settings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_crmbench.cli.main import main
from pytest_crmbench.results.rundir import load_run, read_traces
from tests.integration.helpers import BY_TASK, MINI_IDS, CrmProject, mini_text, replace_once

# The agent "flaky" plays the gold path, except on the task named by CRM_STOP_AT, where it either
# kills the whole process (as a kill -9 or an OOM would) or raises KeyboardInterrupt (Ctrl-C).
STOPPING_CONFTEST = (
    BY_TASK
    + """
import os

class Stop:
    def respond(self, conversation, tools):
        if os.environ.get("CRM_STOP_HOW") == "kill":
            os._exit(3)
        raise KeyboardInterrupt

def pytest_crmbench_make_agent(name, context):
    if name == "flaky":
        return ByTask(lambda task: Stop() if task.id == os.environ.get("CRM_STOP_AT") else GoldAgent(task))
"""
)


@pytest.fixture
def project(mini_project: CrmProject) -> CrmProject:
    mini_project.pytester.makeconftest(STOPPING_CONFTEST)
    return mini_project


def result_lines(project: CrmProject) -> list[dict[str, object]]:
    text = (project.path / "run" / "results.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("how", ["kill", "interrupt"])
def test_a_stopped_run_resumes_without_losing_or_repeating_anything(
    project: CrmProject, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.setenv("CRM_STOP_HOW", how)
    monkeypatch.setenv("CRM_STOP_AT", "mini_transfer_frozen_01")
    first = project.run_subprocess("--crm-agent=flaky", "--crm-run-dir=run")
    assert first.ret == (3 if how == "kill" else pytest.ExitCode.INTERRUPTED)
    # Everything finished before the stop is on disk; nothing after it, and no error rows.
    assert [r["task_id"] for r in result_lines(project)] == MINI_IDS[:3]
    if how == "interrupt":
        first.stdout.fnmatch_lines(["3 item(s) not run (interrupted); --crm-resume continues the run"])

    monkeypatch.delenv("CRM_STOP_AT")
    second = project.run_subprocess("--crm-agent=flaky", "--crm-resume=run")
    second.assert_outcomes(passed=3, deselected=3)
    second.stdout.fnmatch_lines(
        [
            "6 task(s): 2 success, 0 failure, 4 not judged, 0 infra",
            "*",
            "resumed: 3 earlier result(s) merged, 3 new",
        ]
    )
    lines = result_lines(project)
    assert [r["task_id"] for r in lines] == MINI_IDS  # each exactly once
    leaderboard = json.loads((project.path / "run" / "leaderboard.json").read_text())
    assert leaderboard["systems"][0]["results"] == 6
    manifest = json.loads((project.path / "run" / "manifest.json").read_text())
    assert len(manifest["resumed_at"]) == 1


def crash_first_result(run: Path) -> None:
    """The run's first result, rewritten as one its worker lost."""
    lines = (run / "results.jsonl").read_text().splitlines()
    broken = json.loads(lines[0])
    broken.update(outcome="error", error="worker crashed")
    (run / "results.jsonl").write_text("\n".join([json.dumps(broken), *lines[1:]]) + "\n")


def test_error_and_infra_results_are_run_again(project: CrmProject) -> None:
    project.run("--crm-agent=flaky", "--crm-run-dir=run").assert_outcomes(passed=6)
    run = project.path / "run"
    crash_first_result(run)
    result = project.run("--crm-agent=flaky", "--crm-resume=run")
    result.assert_outcomes(passed=1, deselected=5)
    assert load_run(run).records[-1].task_id == MINI_IDS[0]
    assert {r.outcome for r in load_run(run).records} == {"success", "not_judged"}


def test_resume_refuses_a_changed_environment(project: CrmProject) -> None:
    project.run("--crm-agent=flaky", "--crm-run-dir=run").assert_outcomes(passed=6)
    source = project.path / "envs" / "mini" / "environment.py"
    source.write_text(source.read_text() + "\n# changed since the run\n")
    result = project.run("--crm-agent=flaky", "--crm-resume=run")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["  task_set: run has 'sha256:*', now 'sha256:*'"])


def test_resume_refuses_a_changed_task_set(project: CrmProject) -> None:
    project.run("--crm-agent=flaky", "--crm-run-dir=run").assert_outcomes(passed=6)
    project.write("mini.yaml", replace_once(mini_text(), "Send $1,000 from ACC-1", "Send $1,001 from ACC-1"))
    result = project.run("--crm-agent=flaky", "--crm-resume=run")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --crm-resume: */run was run with other settings; start a new run instead:",
            "  task_set: run has 'sha256:*', now 'sha256:*'",
        ]
    )


def test_resume_refuses_another_agent_or_seed_naming_the_option_and_both_values(project: CrmProject) -> None:
    project.run("--crm-agent=flaky", "--crm-run-dir=run").assert_outcomes(passed=6)
    result = project.run("--crm-agent=null", "--crm-resume=run", "--crm-seed=4")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --crm-resume: --crm-agent=null differs from the run's --crm-agent=flaky; drop --crm-agent"
            " (a resumed run keeps its own settings) or start a new run"
        ]
    )
    seed = project.run("--crm-resume=run", "--crm-seed=4")
    assert seed.ret == pytest.ExitCode.USAGE_ERROR
    seed.stderr.fnmatch_lines(
        ["ERROR: --crm-resume: --crm-seed=4 differs from the run's --crm-seed=0; drop --crm-seed *"]
    )


def test_resume_reads_the_run_s_own_options_from_its_manifest(project: CrmProject) -> None:
    """Issue 32: every option but --crm-sample had to be repeated; a resume without them failed."""
    options = ["--crm-agent=flaky", "--crm-trials=2", "--crm-seed=5", "--crm-max-turns=7", "--crm-timeout=300"]
    first = project.run(*options, "--crm-run-dir=run", "-k", "retry or override")
    first.assert_outcomes(passed=4)
    manifest = json.loads((project.path / "run" / "manifest.json").read_text())
    again = project.run("--crm-resume=run", "-p", "no:randomly")
    again.assert_outcomes(passed=8, deselected=4)
    again.stdout.fnmatch_lines(
        [
            "crmbench: set-up *: task set of 6 tasks hashed; 4 saved result(s) re-graded to resume; settings"
            " from the run: --crm-agent=flaky --crm-seed=5 --crm-trials=2 --crm-max-turns=7 --crm-timeout=300.0;"
            " run directory run",
            "*",
            "resumed: 4 earlier result(s) merged, 8 new",
        ]
    )
    saved = json.loads((project.path / "run" / "manifest.json").read_text())
    assert {k: saved[k] for k in ("agent", "settings", "models")} == {
        k: manifest[k] for k in ("agent", "settings", "models")
    }
    records = load_run(project.path / "run").records
    assert sorted((r.task_id, r.trial) for r in records) == sorted((t, k) for t in MINI_IDS for k in (0, 1))
    # The same value given again is no conflict.
    assert project.run("--crm-resume=run", "--crm-trials=2", "--crm-timeout=300").ret == pytest.ExitCode.OK


def test_resume_under_xdist_gives_the_workers_the_run_s_options(project: CrmProject) -> None:
    project.run("--crm-agent=flaky", "--crm-trials=2", "--crm-run-dir=run", "-k", "retry").assert_outcomes(passed=2)
    result = project.run_subprocess("-n", "2", "-p", "xdist", "--crm-resume=run")
    result.assert_outcomes(passed=10)
    records = load_run(project.path / "run").records
    assert sorted((r.task_id, r.trial) for r in records) == sorted((t, k) for t in MINI_IDS for k in (0, 1))


def test_resume_of_a_missing_run_is_a_usage_error(project: CrmProject) -> None:
    result = project.run("--crm-resume=nowhere")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --crm-resume: */nowhere: not a crmbench run directory (no manifest.json)"])


def test_resume_under_xdist_deselects_on_every_worker(project: CrmProject) -> None:
    project.run("--crm-agent=flaky", "--crm-run-dir=run", "-k", "retry or override").assert_outcomes(passed=2)
    result = project.run_subprocess("-n", "2", "-p", "xdist", "--crm-agent=flaky", "--crm-resume=run")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["6 task(s): *", "*", "resumed: 2 earlier result(s) merged, 4 new"])
    assert sorted(r.task_id for r in load_run(project.path / "run").records) == sorted(MINI_IDS)
    assert len((project.path / "run" / "results.jsonl").read_text().splitlines()) == 6


OUTAGE_CONFTEST = (
    BY_TASK
    + """
import os
from pytest_crmbench import InfraError

class Outage:
    def respond(self, conversation, tools):
        raise InfraError("provider unavailable after retries")

def pytest_crmbench_make_agent(name, context):
    if name == "patchy":
        return ByTask(lambda task: Outage() if task.id == os.environ.get("CRM_OUTAGE_AT") else GoldAgent(task))
"""
)


def test_grade_counts_the_latest_attempt_of_a_resumed_run_once(
    mini_project: CrmProject, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mini_project.pytester.makeconftest(OUTAGE_CONFTEST)
    monkeypatch.setenv("CRM_OUTAGE_AT", "mini_override_01")
    mini_project.run("--crm-agent=patchy", "--crm-run-dir=run")
    monkeypatch.delenv("CRM_OUTAGE_AT")
    mini_project.run("--crm-agent=patchy", "--crm-resume=run").assert_outcomes(passed=1, deselected=5)
    assert len(list(read_traces(mini_project.path / "run"))) == 7  # the infra attempt and its re-run
    capsys.readouterr()
    folders = ["--tasks", str(mini_project.tasks), "--envs", str(mini_project.path / "envs")]
    assert main(["grade", str(mini_project.path / "run"), *folders]) == 0
    out = capsys.readouterr().out
    # Once "re-graded trajectories: 7" with an infra result the run no longer has (issue 11 item 8).
    assert out.startswith("re-graded trajectories: 6\n")
    # Strict accuracy, CI, passes, domain macro, spec six, not judged, infra, errors.
    assert re.search(r"\| 1 +\| re-graded \| 33.33% +\| [^|]+\| 2/6 +\| 33.33% +\| 33.33% +\| 4 +\| 0 +\| 0 +\|", out)


def test_resuming_a_finished_run_says_it_is_complete(project: CrmProject) -> None:
    """Issue 32: it exited 5 ("collected nothing"), which CI reads as a failure."""
    project.run("--crm-agent=flaky", "--crm-run-dir=run").assert_outcomes(passed=6)
    again = project.run("--crm-agent=flaky", "--crm-resume=run")
    assert again.ret == pytest.ExitCode.OK
    again.stdout.fnmatch_lines(["resumed: 6 earlier result(s) merged, 0 new", "resumed: nothing left to run*"])
    assert len(result_lines(project)) == 6
    # A selection matching no task at all still collected nothing.
    assert (
        project.run("--crm-resume=run", "--crm-agent=flaky", "-k", "no_such").ret == pytest.ExitCode.NO_TESTS_COLLECTED
    )


def test_resuming_a_finished_run_under_xdist_says_it_is_complete(project: CrmProject) -> None:
    """Issue 32's walkthrough: under -n the controller collects nothing itself, so it exited 5."""
    project.run("--crm-agent=flaky", "--crm-run-dir=run").assert_outcomes(passed=6)
    again = project.run_subprocess("-n", "2", "-p", "xdist", "--crm-resume=run")
    assert again.ret == pytest.ExitCode.OK
    again.stdout.fnmatch_lines(["resumed: 6 earlier result(s) merged, 0 new", "resumed: nothing left to run*"])


def test_a_re_run_error_result_is_counted_once(project: CrmProject) -> None:
    project.run("--crm-agent=flaky", "--crm-run-dir=run").assert_outcomes(passed=6)
    run = project.path / "run"
    crash_first_result(run)
    result = project.run("--crm-resume=run")
    result.stdout.fnmatch_lines(
        ["resumed: 5 earlier result(s) merged, 1 new (1 of them earlier infra or error results run again)"]
    )
