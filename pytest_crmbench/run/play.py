"""One item's work, whether pytest plays it inline or a pool plays it ahead: the episode, then grading."""

from __future__ import annotations

import time
from dataclasses import dataclass

from pytest_crmbench.core.evidence import Evidence
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.core.users import User
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.grading import ReplyJudge, grade
from pytest_crmbench.grading.verdict import TaskVerdict
from pytest_crmbench.run.episode import Agent, EndsEpisode, run_episode
from pytest_crmbench.run.settings import RunSettings


@dataclass(frozen=True)
class Played:
    evidence: Evidence
    verdict: TaskVerdict
    agent: Agent
    latency_s: float
    """Wall time of the episode itself (not of waiting for it), for result records."""
    env: ToolEnvironment
    """The environment the episode ran on, in its final state; with the user and the judge, what
    the item's fixtures return when the episode was played ahead of it."""
    user: User
    judge: ReplyJudge


def play(
    task: Task,
    env: ToolEnvironment,
    agent: Agent,
    user: User,
    judge: ReplyJudge,
    settings: RunSettings,
    usage: UsageLedger,
    *,
    agent_name: str,
    trial: int,
) -> Played:
    """Episode + grading of one item: what every task item does, inline or ahead of time."""
    started = time.monotonic()
    try:
        evidence = run_episode(
            task, env, agent, user, agent_name=agent_name, limits=settings.limits, trial=trial, usage=usage
        )
    finally:
        if isinstance(agent, EndsEpisode):
            agent.close()  # the episode is over: so is the agent's process
    if isinstance(agent, EndsEpisode) and agent.name:
        evidence = evidence.model_copy(update={"agent": agent.name})  # its own name, as in-process
    latency_s = time.monotonic() - started
    verdict = grade(task, evidence, judge)
    verdict.judge_usage = usage.get("judge")
    return Played(evidence, verdict, agent, latency_s, env, user, judge)
