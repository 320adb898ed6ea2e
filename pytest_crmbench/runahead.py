"""``--crm-concurrency=N``: play the episodes of upcoming items in a bounded thread pool.

Model calls are mostly waiting, and one process with threads waits cheaply: N episodes run
ahead of pytest's (serial) loop, each item then grades nothing itself but asserts its own
finished episode. Only items whose ``crm_*`` fixtures are all crmbench's own run ahead (an
override in a conftest may depend on anything, so such items play inline as usual). xdist
schedules items to workers dynamically, so a worker cannot know which items to play ahead:
``-n`` and ``--crm-concurrency`` are exclusive (use ``-n`` for CPU-bound agents of your own,
``--crm-concurrency`` for model runs; see docs/performance.md).
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from pytest_crmbench.environment import ToolEnvironment
from pytest_crmbench.episode import Agent, run_episode
from pytest_crmbench.evidence import Evidence
from pytest_crmbench.grading import ReplyJudge, grade
from pytest_crmbench.grading.verdict import TaskVerdict
from pytest_crmbench.registry import environment_for
from pytest_crmbench.seeding import derive_seed
from pytest_crmbench.settings import RunSettings
from pytest_crmbench.spec import Task
from pytest_crmbench.stash import settings_key
from pytest_crmbench.usage import UsageLedger
from pytest_crmbench.users import User


@dataclass(frozen=True)
class Played:
    evidence: Evidence
    verdict: TaskVerdict
    agent: Agent
    latency_s: float
    """Wall time of the episode itself (not of waiting for it), for result records."""


played_key = pytest.StashKey[Future[Played]]()  # on item.stash


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
    evidence = run_episode(
        task, env, agent, user, agent_name=agent_name, limits=settings.limits, trial=trial, usage=usage
    )
    latency_s = time.monotonic() - started
    verdict = grade(task, evidence, judge)
    verdict.judge_usage = usage.get("judge")
    return Played(evidence, verdict, agent, latency_s)


def own_fixtures(item: pytest.Item) -> bool:
    """Whether every ``crm_*`` fixture the item uses is crmbench's own (nothing overridden)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return all(
        getattr(defs[-1].func, "__module__", None) == "pytest_crmbench.fixtures"
        for name, defs in info.name2fixturedefs.items()
        if name.startswith("crm_")
    )


class RunAhead:
    """Registered on the (non-xdist) process when ``--crm-concurrency`` > 1."""

    def __init__(self, config: pytest.Config, workers: int) -> None:
        self.config = config
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="crmbench-episode")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.config.option.collectonly:
            return  # --co runs nothing, and with a model nothing paid either
        # Items run in this order, and the pool starts work in submission order, so the item at
        # the head of pytest's loop is always among the N episodes in flight.
        for item in session.items:
            if getattr(item, "task", None) is not None and own_fixtures(item):
                item.stash[played_key] = self.pool.submit(self._play, item)

    def pytest_sessionfinish(self) -> None:
        # -x / --maxfail / Ctrl-C: episodes not started yet are dropped, running ones finish.
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _play(self, item: pytest.Item) -> Played:
        # Imported here: collect and fixtures import this module.
        from pytest_crmbench import fixtures
        from pytest_crmbench.collect import agent_label, environments

        config = self.config
        settings: RunSettings = config.stash[settings_key]
        task: Task = item.task  # type: ignore[attr-defined]
        trial = getattr(item, "trial", 0)
        env_class = environment_for(task.domain, environments(config))
        seed = derive_seed(settings.base_seed, task.id, trial)
        usage = UsageLedger()
        agent = fixtures.make_agent(config, settings, task, env_class, seed, usage)
        return play(
            task,
            env_class(task.initial_state, seed=seed),
            agent,
            fixtures.make_user(settings, task, seed, usage),
            fixtures.make_judge(settings, usage),
            settings,
            usage,
            agent_name=agent_label(agent, settings),
            trial=trial,
        )
