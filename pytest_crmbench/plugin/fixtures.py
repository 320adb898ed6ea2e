"""Public fixtures of a task item. Override any of them in your ``conftest.py``.

``crm_task`` -> ``crm_env_class`` + ``crm_seed`` -> ``crm_env`` (fresh per item) ->
``crm_agent`` / ``crm_user`` -> episode; ``crm_judge`` grades reply criteria. ``crm_usage`` is the
item's usage ledger: whatever calls a model reports into it (agent, user, judge).
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

import pytest

from pytest_crmbench.core.errors import AgentConfigError
from pytest_crmbench.core.seeding import derive_seed
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.core.users import ScriptedUser, User
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import environment_for
from pytest_crmbench.env.state import StateError
from pytest_crmbench.grading import ReplyJudge, not_judged
from pytest_crmbench.models.llm import ModelClient
from pytest_crmbench.plugin.stash import environments, played_key, settings_key
from pytest_crmbench.reference.catalog import make_oracle
from pytest_crmbench.run.agentcode import agent_code
from pytest_crmbench.run.baselines import BrokenAgent
from pytest_crmbench.run.episode import Agent, AgentContext
from pytest_crmbench.run.play import Played
from pytest_crmbench.run.settings import RunSettings


@pytest.fixture(scope="session")
def crm_settings(pytestconfig: pytest.Config) -> RunSettings:
    """The run's resolved ``--crm-*`` options and ``crm_*`` ini values."""
    return pytestconfig.stash[settings_key]


@pytest.fixture
def crm_task(request: pytest.FixtureRequest) -> Task:
    """The task record of the current item."""
    task = getattr(request.node, "task", None)
    if not isinstance(task, Task):
        pytest.fail(
            f"{request.node.nodeid}: crm_task is only available to crmbench task items (tasks/*.yaml)", pytrace=False
        )
    return task


@pytest.fixture
def crm_env_class(crm_task: Task, pytestconfig: pytest.Config) -> type[ToolEnvironment]:
    """The ToolEnvironment subclass of the task's domain."""
    return environment_for(crm_task.domain, environments(pytestconfig))


@pytest.fixture
def crm_seed(crm_task: Task, crm_settings: RunSettings, request: pytest.FixtureRequest) -> int:
    """The item's seed, derived from (base seed, task id, trial)."""
    return derive_seed(crm_settings.base_seed, crm_task.id, getattr(request.node, "trial", 0))


@pytest.fixture
def crm_env(
    crm_env_class: type[ToolEnvironment], crm_task: Task, crm_seed: int, request: pytest.FixtureRequest
) -> ToolEnvironment:
    """A freshly reset environment: the domain default with the task's override merged in.

    Under ``--crm-concurrency`` an item played ahead gets the environment its episode ran on
    (in its final state, as an inline item's is once its episode ran), not a second one.
    """
    try:
        played = _played_ahead(request)  # its pool thread built the environment the same way
        return played.env if played is not None else crm_env_class(crm_task.initial_state, seed=crm_seed)
    except StateError as exc:  # a seed or override the state model refuses: the task's data, one line
        pytest.fail(f"task {crm_task.id!r}: {exc}", pytrace=False)


@pytest.fixture
def crm_usage() -> UsageLedger:
    """The item's model usage ledger (per role); it ends up in the evidence and the verdict."""
    return UsageLedger()


@pytest.fixture
def crm_agent(
    crm_task: Task,
    crm_env_class: type[ToolEnvironment],
    crm_seed: int,
    crm_settings: RunSettings,
    crm_usage: UsageLedger,
    pytestconfig: pytest.Config,
    request: pytest.FixtureRequest,
) -> Agent:
    """The agent under evaluation, built by the ``pytest_crmbench_make_agent`` hook.

    Under ``--crm-concurrency`` the agent that already played the item ahead of time (built once,
    in a pool thread) is returned rather than building a second one.
    """
    played = _played_ahead(request)
    if played is not None:
        return played.agent
    return make_agent(pytestconfig, crm_settings, crm_task, crm_env_class, crm_seed, crm_usage)


@pytest.fixture
def crm_user(
    crm_task: Task, crm_settings: RunSettings, crm_seed: int, crm_usage: UsageLedger, request: pytest.FixtureRequest
) -> User:
    """The user side: the model simulator with a user model (--crm-user-model), else a scripted
    user that says the opening line (played ahead: the one that played)."""
    played = _played_ahead(request)
    return played.user if played is not None else make_user(crm_settings, crm_task, crm_seed, crm_usage)


@pytest.fixture
def crm_judge(crm_settings: RunSettings, crm_usage: UsageLedger, request: pytest.FixtureRequest) -> ReplyJudge:
    """Grades reply criteria with the judge model (--crm-judge-model). Without one, every criterion
    is 'not judged' (never a pass). Played ahead: the one that judged."""
    played = _played_ahead(request)
    return played.judge if played is not None else make_judge(crm_settings, crm_usage)


def _played_ahead(request: pytest.FixtureRequest) -> Played | None:
    """The item's episode when ``--crm-concurrency`` played it ahead (waiting for it to finish)."""
    ahead: Future[Played] | None = request.node.stash.get(played_key, None)
    return ahead.result() if ahead is not None else None


# -- the builders behind the fixtures (also used by --crm-concurrency's run-ahead) ------------------


def make_agent(
    config: pytest.Config,
    settings: RunSettings,
    task: Task,
    env_class: type[ToolEnvironment],
    seed: int,
    usage: UsageLedger,
) -> Agent:
    """The episode's agent. An oracle (gold) gets the task from the harness; every other agent gets
    an :class:`AgentContext`, which holds nothing of the task. A factory that raises yields an agent
    that fails its first turn with that error: the agent's failure, not an unscored error."""
    oracle = make_oracle(settings.agent, task)
    if oracle is not None:
        return oracle
    models = settings.models
    context = AgentContext.for_domain(
        env_class,
        seed=seed,
        limits=settings.limits,
        model=models.config("agent", seed=seed) if models.agent else None,
        usage=usage,
        graph_dirs=settings.graph_dirs,
    )
    try:
        with agent_code(usage):  # the factory's warnings are counted, never raised (issue 32 item 7)
            agent: Any = config.hook.pytest_crmbench_make_agent(name=settings.agent, context=context)
    except AgentConfigError as exc:
        # The same error would repeat for every task, so stop the run.
        pytest.exit(f"--crm-agent: {exc}", returncode=pytest.ExitCode.USAGE_ERROR)
    except Exception as exc:
        return BrokenAgent(exc)
    return agent  # type: ignore[no-any-return]


def make_user(settings: RunSettings, task: Task, seed: int, usage: UsageLedger) -> User:
    models = settings.models
    if models.user is None:
        return ScriptedUser(task)
    from pytest_crmbench.models.simulator import LLMUser

    return LLMUser(task, ModelClient(models.config("user", seed=seed), "user", usage))


def make_judge(settings: RunSettings, usage: UsageLedger) -> ReplyJudge:
    models = settings.models
    if models.judge is None:
        return not_judged
    from pytest_crmbench.models.judge import LLMJudge

    return LLMJudge(models.config("judge")).bind(usage)
