"""Gold replay and the null-agent audit (spec §A.5 step 3, "validate from a fresh world").

Both run the task through the same episode loop and grader as ``pytest``: the gold agent must pass
every programmatic check with no step getting a status other than the one it declares; a
do-nothing agent must fail every task that declares something to achieve. Reply criteria are not
judged here (no model): ``not_judged`` is neither a pass nor a failure for these audits.
"""

from __future__ import annotations

from collections.abc import Iterator

from pytest_crmbench.core.errors import SpecError
from pytest_crmbench.core.evidence import Evidence
from pytest_crmbench.core.loader import TaskRecord
from pytest_crmbench.core.seeding import derive_seed
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import ScriptedUser
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.grading import TaskVerdict, grade
from pytest_crmbench.release.taskset import problem
from pytest_crmbench.run.baselines import GoldAgent, NullAgent
from pytest_crmbench.run.episode import Agent, run_episode

BASE_SEED = 0
"""The seed ``pytest``'s default gold run uses, so validate replays exactly what the suite replays."""


def play_offline(
    task: Task, environment: type[ToolEnvironment], agent: Agent, name: str
) -> tuple[Evidence, TaskVerdict]:
    """One episode from a fresh environment with the scripted user, and its verdict."""
    env = environment(task.initial_state, seed=derive_seed(BASE_SEED, task.id))
    evidence = run_episode(task, env, agent, ScriptedUser(task), agent_name=name)
    return evidence, grade(task, evidence)


def gold_problems(record: TaskRecord, environment: type[ToolEnvironment]) -> tuple[Evidence, list[SpecError]]:
    """The gold replay's evidence and every way the gold path fails its own contract."""
    agent = GoldAgent(record.task)
    evidence, verdict = play_offline(record.task, environment, agent, "gold")
    return evidence, list(_gold_failures(record, agent, evidence, verdict))


def _gold_failures(
    record: TaskRecord, agent: GoldAgent, evidence: Evidence, verdict: TaskVerdict
) -> Iterator[SpecError]:
    for mismatch in agent.mismatches:
        yield problem(
            record,
            ("gold", "path", mismatch.step),
            f"gold step {mismatch.step} {mismatch.call.tool}: expected {mismatch.call.expect}, "
            f"got {mismatch.status}: {mismatch.detail}",
        )
    for check in verdict.checks:
        if check.status == "failed":
            diff = " | ".join(line.strip() for line in check.diff.splitlines() if line.strip())
            yield problem(record, ("gold",), f"gold path fails its own contract: {check.name}: {diff}")
    if evidence.termination.reason != "user_stop":
        yield problem(record, ("gold",), f"gold episode ended by {evidence.termination.reason}")


def null_agent_problems(record: TaskRecord, environment: type[ToolEnvironment]) -> Iterator[SpecError]:
    """The task declares a positive check, yet an agent that does nothing passes it: it tests nothing."""
    if not record.task.contract.has_positive_check():
        return
    _, verdict = play_offline(record.task, environment, NullAgent(), "null")
    if not any(check.status == "failed" for check in verdict.checks):
        yield problem(
            record,
            ("contract",),
            "the null agent (no tool calls) passes every programmatic check: the task tests nothing",
        )
