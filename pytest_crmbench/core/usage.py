"""UsageLedger: model usage of one episode, per role, reported by whoever calls a model.

The agent, the user simulator and the judge each get the ledger of their episode (through
:class:`~pytest_crmbench.run.baselines.AgentContext`, the simulator's constructor and the judge binding);
``run_episode`` copies it into :attr:`Evidence.usage` and the item copies the judge's share into
:attr:`TaskVerdict.judge_usage`. A lock makes it safe for agents that call models from threads.

The ledger also counts the warnings the agent's own code issued (its factory and ``respond()``,
:mod:`~pytest_crmbench.run.agentcode`); they go to :attr:`Evidence.agent_warnings` and count
against nothing.
"""

from __future__ import annotations

import threading
from decimal import Decimal

from pytest_crmbench.core.evidence import Role, Usage


class UsageLedger:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._usage: dict[Role, Usage] = {}
        self._warnings: dict[str, int] = {}

    def record(
        self,
        role: Role,
        *,
        prompt_tokens: int,
        completion_tokens: int,
        cost_usd: Decimal | None,
        latency_s: float,
    ) -> None:
        with self._lock:
            usage = self._usage.setdefault(role, Usage())
            usage.add(
                prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, cost_usd=cost_usd, latency_s=latency_s
            )

    def merge(self, role: Role, usage: Usage) -> None:
        """Add ``usage`` (several calls, counted elsewhere: the model proxy's) to ``role``'s."""
        with self._lock:
            mine = self._usage.setdefault(role, Usage())
            mine.calls += usage.calls
            mine.prompt_tokens += usage.prompt_tokens
            mine.completion_tokens += usage.completion_tokens
            mine.cost_usd = None if mine.cost_usd is None or usage.cost_usd is None else mine.cost_usd + usage.cost_usd
            mine.latency_s += usage.latency_s

    def replace(self, role: Role, usage: Usage) -> None:
        """Set ``role``'s usage to ``usage`` (an isolated agent's process reports its running total)."""
        with self._lock:
            self._usage[role] = usage.model_copy()

    def get(self, role: Role) -> Usage | None:
        with self._lock:
            usage = self._usage.get(role)
            return usage.model_copy() if usage is not None else None

    def snapshot(self, roles: tuple[Role, ...] = ("agent", "user")) -> dict[Role, Usage]:
        """Copies of the usage of ``roles`` (the episode's own; the judge runs after it)."""
        with self._lock:
            return {role: self._usage[role].model_copy() for role in roles if role in self._usage}

    def warned(self, line: str) -> None:
        """Count one warning the agent's code issued (``Category: message (file:line)``)."""
        with self._lock:
            self._warnings[line] = self._warnings.get(line, 0) + 1

    def warnings(self) -> dict[str, int]:
        """The agent code's warnings so far: each distinct line and how often it was issued."""
        with self._lock:
            return dict(self._warnings)
