"""The attacks of issue 30 through pytest: an isolated cheater's score does not rise, the run
records its failure, the exit status fails, and the offline gate agrees with the in-run one."""

from __future__ import annotations

import pytest

from pytest_crmbench.cli.main import main
from pytest_crmbench.results.rundir import load_run
from tests.integration.helpers import MINI_IDS, CrmProject

CHEATERS = "tests.data.agents.cheaters"
FAILED = pytest.ExitCode.TESTS_FAILED


def outcomes(project: CrmProject) -> dict[str, tuple[str, str | None]]:
    return {r.task_id: (r.outcome, r.termination) for r in load_run(project.path / "out").records}


def offline_gate(project: CrmProject, *options: str) -> int:
    folders = ["--tasks", str(project.tasks), "--envs", str(project.path / "envs")]
    return main(["gate", str(project.path / "out"), *folders, *options])


@pytest.mark.parametrize(
    ("factory", "termination"),
    [
        ("patch_checks", "user_stop"),  # attack 1: it patched its own process's grader, nobody's else
        ("reach_referee", "agent_error"),  # attack 2: no referee to reach
        ("os_exit", "agent_error"),  # attack 3
        ("system_exit", "agent_error"),
        ("raise_infra", "agent_error"),  # attack 4: no unscored way out
        ("raise_harness", "agent_error"),
        ("fork", "agent_error"),  # attack 6
    ],
)
def test_a_cheater_scores_nothing_and_fails_the_gates(mini_project: CrmProject, factory: str, termination: str) -> None:
    result = mini_project.run(f"--crm-agent={CHEATERS}:{factory}", "--crm-run-dir=out", "--crm-fail-under=0.01")
    assert result.ret == FAILED
    result.stdout.fnmatch_lines(["crmbench gate FAILED: strict accuracy 0.00% (0/6)*"])
    found = outcomes(mini_project)
    assert sorted(found) == sorted(MINI_IDS)  # one record each: nothing lost, nothing duplicated
    assert {t for _, t in found.values()} == {termination}
    assert {o for o, _ in found.values()} <= {"failure", "not_judged"}  # every one scored
    assert offline_gate(mini_project, "--fail-under", "0.01") == 1


@pytest.mark.parametrize("factory", ["os_exit", "raise_infra"])
def test_under_xdist_no_task_leaves_the_score(mini_project: CrmProject, factory: str) -> None:
    result = mini_project.run(
        f"--crm-agent={CHEATERS}:{factory}",
        "--crm-run-dir=out",
        "-n",
        "2",
        "--crm-max-infra=3",
        "--crm-fail-under=0.01",
    )
    assert result.ret == FAILED
    found = outcomes(mini_project)
    assert sorted(found) == sorted(MINI_IDS)
    assert {o for o, _ in found.values()} <= {"failure", "not_judged"}


def test_a_sleeping_agent_is_stopped_at_the_timeout(mini_project: CrmProject) -> None:
    result = mini_project.run(
        f"--crm-agent={CHEATERS}:sleep_forever", "--crm-run-dir=out", "--crm-timeout=1", "-k", "override or balance"
    )
    assert result.ret == FAILED
    assert result.duration < 2 * (1 + 3)  # two tasks, each stopped within the timeout plus a few seconds
    assert {t for _, t in outcomes(mini_project).values()} == {"timeout"}


def test_an_unimportable_agent_stops_the_run_once(mini_project: CrmProject) -> None:
    result = mini_project.run(f"--crm-agent={CHEATERS}:no_such_factory")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--crm-agent: agent '*:no_such_factory': '*cheaters' has no callable 'no_such_factory'"]
    )


def test_an_in_process_run_is_marked_and_no_gate_takes_it(mini_project: CrmProject) -> None:
    agent = f"--crm-agent={CHEATERS}:counter"
    refused = mini_project.run(agent, "--crm-agent-inprocess", "--crm-fail-under=0")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(
        ["*--crm-fail-under: an agent run in pytest's process (--crm-agent-inprocess) is not gate-worthy*"]
    )
    result = mini_project.run(agent, "--crm-agent-inprocess", "--crm-run-dir=out")
    result.stdout.fnmatch_lines(["*counter (in-process, not gate-worthy)*"])
    run = load_run(mini_project.path / "out")
    assert (run.manifest["agent_process"], run.manifest["gate_worthy"]) == ("in-process", False)
    assert offline_gate(mini_project, "--fail-under", "0") == 1
    isolated = mini_project.run(agent, "--crm-run-dir=isolated", "--crm-compare=out")
    assert isolated.ret == pytest.ExitCode.USAGE_ERROR
    isolated.stderr.fnmatch_lines(["*--crm-compare: *out: *is not gate-worthy*"])
