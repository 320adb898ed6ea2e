"""``--crm-concurrency=N``: play the episodes of upcoming items in a bounded thread pool.

Model calls are mostly waiting, and one process with threads waits cheaply: N episodes run
ahead of pytest's (serial) loop, each item then grades nothing itself but asserts its own
finished episode (its ``crm_agent`` fixture returns the agent that played it: each agent is built
once). Only items whose fixtures are all crmbench's and pytest's own run ahead: an override in a
conftest may depend on anything, and an autouse fixture or a ``usefixtures`` mark must run before
the episode, so such items play inline as usual, and the session header says which and why.

In the pool's threads run: the ``pytest_crmbench_make_agent`` hook and the agent factory, the
agent itself, the user simulator and the judge. Every other hook runs on the main thread. With
``-n``/``--tx`` each worker plays its own share ahead (:mod:`~pytest_crmbench.plugin.distribute`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from pytest_crmbench.core.seeding import derive_seed
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.env.registry import environment_for
from pytest_crmbench.plugin import fixtures
from pytest_crmbench.plugin.distribute import plays_here, worker_index
from pytest_crmbench.plugin.modelcheck import wait_for_preflight
from pytest_crmbench.plugin.stash import environments, played_key, settings_key
from pytest_crmbench.reference.catalog import agent_label
from pytest_crmbench.run.play import Played, play
from pytest_crmbench.run.settings import RunSettings

OWN_FIXTURES = "pytest_crmbench.plugin.fixtures"


def foreign_fixtures(item: pytest.Item) -> list[str] | None:
    """The fixtures of the item that are neither crmbench's own nor pytest's (None: not a task item).

    An overridden ``crm_*`` fixture may depend on anything, and an autouse fixture or a
    ``usefixtures`` mark must run before the episode it prepares: such an item plays inline, after
    its fixtures, never ahead of them (issue 9 §3).
    """
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    foreign = []
    for name in info.names_closure:
        definitions = info.name2fixturedefs.get(name)
        if not definitions:
            continue  # "request" and other pseudo-fixtures
        module = str(getattr(definitions[-1].func, "__module__", ""))
        if module != OWN_FIXTURES and module.split(".")[0] != "_pytest":
            foreign.append(name)
    return foreign


def own_fixtures(item: pytest.Item) -> bool:
    """Whether the item uses only crmbench's and pytest's own fixtures, so it can be played ahead."""
    return foreign_fixtures(item) == []


class RunAhead:
    """Registered on the (non-xdist) process when ``--crm-concurrency`` > 1."""

    def __init__(self, config: pytest.Config, workers: int) -> None:
        self.config = config
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="crmbench-episode")

    @pytest.hookimpl(trylast=True)  # after pytest's "collected" line (the preflight's line follows it)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.config.option.collectonly:
            return  # --co runs nothing, and with a model nothing paid either
        wait_for_preflight(self.config)  # no episode before the preflight passed and set the output modes
        # Items run in this order, and the pool starts work in submission order, so the item at
        # the head of pytest's loop is always among the N episodes in flight.
        # Under xdist a worker plays ahead only its own share of the collection, the items the
        # controller's static schedule sends it (plugin/distribute.py).
        worker = worker_index(self.config)
        for position, item in enumerate(session.items):
            if getattr(item, "task", None) is not None and own_fixtures(item) and plays_here(position, worker):
                item.stash[played_key] = self.pool.submit(self._play, item)

    def pytest_report_collectionfinish(self, config: pytest.Config, items: list[pytest.Item]) -> list[str]:
        if config.option.collectonly:
            return []
        inline: dict[str, None] = {}
        count = 0
        for item in items:
            foreign = foreign_fixtures(item) if getattr(item, "task", None) is not None else None
            if foreign:
                count += 1
                inline.update(dict.fromkeys(foreign))
        if not count:
            return []
        return [
            f"crmbench: {count} task item(s) play inline, not ahead (--crm-concurrency): they use fixtures"
            f" crmbench cannot run ahead of them: {', '.join(inline)}"
        ]

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
