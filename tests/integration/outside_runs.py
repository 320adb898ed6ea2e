"""What the pytest runs of the agents crmbench calls per turn share (``cmd:``, ``a2a:``): the
scripted model server playing the mini tasks' gold paths, and a run of a project with that agent."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.models.fakellm import FakeLLM
from tests.integration.helpers import DATA, CrmProject
from tests.llm_script import GoldScript

SMALL_SET = ["mini_balance_only_01", "mini_transfer_frozen_01", "mini_checkout_chain_01"]
"""A read, a business rejection the model must recover from, a chain whose ids come from results."""


def gold_server() -> Iterator[FakeLLM]:
    """The body of a ``server`` fixture: the agent's model asks for each mini task's gold path."""
    tasks = [record.task for record in load_task_file(DATA / "tasks" / "mini.yaml")]
    with FakeLLM(GoldScript(tasks), lifetime_s=120) as fake:
        yield fake


def run(project: CrmProject, server: FakeLLM, agent: str, *extra: str) -> pytest.RunResult:
    """The project's run with ``agent``, its model (and the judge's) on ``server``, into ``out``."""
    project.write_config('filterwarnings = ["error"]\n')
    return project.run(
        f"--crm-agent={agent}",
        "--crm-model=openai/agent-model",
        f"--crm-api-base={server.base_url}",
        "--crm-user-model=scripted",
        "--crm-judge-model=openai/judge-model",
        f"--crm-judge-api-base={server.base_url}",
        "--crm-no-preflight",
        "--crm-run-dir=out",
        *extra,
    )
