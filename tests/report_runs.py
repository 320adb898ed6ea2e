"""Run directories made from real episodes on the mini domain, for the report's tests.

Each result is a real episode (environment, agent, scripted user) graded by the real grader and
written through :class:`~pytest_crmbench.results.rundir.RunDir`, as the plugin would write it.
``judge`` adds reply verdicts that quote the agent's reply, as an LLM judge's would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import ScriptedUser
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.grading import CheckVerdict, grade
from pytest_crmbench.results.records import build_record, encode_record, encode_trajectory, trajectory
from pytest_crmbench.results.rundir import FORMAT, RunDir
from pytest_crmbench.run.episode import Agent, run_episode

Judge = Callable[[Task, list[str]], list[CheckVerdict]]


def quoting_judge(task: Task, said: list[str]) -> list[CheckVerdict]:
    """Passes every criterion on the agent's last reply, quoting its first words verbatim."""
    reply = said[-1] if said else ""
    quote = " ".join(reply.split()[:5])
    status = "passed" if quote else "failed"
    return [
        CheckVerdict(family="reply", name=f"reply[{i}]", status=status, expected=c, actual=quote)
        for i, c in enumerate(task.contract.reply_criteria)
    ]


def write_run(
    path: Path,
    tasks: Sequence[Task],
    env_class: type[ToolEnvironment],
    agent: Callable[[Task], Agent],
    *,
    system: str,
    trials: int = 1,
    created_at: str = "2026-11-30T12:00:00+00:00",
    judge: Judge | None = None,
) -> Path:
    run = RunDir(path)
    run.write_manifest(
        {"format": FORMAT, "system": system, "agent": system, "created_at": created_at, "task_set": {"hash": "f" * 64}}
    )
    for trial in range(trials):
        for task in tasks:
            evidence = run_episode(
                task,
                env_class(task.initial_state, seed=100 + trial),
                agent(task),
                ScriptedUser(task),
                agent_name=system,
                trial=trial,
            )
            reply_judge = None if judge is None else (lambda t, e: judge(t, e.assistant_messages()))
            verdict = grade(task, evidence, reply_judge) if reply_judge else grade(task, evidence)
            record = build_record(task, evidence, verdict, model=None, latency_s=0.01)
            run.append_result(encode_record(record))
            text = encode_trajectory(trajectory(evidence, verdict, record))
            assert text is not None
            run.append_trace(task.domain, text)
    return path
