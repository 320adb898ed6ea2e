import pytest

from pytest_crmbench.core.errors import AgentConfigError
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import ScriptedUser
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.reference.catalog import BUILTIN_AGENTS, load_factory, make_oracle
from pytest_crmbench.run.baselines import GoldAgent, NullAgent
from pytest_crmbench.run.episode import AgentContext, run_episode


def test_builtin_factories(mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]) -> None:
    context = AgentContext.for_domain(mini_env_class, seed=1)
    assert isinstance(make_oracle("gold", mini_tasks["mini_balance_only_01"]), GoldAgent)
    assert make_oracle("null", mini_tasks["mini_balance_only_01"]) is None
    with pytest.raises(AgentConfigError, match="only the harness can build it"):
        load_factory("gold")(context)
    assert isinstance(load_factory("null")(context), NullAgent)
    assert set(BUILTIN_AGENTS) == {"gold", "null", "graph", "flat"}
    with pytest.raises(AgentConfigError, match="need a model"):
        load_factory("graph")(context)


def test_factory_path_resolves_a_callable() -> None:
    assert load_factory("pytest_crmbench.run.baselines:NullAgent") is NullAgent


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nonsense", "unknown agent 'nonsense'"),
        ("no_such_module_xyz:make", "cannot import 'no_such_module_xyz'"),
        ("pytest_crmbench.run.baselines:missing", "has no callable 'missing'"),
        (":make", "unknown agent"),
    ],
)
def test_bad_agent_names(name: str, message: str) -> None:
    with pytest.raises(AgentConfigError, match=message):
        load_factory(name)


def test_gold_agent_reports_steps_whose_status_differs(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    data = mini_tasks["mini_balance_only_01"].model_dump()
    data["gold"]["path"] = [
        {"tool": "get_balance", "args": {"account_id": "ACC-404"}},
        {
            "tool": "execute_transfer",
            "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount": 5000},
            "expect": "rejected",
        },
    ]
    task = Task.model_validate(data)
    agent = GoldAgent(task)
    run_episode(task, mini_env_class(seed=1), agent, ScriptedUser(task), agent_name="gold")
    assert [(m.step, m.status) for m in agent.mismatches] == [(0, "rejected")]
    assert "No account with id 'ACC-404'." in agent.mismatches[0].detail


def test_gold_references_resolve_generated_ids_for_any_seed(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    data = mini_tasks["mini_balance_only_01"].model_dump()
    data["gold"] = {
        "path": [
            {"tool": "execute_transfer", "args": {"from_account": "ACC-2", "to_account": "ACC-1", "amount": 5}},
            {"tool": "log_note", "args": {"text": {"$from": "0.transfer_id"}}},
        ],
        "reply": "Sent as ${0.transfer_id}; balance ${0.from_balance}.",
    }
    task = Task.model_validate(data)
    for seed in (1, 2):
        env = mini_env_class(seed=seed)
        agent = GoldAgent(task)
        evidence = run_episode(task, env, agent, ScriptedUser(task), agent_name="gold")
        transfer_id = env.state["transfers"][0]["id"]
        assert env.state["log"] == [{"text": transfer_id, "account_id": None}]
        assert evidence.messages[-1].content == f"Sent as {transfer_id}; balance 2445.75."
        assert agent.mismatches == []


def test_an_unresolvable_gold_reference_is_a_visible_mismatch(
    mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    data = mini_tasks["mini_balance_only_01"].model_dump()
    data["gold"] = {
        "path": [
            {"tool": "get_balance", "args": {"account_id": "ACC-1"}},
            {"tool": "get_balance", "args": {"account_id": {"$from": "0.no_such_field"}}},
        ],
        "reply": "r",
    }
    task = Task.model_validate(data)
    agent = GoldAgent(task)
    run_episode(task, mini_env_class(seed=1), agent, ScriptedUser(task), agent_name="gold")
    assert [(m.step, m.status) for m in agent.mismatches] == [(1, "rejected")]
    assert "<unresolved $from 0.no_such_field>" in agent.mismatches[0].detail
