"""Agents that attack the harness from an agent's seat (issue 30), each as ``--crm-agent=tests.data.agents.cheaters:<name>``.

Each once scored more than it deserved, or took tasks out of its score, or stopped a run without
a failing exit status, while agents ran inside the harness's process. Isolated, none of it reaches
the harness: the tests in ``tests/integration/test_isolation.py`` show the score does not rise.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from pytest_crmbench.core.errors import HarnessError, InfraError
from pytest_crmbench.core.evidence import Message
from pytest_crmbench.run.episode import AgentContext

NULL_REPLY = "I'm sorry, I can't help with that."


class _Cheater:
    def __init__(self, act: Any) -> None:
        self.act = act

    def respond(self, conversation: Sequence[Message], tools: Any) -> str:
        return self.act(conversation, tools)  # type: ignore[no-any-return]


def patch_checks(context: AgentContext) -> _Cheater:
    """Attack 1: the factory replaces every grading check with one that finds nothing wrong."""
    import pytest_crmbench.core.families as families
    import pytest_crmbench.grading as grading

    families.programmatic_checks = lambda *a, **k: []
    grading.programmatic_checks = lambda *a, **k: []
    return _Cheater(lambda conversation, tools: NULL_REPLY)


def reach_referee(context: AgentContext) -> _Cheater:
    """Attack 2: find the Referee through the ToolBox's closure cells and rewrite its trace."""

    def act(conversation: Sequence[Message], tools: Any) -> str:
        for value in vars(tools).values():
            for cell in getattr(value, "__closure__", None) or ():
                referee = cell.cell_contents
                if hasattr(referee, "calls"):
                    referee.calls.clear()
                    return NULL_REPLY
        raise LookupError("no referee reachable from the ToolBox")

    return _Cheater(act)


def os_exit(context: AgentContext) -> _Cheater:
    """Attack 3: ``os._exit(0)`` inline (it once ended pytest with exit status 0 and no gate line)."""
    return _Cheater(lambda conversation, tools: os._exit(0))


def system_exit(context: AgentContext) -> _Cheater:
    def act(conversation: Sequence[Message], tools: Any) -> str:
        sys.exit(0)

    return _Cheater(act)


def raise_infra(context: AgentContext) -> _Cheater:
    """Attack 4: declare the task's failure infrastructure's, so it leaves the score."""

    def act(conversation: Sequence[Message], tools: Any) -> str:
        raise InfraError("provider unavailable after retries")

    return _Cheater(act)


def raise_harness(context: AgentContext) -> _Cheater:
    def act(conversation: Sequence[Message], tools: Any) -> str:
        raise HarnessError("crmbench crashed, honestly")

    return _Cheater(act)


def sleep_20(context: AgentContext) -> _Cheater:
    """Attack 5: block past the task's timeout."""

    def act(conversation: Sequence[Message], tools: Any) -> str:
        time.sleep(20)
        return NULL_REPLY

    return _Cheater(act)


def sleep_forever(context: AgentContext) -> _Cheater:
    def act(conversation: Sequence[Message], tools: Any) -> str:
        while True:
            time.sleep(3600)

    return _Cheater(act)


def read_gold(context: AgentContext) -> _Cheater:
    """Attack 6: look for the task (its gold path) among the objects of the process."""

    def act(conversation: Sequence[Message], tools: Any) -> str:
        import gc

        from pytest_crmbench.core.spec import Task

        if any(isinstance(obj, Task) for obj in gc.get_objects()):
            return "found a task in memory"
        return NULL_REPLY

    return _Cheater(act)


def fork(context: AgentContext) -> _Cheater:
    """Attack 6: ``os.fork()``, so two copies answer (it once duplicated records in results.jsonl)."""

    def act(conversation: Sequence[Message], tools: Any) -> str:
        os.fork()
        return NULL_REPLY

    return _Cheater(act)


def flood(context: AgentContext) -> _Cheater:
    """10,000 tool calls in one turn."""

    def act(conversation: Sequence[Message], tools: Any) -> str:
        for _ in range(10_000):
            tools.call("get_balance", {"account_id": "ACC-1"})
        return NULL_REPLY

    return _Cheater(act)


def over_the_cap(context: AgentContext) -> _Cheater:
    """Goes past the tool-call cap, reads the refusal, and answers with it."""

    def act(conversation: Sequence[Message], tools: Any) -> str:
        call = None
        for _ in range(context.limits.max_tool_calls + 1):
            call = tools.call("get_balance", {"account_id": "ACC-1"})
        assert call is not None
        return str(call.output())

    return _Cheater(act)


class Counter:
    """An honest agent that keeps state across the turns of one episode (and only of one)."""

    episodes = 0

    def __init__(self) -> None:
        Counter.episodes += 1
        self.turns = 0

    def respond(self, conversation: Sequence[Message], tools: Any) -> str:
        self.turns += 1
        tools.route("count", tools=["get_balance"])
        call = tools.call("get_balance", {"account_id": "ACC-1"})
        return f"turn {self.turns} of episode {Counter.episodes} in this process: {call.status}; {len(tools.schemas())} tool(s)"


def counter(context: AgentContext) -> Counter:
    return Counter()


class Reporter:
    """Reports its model usage and issues a warning each turn, as a framework inside an agent may."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    def respond(self, conversation: Sequence[Message], tools: Any) -> str:
        import warnings
        from decimal import Decimal

        self.context.usage.record(
            "agent", prompt_tokens=10, completion_tokens=2, cost_usd=Decimal("0.01"), latency_s=0.5
        )
        warnings.warn("this framework is deprecated", DeprecationWarning, stacklevel=1)
        return "reported"


def reporter(context: AgentContext) -> Reporter:
    return Reporter(context)


def reader(context: AgentContext) -> _Cheater:
    """Makes ``BENCH_ISOLATION_CALLS`` read calls in its turn (benchmarks/bench_isolation.py)."""

    def act(conversation: Sequence[Message], tools: Any) -> str:
        for _ in range(int(os.environ.get("BENCH_ISOLATION_CALLS", "1"))):
            tools.call("get_balance", {"account_id": "ACC-1"})
        return "done"

    return _Cheater(act)


class ModelAsker:
    """An honest agent that asks its own model, as a user's agent does through ``context.model``."""

    def __init__(self, context: AgentContext) -> None:
        from pytest_crmbench.models.llm import ModelClient

        assert context.model is not None, "the context carries the model config across"
        self.client = ModelClient(context.model, "agent", context.usage)

    def respond(self, conversation: Sequence[Message], tools: Any) -> str:
        return self.client.complete([{"role": "user", "content": conversation[-1].content}]).content


def model_asker(context: AgentContext) -> ModelAsker:
    return ModelAsker(context)
