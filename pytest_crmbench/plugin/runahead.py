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

from concurrent.futures import ThreadPoolExecutor

import pytest

from pytest_crmbench.core.seeding import derive_seed
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.env.registry import environment_for
from pytest_crmbench.plugin import fixtures
from pytest_crmbench.plugin.stash import environments, played_key, settings_key
from pytest_crmbench.reference.agents import agent_label
from pytest_crmbench.run.play import Played, play
from pytest_crmbench.run.settings import RunSettings


def own_fixtures(item: pytest.Item) -> bool:
    """Whether every ``crm_*`` fixture the item uses is crmbench's own (nothing overridden)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return all(
        getattr(defs[-1].func, "__module__", None) == "pytest_crmbench.plugin.fixtures"
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
            agent_name=agent_label(agent, settings.agent),
            trial=trial,
        )
