"""A run's start-up says what it is doing, one line per stage (issue 32: the first minute was silent)."""

from __future__ import annotations

from pytest_crmbench.models.fakellm import FakeLLM
from tests.integration.helpers import CrmProject
from tests.integration.test_models import (  # noqa: F401  (fixtures)
    CASE_A_ID,
    litellm_imported,
    model_options,
    payments,
    script,
    server,
)


def model_args(server: FakeLLM) -> list[str]:  # noqa: F811
    return [*model_options(server), "-k", CASE_A_ID]


def test_set_up_and_collection_each_say_how_long_they_took(mini_project: CrmProject) -> None:
    result = mini_project.run("--crm-agent=gold", "--crm-run-dir=run", "-p", "no:randomly")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(
        [
            "plugins: *",
            "crmbench: set-up *.* s: task set of 6 tasks hashed; run directory run",
            "collected 6 items",
            "crmbench: collection *.* s (6 task item(s) to run)",
            "",
            "tasks/mini.yaml ......*100%]",  # pytest's line of letters is whole
        ]
    )


def test_the_gold_self_test_has_no_set_up_line_and_q_has_none(mini_project: CrmProject) -> None:
    plain = mini_project.run()
    assert "crmbench: set-up" not in plain.stdout.str()
    plain.stdout.fnmatch_lines(["crmbench: collection *"])
    quiet = mini_project.run("-q", "--crm-agent=null")
    assert not [line for line in quiet.outlines if line.startswith("crmbench: ")]
    no_terminal = mini_project.run("-p", "no:terminal", "--crm-agent=null")
    assert "crmbench: collection" not in no_terminal.stdout.str()


def test_the_model_preflight_says_what_it_checked_after_collection(
    payments: CrmProject,  # noqa: F811
    server: FakeLLM,  # noqa: F811
) -> None:
    result = payments.run(*model_args(server))
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "collected * items / * deselected / 1 selected",
            "crmbench: collection *",
            "crmbench: model preflight of agent, user, judge (3 model(s), 1 server(s))* ok in *.* s*",
            "",
            "tasks/payments.yaml . *",
        ]
    )


def test_under_xdist_the_preflight_comes_before_the_workers_and_their_start_is_timed(
    payments: CrmProject,  # noqa: F811
    server: FakeLLM,  # noqa: F811
) -> None:
    result = payments.run_subprocess(*model_args(server), "-n", "2", "-p", "xdist")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "crmbench: set-up *",
            "crmbench: model preflight of agent, user, judge (3 model(s), 1 server(s)) ... ok in *.* s*",
            "created: 2/2 workers",
            "*",
            "crmbench: 2 xdist worker(s) started and collected 1 item(s) in *.* s",
        ]
    )
