"""CI gates: the exit status follows --crm-fail-under, --crm-compare/--crm-max-drop and --crm-max-infra."""

from __future__ import annotations

import json

import pytest

from pytest_crmbench.cli.main import main
from tests.integration.helpers import BY_TASK, CrmProject

OK, FAILED = pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED

# "infra" plays the gold path but reports a provider outage on two tasks (excluded from the score);
# "perfect" plays the gold path under another name: an agent under test, not the self-test, so its
# runs may be gated.
INFRA_CONFTEST = (
    BY_TASK
    + """
from pytest_crmbench import InfraError

class Outage:
    def respond(self, conversation, tools):
        raise InfraError("provider unavailable after retries")

def pytest_crmbench_make_agent(name, context):
    if name == "perfect":
        return ByTask(GoldAgent)
    if name == "infra":
        outage = ("mini_override_01", "mini_balance_only_01")
        return ByTask(lambda task: Outage() if task.id in outage else GoldAgent(task))
"""
)

CASES = [
    # (args, exit status, line expected in the output)
    # The gold path: 2 of 6 successes (4 reply criteria cannot be judged without a judge model).
    (
        ["--crm-agent=perfect", "--crm-fail-under=0.3333"],
        OK,
        "crmbench gate passed: strict accuracy 33.33% (2/6) [[]9.7-70.0[]] >= fail-under 0.3333",
    ),
    (
        ["--crm-agent=perfect", "--crm-fail-under=0.34"],
        FAILED,
        "crmbench gate FAILED: strict accuracy 33.33% (2/6) [[]9.7-70.0[]] is below --crm-fail-under=0.34",
    ),
    # The null agent fails 5 tasks, yet a gate that holds makes the run pass.
    (
        ["--crm-agent=null", "--crm-fail-under=0"],
        OK,
        "crmbench gate passed: strict accuracy 0.00% (0/6) [[]0.0-39.0[]] >= fail-under 0",
    ),
    (["--crm-agent=null", "--crm-fail-under=0.1"], FAILED, "crmbench gate FAILED: strict accuracy 0.00% (0/6)*"),
    # A partial run is never a pass (-x stops after the first failing task).
    (["--crm-agent=null", "-x", "--crm-fail-under=0"], FAILED, "crmbench gate FAILED: 5 item(s) not run*"),
    # Selecting nothing is never a pass.
    (
        ["--crm-agent=null", "-k", "no_such_task", "--crm-fail-under=0"],
        FAILED,
        "crmbench gate FAILED: no task was scored*",
    ),
    # Infra: 2 results excluded from the score, counted against the budget.
    (
        ["--crm-agent=infra", "--crm-max-infra=2"],
        OK,
        "crmbench gate passed: 2 infra/error result(s) <= max-infra 2, left out of the gate",
    ),
    # Unless --crm-max-infra allows them, a gate counts them as failures: 1/6, not 1/4.
    (
        ["--crm-agent=infra", "--crm-fail-under=0.25"],
        FAILED,
        "crmbench gate FAILED: strict accuracy 16.67% (1/6) [[]*[]] is below --crm-fail-under=0.25",
    ),
    (
        ["--crm-agent=infra", "--crm-fail-under=0.25", "--crm-max-infra=2"],
        OK,
        "crmbench gate passed: strict accuracy 25.00% (1/4) [[]*[]] >= fail-under 0.25; 2 infra/error result(s)*",
    ),
    (
        ["--crm-agent=infra", "--crm-max-infra=1"],
        FAILED,
        "crmbench gate FAILED: 2 infra/error result(s) exceed --crm-max-infra=1",
    ),
]


