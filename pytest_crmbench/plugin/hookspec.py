"""Hooks crmbench adds to pytest (``pytest_crmbench_*``); implement them in a conftest or plugin."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_crmbench.env.environment import ToolEnvironment
    from pytest_crmbench.results.records import ResultRecord
    from pytest_crmbench.run.episode import Agent, AgentContext


@pytest.hookspec(firstresult=True)
def pytest_crmbench_make_agent(name: str, context: AgentContext) -> Agent | None:
    """Build the agent for one episode, or return None to let the next implementation try.

    ``name`` is the value of ``--crm-agent``. The built-in implementation (run last) knows
    ``null``, ``graph``, ``flat`` and ``package.module:factory`` (``gold`` is built by the harness
    from the task, which ``context`` never carries). Under ``--crm-concurrency`` this hook runs in
    a pool thread, once per item. Example::

        def pytest_crmbench_make_agent(name, context):
            if name == "mine":
                return MyAgent(tools=context.tools, policy=context.policy)
    """


@pytest.hookspec
def pytest_crmbench_update_result_record(record: ResultRecord, item: pytest.Item) -> None:
    """Change or annotate a finished item's result record before it leaves the process.

    Runs where the item ran (an xdist worker, say), after grading. Put your own metadata in
    ``record.extra`` (JSON values only; anything else is dropped with a note). Example::

        def pytest_crmbench_update_result_record(record, item):
            record.extra["agent_version"] = my_agent.__version__
    """


@pytest.hookspec
def pytest_crmbench_update_environments(environments: list[type[ToolEnvironment]], config: pytest.Config) -> None:
    """Add environments defined in code (not in a ``crm_env_dirs`` folder) for this session.

    Appended classes win over a folder of the same domain. Example::

        def pytest_crmbench_update_environments(environments):
            environments.append(MyEnvironment)
    """
