"""The adversaries of issue 11 through pytest, the run directory and ``crmbench grade``.

Each once scored more than it deserved; here each plays the mini tasks as an agent under evaluation
(``--crm-agent=tests.adversaries:make_...``), then its saved trajectories are re-graded. Isolated
(the default, issue 30) an adversary that reaches for the harness finds nothing to reach: it
fails as ``agent_error``. In-process (``--crm-agent-inprocess``, for debugging) the referee still
detects what it does.
"""

from __future__ import annotations

import json

import pytest

from pytest_crmbench.cli.main import main
from pytest_crmbench.results.rundir import load_run
from tests.integration.helpers import MINI_IDS, CrmProject

Outcomes = dict[str, tuple[str, str | None]]
TAMPERED, AGENT_ERROR = ("failure", "tampered"), ("failure", "agent_error")
GOLD: Outcomes = {
    "mini_transfer_retry_01": ("not_judged", "user_stop"),
    "mini_checkout_chain_01": ("not_judged", "user_stop"),
    "mini_balance_only_01": ("not_judged", "user_stop"),
    "mini_transfer_frozen_01": ("success", "user_stop"),
    "mini_refusal_close_01": ("not_judged", "user_stop"),
    "mini_override_01": ("success", "user_stop"),
}
INPROCESS: dict[str, Outcomes] = {
    # The context carries no gold path: building the agent fails, and so does every task.
    "make_gold_from_context": dict.fromkeys(MINI_IDS, AGENT_ERROR),
    # Wherever the gold path does something, the overwritten world is noticed. The refusal task's
    # gold path is empty: there was nothing to copy, and the agent earned what it did.
    "make_private_copy": {**dict.fromkeys(MINI_IDS, TAMPERED), "mini_refusal_close_01": GOLD["mini_refusal_close_01"]},
    # Where a task forbids something, the erased attempts are noticed; mini_override_01 forbids
    # nothing, so the adversary had nothing to hide and played gold.
    "make_forbidden_then_erase": {**dict.fromkeys(MINI_IDS, TAMPERED), "mini_override_01": GOLD["mini_override_01"]},
    "make_fake_state": {**dict.fromkeys(MINI_IDS, TAMPERED), "mini_refusal_close_01": GOLD["mini_refusal_close_01"]},
    # Raising on the medium and hard tasks fails them: the crash stays in the denominator.
    "make_crash_on_hard": {**GOLD, "mini_transfer_retry_01": AGENT_ERROR, "mini_checkout_chain_01": AGENT_ERROR},
}


EXPECTED: dict[str, Outcomes] = {
    # Isolated, an agent reaches nothing of the harness: looking for the environment is its error.
    **dict.fromkeys(
        ["make_gold_from_context", "make_private_copy", "make_forbidden_then_erase", "make_fake_state"],
        dict.fromkeys(MINI_IDS, AGENT_ERROR),
    ),
    "make_crash_on_hard": INPROCESS["make_crash_on_hard"],
}


def saved(project: CrmProject) -> Outcomes:
    return {r.task_id: (r.outcome, r.termination) for r in load_run(project.path / "out").records}


def regraded(project: CrmProject, capsys: pytest.CaptureFixture[str]) -> Outcomes:
    capsys.readouterr()
    tasks, envs = str(project.tasks), str(project.path / "envs")
    main(["grade", str(project.path / "out"), "--tasks", tasks, "--envs", envs, "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return {line["task_id"]: (line["outcome"], line["termination"]) for line in lines}


@pytest.mark.parametrize("inprocess", [False, True], ids=["isolated", "inprocess"])
@pytest.mark.parametrize("factory", sorted(EXPECTED))
def test_each_adversary_scores_what_it_deserves(
    mini_project: CrmProject, capsys: pytest.CaptureFixture[str], factory: str, inprocess: bool
) -> None:
    options = ["--crm-agent-inprocess"] if inprocess else []
    result = mini_project.run(f"--crm-agent=tests.adversaries:{factory}", "--crm-run-dir=out", *options)
    expected = (INPROCESS if inprocess else EXPECTED)[factory]
    assert saved(mini_project) == expected
    assert regraded(mini_project, capsys) == expected
    tampered = sum(termination == "tampered" for _, termination in expected.values())
    if tampered:  # flagged, not only counted
        result.stdout.fnmatch_lines(
            [f"6 task(s): * failure ({tampered} tampered), *", f"(T) *: {tampered} result(s) ended as tampered*"]
        )
    # The saved run is what it says: leaderboard and gate accept it after re-grading every record.
    folders = ["--tasks", str(mini_project.tasks), "--envs", str(mini_project.path / "envs")]
    assert main(["leaderboard", str(mini_project.path / "out"), *folders]) == 0
