"""Hooks crmbench adds to pytest (``pytest_crmbench_*``); implement them in a conftest or plugin."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_crmbench.agents import AgentContext
    from pytest_crmbench.episode import Agent


@pytest.hookspec(firstresult=True)
def pytest_crmbench_make_agent(name: str, context: AgentContext) -> Agent | None:
    """Build the agent for one episode, or return None to let the next implementation try.

    ``name`` is the value of ``--crm-agent``. The built-in implementation (run last) knows
    ``gold``, ``null`` and ``package.module:factory``. Example::

        def pytest_crmbench_make_agent(name, context):
            if name == "mine":
                return MyAgent(tools=context.environment.tool_schemas())
    """
