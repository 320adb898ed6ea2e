"""Re-grading saved trajectories: replay on a fresh environment, non-determinism, saved replies."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.evidence import jsonable
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import ScriptedUser
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.grading import grade
from pytest_crmbench.results.regrade import regrade, regrade_entry, state_differences, summary_lines
from pytest_crmbench.run.baselines import GoldAgent
from pytest_crmbench.run.episode import run_episode
from tests.conftest import DATA


def saved_entry(task: Task, env_class: type[ToolEnvironment], seed: int = 11) -> dict[str, Any]:
    """What a run directory's trace line holds for a gold episode."""
    evidence = run_episode(
        task, env_class(task.initial_state, seed=seed), GoldAgent(task), ScriptedUser(task), agent_name="gold"
    )
    return json.loads(json.dumps({"evidence": jsonable(evidence), "verdict": jsonable(grade(task, evidence))}))


@pytest.fixture
def environments(mini_env_class: type[ToolEnvironment]) -> dict[str, type[ToolEnvironment]]:
    return {"mini": mini_env_class}


def test_replay_of_a_faithful_trajectory_matches_and_grades_the_same(
    mini_tasks: dict[str, Task], environments: dict[str, type[ToolEnvironment]]
) -> None:
    task = mini_tasks["mini_checkout_chain_01"]  # generated ids and clock: the seed matters
    result = regrade_entry(saved_entry(task, environments["mini"]), mini_tasks, environments)
    assert result.nondeterminism == []
    assert (result.before, result.record.outcome) == ("not_judged", "not_judged")
    assert all(c.status != "failed" for c in result.record.checks)


def test_a_final_state_that_does_not_replay_is_non_determinism(
    mini_tasks: dict[str, Task], environments: dict[str, type[ToolEnvironment]]
) -> None:
    task = mini_tasks["mini_transfer_retry_01"]
    entry = saved_entry(task, environments["mini"])
    entry["evidence"]["final_state"]["accounts"]["ACC-1"]["balance"] = "999.00"
    result = regrade_entry(entry, mini_tasks, environments)
    assert result.nondeterminism == ["replayed final state differs at accounts.ACC-1.balance"]
    # Grading uses the replayed state, not the tampered recording.
    assert all(c.status != "failed" for c in result.record.checks)


def test_a_call_that_replays_differently_is_named(
    mini_tasks: dict[str, Task], environments: dict[str, type[ToolEnvironment]]
) -> None:
    task = mini_tasks["mini_transfer_retry_01"]
    entry = saved_entry(task, environments["mini"])
    entry["evidence"]["seed"] += 1  # another seed: another transfer id
    result = regrade_entry(entry, mini_tasks, environments)
    assert result.nondeterminism == [
        "call #2 execute_transfer: result differs at transfer_id",
        "replayed final state differs at transfers",
    ]


def test_changed_contract_changes_the_outcome(
    mini_tasks: dict[str, Task], environments: dict[str, type[ToolEnvironment]]
) -> None:
    task = mini_tasks["mini_transfer_retry_01"]
    entry = saved_entry(task, environments["mini"])
    stricter = task.model_copy(
        update={"contract": task.contract.model_copy(update={"expected_state": {"accounts.ACC-1.balance": 100}})}
    )
    result = regrade_entry(entry, {**mini_tasks, task.id: stricter}, environments)
    assert result.record.outcome == "failure" and result.record.primary_label == "state"
    assert summary_lines([result])[1] == "changed: mini_transfer_retry_01[t1]: not_judged -> failure"


def test_saved_reply_verdicts_are_kept_for_unchanged_criteria(
    mini_tasks: dict[str, Task], environments: dict[str, type[ToolEnvironment]]
) -> None:
    task = mini_tasks["mini_balance_only_01"]
    entry = saved_entry(task, environments["mini"])
    (reply,) = [c for c in entry["verdict"]["checks"] if c["family"] == "reply"]
    reply["status"] = "passed"
    assert regrade_entry(entry, mini_tasks, environments).record.outcome == "success"
    reworded = copy.deepcopy(entry)
    next(c for c in reworded["verdict"]["checks"] if c["family"] == "reply")["expected"] = "Something else"
    assert regrade_entry(reworded, mini_tasks, environments).record.outcome == "not_judged"


def test_unknown_task_is_an_error_row(
    mini_tasks: dict[str, Task], environments: dict[str, type[ToolEnvironment]]
) -> None:
    entry = saved_entry(mini_tasks["mini_balance_only_01"], environments["mini"])
    entry["evidence"]["task_id"] = "gone_01"
    result = regrade_entry(entry, mini_tasks, environments)
    assert result.record.outcome == "error"
    assert result.record.error == "task 'gone_01' is not in the current task set"


def test_a_trajectory_file_from_outside_pytest(
    tmp_path: Path, mini_tasks: dict[str, Task], environments: dict[str, type[ToolEnvironment]]
) -> None:
    # The public format is the bare Evidence JSON; a list of them is one file.
    evidences = [
        saved_entry(mini_tasks[t], environments["mini"])["evidence"]
        for t in ("mini_override_01", "mini_balance_only_01")
    ]
    file = tmp_path / "production.json"
    file.write_text(json.dumps(evidences))
    results = regrade(file, DATA / "tasks", DATA / "envs")
    assert [(r.record.task_id, r.before, r.record.outcome) for r in results] == [
        ("mini_override_01", None, "success"),
        ("mini_balance_only_01", None, "not_judged"),
    ]
    lines = tmp_path / "production.jsonl"
    lines.write_text("\n".join(json.dumps(e) for e in evidences))
    assert len(regrade(lines, DATA / "tasks", DATA / "envs")) == 2
    file.write_text(json.dumps({"task_id": "x"}))
    with pytest.raises(CrmbenchError, match="not a trajectory"):
        regrade(file, DATA / "tasks", DATA / "envs")


def test_state_differences_lists_paths() -> None:
    assert state_differences({"a": {"b": 1, "c": 2}}, {"a": {"b": 1, "c": 3, "d": 4}}) == ["a.c", "a.d"]
    assert state_differences([1], [2]) == ["(root)"]


def test_saved_judge_keeps_the_contradiction_flag(mini_tasks: dict[str, Any]) -> None:
    from pytest_crmbench.core.evidence import Evidence, Termination
    from pytest_crmbench.grading import grade
    from pytest_crmbench.results.regrade import saved_judge

    task = mini_tasks["mini_balance_only_01"]
    saved = [
        {"family": "reply", "name": "reply[0]", "status": "passed", "expected": task.contract.reply_criteria[0]},
        {
            "family": "reply",
            "name": "reply[contradiction]",
            "status": "failed",
            "actual": True,
            "diff": "judge: contradiction",
        },
    ]
    evidence = Evidence(task_id=task.id, agent="a", termination=Termination(reason="user_stop"))
    verdict = grade(task, evidence, saved_judge(saved))
    replies = {c.name: c.status for c in verdict.checks if c.family == "reply"}
    assert replies == {"reply[0]": "passed", "reply[contradiction]": "failed"}
    assert verdict.outcome == "failure"
