"""The ReAct loop: the last call of the budget forces a visible reply (spec §A.7)."""

from __future__ import annotations

import time
import uuid
from typing import Any

from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.models.fakellm import FakeLLM, FakeRequest, completion
from pytest_crmbench.models.llm import ModelClient, ModelConfig
from pytest_crmbench.reference.react import react_turn
from pytest_crmbench.run.episode import ToolBox


def tool_happy_model(request: FakeRequest) -> dict[str, Any]:
    """Calls a tool whenever it may; answers in words only when told it must."""
    if request.body.get("tool_choice") == "none":
        return completion("ACC-2 holds $2,450.75.", tool_calls=[("get_balance", '{"account_id": "ACC-2"}')])
    return completion(None, tool_calls=[("get_balance", '{"account_id": "ACC-2"}')])


def test_an_exhausted_budget_still_ends_with_a_reply(mini_env_class: type[ToolEnvironment]) -> None:
    env = mini_env_class(seed=1)
    tools = ToolBox(env, 0, [], time.monotonic() + 60, time.monotonic)
    tools.route("balance", tools=["get_balance"])
    history: list[dict[str, Any]] = [{"role": "user", "content": "Balance of ACC-2?"}]
    with FakeLLM(tool_happy_model, lifetime_s=60) as server:
        config = ModelConfig(
            model=f"openai/react-{uuid.uuid4().hex[:8]}", api_base=server.base_url, timeout_s=10, retries=0
        )
        reply = react_turn(ModelClient(config, "agent"), "You help with balances.", history, tools, max_iterations=3)
        choices = [r.body.get("tool_choice") for r in server.requests]
    assert reply == "ACC-2 holds $2,450.75."
    assert choices == [None, None, "none"]  # three model calls, the last one without tools
    assert [c.name for c in env.trace] == ["get_balance", "get_balance"]  # the ignored third call never ran
    # The history stays valid for the next turn: every tool call in it has its answer.
    asked = [call["id"] for message in history for call in message.get("tool_calls", [])]
    answered = [message["tool_call_id"] for message in history if message["role"] == "tool"]
    assert asked == answered and history[-1] == {"role": "assistant", "content": "ACC-2 holds $2,450.75."}