@pytest.mark.parametrize(("args", "status", "line"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_gate_exit_status(mini_project: CrmProject, args: list[str], status: pytest.ExitCode, line: str) -> None:
    mini_project.pytester.makeconftest(INFRA_CONFTEST)
    result = mini_project.run(*args)
    assert result.ret == status, result.stdout.str()
    result.stdout.fnmatch_lines([line])


def test_without_a_gate_failed_tasks_fail_the_run(mini_project: CrmProject) -> None:
    assert mini_project.run("--crm-agent=null").ret == FAILED
    assert mini_project.run("-k", "no_such_task").ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_the_gate_line_shows_under_quiet(mini_project: CrmProject) -> None:
    result = mini_project.run("-q", "--crm-fail-under=0.5", "--crm-agent=null")
    assert result.ret == FAILED
    # The last lines of a run: pytest's counts, the crmbench summary, the verdict (issue 12 item 8).
    lines = [line for line in result.stdout.lines if line.strip()]
    assert lines[-1] == "crmbench gate FAILED: strict accuracy 0.00% (0/6) [0.0-39.0] is below --crm-fail-under=0.5"
    assert lines[-3].startswith("pytest's counts: 6 task item(s) (5 failed, 1 passed)")
    assert lines[-2].startswith("run directory: crm-runs/")
    assert lines.index("6 task(s): 0 success, 5 failure, 1 not judged, 0 infra") > next(
        i for i, line in enumerate(lines) if " failed, " in line and " in " in line
    )
    quietest = mini_project.run("-qq", "--crm-fail-under=0.5", "--crm-agent=null")
    assert [line for line in quietest.stdout.lines if line.strip()][-1].startswith("crmbench gate FAILED")
    assert "- crmbench -" not in quietest.stdout.str()


def test_a_failing_ordinary_test_is_not_masked_by_a_passing_gate(mini_project: CrmProject) -> None:
    mini_project.pytester.makepyfile(test_plain="def test_broken():\n    assert False\n")
    result = mini_project.run("--crm-agent=null", "--crm-fail-under=0", "tasks", "test_plain.py")
    assert result.ret == FAILED
    result.stdout.fnmatch_lines(["crmbench gate passed: *"])


def test_compare_against_a_baseline_run(mini_project: CrmProject) -> None:
    mini_project.run("--crm-run-dir=baseline").assert_outcomes(passed=6)
    result = mini_project.run("--crm-agent=null", "--crm-compare=baseline")
    assert result.ret == FAILED
    # The comparison is part of the crmbench section; the verdict comes last (issue 12).
    result.stdout.fnmatch_lines(
        [
            "compared with the baseline: -33.33 pp [[]-66.7, +0.0[]] over 6 paired task(s); exact McNemar p = 0.500",
            "  worse (2): mini_override_01 (1/1 -> 0/1), mini_transfer_frozen_01 (1/1 -> 0/1)",
            "  better: none",
            "crmbench gate FAILED: overall: 0.00% (0/6) vs baseline 33.33% (2/6): drop of 33.33 pp exceeds "
            "--crm-max-drop=0 (exact McNemar p = 0.500)",
            "crmbench gate FAILED: domain mini: 0.00% (0/6) vs baseline 33.33% (2/6): drop of 33.33 pp*",
        ]
    )
    comparison = json.loads(next((mini_project.path / "crm-runs").glob("*/leaderboard.json")).read_text())["comparison"]
    assert (comparison["test"], comparison["p_value"], comparison["paired_tasks"]) == ("exact McNemar", 0.5, 6)
    assert [t["task_id"] for t in comparison["worse"]] == ["mini_override_01", "mini_transfer_frozen_01"]
    # Two tasks flipped: a drop of 33 pp is not significant at 0.05 (p = 0.5); the gate says so.
    result = mini_project.run("--crm-agent=null", "--crm-compare=baseline", "--crm-significance=0.05")
    assert result.ret == OK, result.stdout.str()
    result.stdout.fnmatch_lines(
        ["crmbench gate passed: *drop of 33.33 pp exceeds --crm-max-drop=0 but is not significant*"]
    )
    result = mini_project.run("--crm-agent=null", "--crm-compare=baseline", "--crm-max-drop=40")
    assert result.ret == OK
    result.stdout.fnmatch_lines(
        [
            "crmbench gate passed: overall: 0.00% (0/6) vs baseline 33.33% (2/6) (max drop 40 pp; exact McNemar p = 0.500)"
        ]
    )
    mini_project.write_config('crm_compare = "baseline"\ncrm_max_drop = "40"\n')
    assert mini_project.run("--crm-agent=null").ret == OK
    assert mini_project.run("--crm-agent=null", "--crm-max-drop=10").ret == FAILED
    mini_project.write_config("")
    # Only tasks both runs have are compared: the gold baseline's 1/1 on this task vs the gold path now.
    mini_project.pytester.makeconftest(INFRA_CONFTEST)
    assert mini_project.run("--crm-agent=perfect", "-k", "override", "--crm-compare=baseline").ret == OK


def test_ini_twins_and_usage_errors(mini_project: CrmProject) -> None:
    mini_project.write_config('crm_fail_under = "0.5"\n')
    assert mini_project.run("--crm-agent=null").ret == FAILED
    assert mini_project.run("--crm-agent=null", "--crm-fail-under=0").ret == OK  # the command line wins
    mini_project.write_config('crm_max_infra = "many"\n')
    result = mini_project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ini option crm_max_infra = 'many': 'many' is not a whole number"])
    mini_project.write_config("")
    result = mini_project.run("--crm-max-drop=5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --crm-max-drop needs --crm-compare=BASELINE_RUN"])
    result = mini_project.run("--crm-compare=missing")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result = mini_project.run("--crm-significance=0.05")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --crm-significance needs --crm-compare=BASELINE_RUN"])
    result = mini_project.run("--crm-compare=missing", "--crm-significance=5")
    result.stderr.fnmatch_lines(["*argument --crm-significance: significance takes a level between 0 and 1*, got 5"])
    mini_project.write_config('crm_compare = "missing"\ncrm_significance = "5"\n')
    result = mini_project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ini option crm_significance = '5': significance takes a level*, got 5"])


@pytest.mark.parametrize("gate", ["--crm-fail-under=0.80", "--crm-compare=baseline"])
def test_a_score_gate_on_the_gold_self_test_is_refused(mini_project: CrmProject, gate: str) -> None:
    """Issue 32 item 4: `pytest tasks/ --crm-fail-under=0.80` failed the default gold run at 33 %
    (its replies unjudged) right after saying every programmatic check held."""
    mini_project.run("--crm-run-dir=baseline").assert_outcomes(passed=6)
    result = mini_project.run(gate)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    option = gate.split("=")[0]
    assert result.stderr.lines[0] == (
        f"ERROR: {option}: a score gate on the gold self-test measures nothing (it replays each task's reference"
        " path, and reply criteria stay unjudged without a judge model): gate a model run (--crm-model) or your"
        " agent (--crm-agent); the self-test fails by itself when a gold path breaks"
    )
    assert "passed" not in result.stdout.str()
    assert mini_project.run("--crm-max-infra=0").ret == OK  # not a score: the self-test may bound it


def test_crmbench_gate_on_a_saved_run(mini_project: CrmProject, capsys: pytest.CaptureFixture[str]) -> None:
    mini_project.run("--crm-run-dir=gold").assert_outcomes(passed=6)
    capsys.readouterr()
    run = str(mini_project.path / "gold")
    assert main(["gate", run, "--fail-under", "0.33"]) == 0
    assert (
        capsys.readouterr().out == "crmbench gate passed: strict accuracy 33.33% (2/6) [9.7-70.0] >= fail-under 0.33\n"
    )
    mini_project.run("--crm-run-dir=null", "--crm-agent=null")
    capsys.readouterr()
    null = str(mini_project.path / "null")
    assert main(["gate", null, "--compare", run, "--max-drop", "10", "--significance", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "but is not significant (exact McNemar p = 0.500 >= 0.05): treated as noise" in out
    assert "  worse (2): mini_override_01 (1/1 -> 0/1), mini_transfer_frozen_01 (1/1 -> 0/1)\n" in out
    assert main(["gate", run, "--fail-under", "0.4", "--max-infra", "0"]) == 1
    assert "below --crm-fail-under=0.4" in capsys.readouterr().out


def test_a_percent_given_to_fail_under_is_a_usage_error(mini_project: CrmProject) -> None:
    result = mini_project.run("--crm-fail-under=80")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*argument --crm-fail-under: fail-under takes a fraction between 0 and 1 (0.80 means 80 %), got 80"]
    )
    mini_project.write_config('crm_fail_under = "80"\n')
    result = mini_project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ini option crm_fail_under = '80': fail-under takes a fraction*, got 80"])


def test_an_edited_baseline_or_resumed_run_is_refused(mini_project: CrmProject) -> None:
    mini_project.run("--crm-run-dir=baseline", "--crm-agent=null")
    results = mini_project.path / "baseline" / "results.jsonl"
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    results.write_text("".join(json.dumps({**line, "outcome": "success"}) + "\n" for line in lines))
    for option in ("--crm-compare=baseline", "--crm-resume=baseline"):
        result = mini_project.run("--crm-agent=null", option)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, option
        result.stderr.fnmatch_lines([f"ERROR: {option.split('=')[0]}: */baseline: refused, its results do not match*"])


# -- issue 30 part 2: the in-run gate decides as the offline gate does ------------------------------

FORGING_CONFTEST = """
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    # Code in pytest's process (an in-process agent could do the same) turns every result in
    # memory into a success before the gate decides.
    recorder = session.config.pluginmanager.get_plugin("crmbench-recorder")
    for key, record in list(recorder.records.items()):
        recorder.records[key] = record.model_copy(update={"outcome": "success", "primary_label": None})
"""


def test_no_state_of_the_process_changes_the_in_run_gate(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(FORGING_CONFTEST)
    result = mini_project.run("--crm-agent=null", "--crm-run-dir=run", "--crm-fail-under=0.5")
    # The gate reads the run directory back and re-grades it, as `crmbench gate` does.
    assert result.ret == FAILED
    result.stdout.fnmatch_lines(["crmbench gate FAILED: strict accuracy 0.00% (0/6)*"])
    assert main(["gate", str(mini_project.path / "run"), "--fail-under", "0.5"]) == 1


def test_another_runs_results_spliced_into_a_run_are_refused(
    mini_project: CrmProject, capsys: pytest.CaptureFixture[str]
) -> None:
    mini_project.pytester.makeconftest(INFRA_CONFTEST)
    mini_project.run("--crm-agent=null", "--crm-run-dir=null")
    mini_project.run("--crm-agent=perfect", "--crm-run-dir=perfect")
    null, perfect = mini_project.path / "null", mini_project.path / "perfect"
    # Same task set, same selection, records that agree with their trajectories: only the run id
    # says they are the perfect agent's, not the null run's.
    (null / "results.jsonl").write_text((perfect / "results.jsonl").read_text())
    for trace in (perfect / "traces").iterdir():
        (null / "traces" / trace.name).write_text(trace.read_text())
    capsys.readouterr()
    assert main(["gate", str(null), "--fail-under", "0.3"]) != 0
    out = capsys.readouterr()
    assert "the result belongs to run" in out.out + out.err
    assert main(["leaderboard", str(null)]) != 0


def test_results_removed_from_a_run_are_refused(mini_project: CrmProject, capsys: pytest.CaptureFixture[str]) -> None:
    mini_project.run("--crm-agent=null", "--crm-run-dir=run")
    run = mini_project.path / "run"
    # One result and its trajectory gone, and the manifest told to expect five: every count
    # agrees, only the selection the run finished with does not.
    results = run / "results.jsonl"
    dropped = json.loads(results.read_text().splitlines()[-1])["task_id"]
    results.write_text("".join(line + "\n" for line in results.read_text().splitlines()[:-1]))
    for trace in (run / "traces").iterdir():
        lines = [line for line in trace.read_text().splitlines() if json.loads(line)["evidence"]["task_id"] != dropped]
        trace.write_text("".join(line + "\n" for line in lines))
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["finished"]["results"] = 5
    (run / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert main(["gate", str(run), "--fail-under", "0"]) != 0
    out = capsys.readouterr()
    assert "not the selection the run finished with" in out.out + out.err
    assert "a trajectory without a result" not in out.out + out.err
