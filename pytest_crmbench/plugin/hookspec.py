"""Hooks crmbench adds to pytest (``pytest_crmbench_*``); implement them in a conftest or plugin."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_crmbench.results.records import ResultRecord
    from pytest_crmbench.run.episode import Agent, AgentContext


@pytest.hookspec(firstresult=True)
def pytest_crmbench_make_agent(name: str, context: AgentContext) -> Agent | None:
    """Build the agent for one episode, or return None to let the next implementation try.

    ``name`` is the value of ``--crm-agent``. The built-in implementation (run last) knows
    ``gold``, ``null`` and ``package.module:factory``. Example::

        def pytest_crmbench_make_agent(name, context):
            if name == "mine":
                return MyAgent(tools=context.environment.tool_schemas())
    """


@pytest.hookspec
def pytest_crmbench_update_result_record(record: ResultRecord, item: pytest.Item) -> None:
    """Change or annotate a finished item's result record before it leaves the process.

    Runs where the item ran (an xdist worker, say), after grading. Put your own metadata in
    ``record.extra`` (JSON values only; anything else is dropped with a note). Example::

        def pytest_crmbench_update_result_record(record, item):
            record.extra["agent_version"] = my_agent.__version__
    """
