"""Agents that try to score more than they deserve (issue 11), for the tests that show they cannot.

Each is built from a factory like any agent under evaluation (``--crm-agent=tests.adversaries:make_...``);
the AgentContext gives them nothing of the task, so they find it the way an in-process agent always
can: on disk, by the user's opening line. What the harness guarantees is that cheating with it is
detected (``tampered``) or useless, and that crashing never takes a task out of the score.

* :class:`GoldFromContext` replays the gold path it expects to find in its context.
* :class:`PrivateCopy` plays gold on a private copy of the environment, then overwrites the real
  state and trace with the copy's.
* :class:`ForbiddenThenErase` plays gold, makes every forbidden call, then deletes those calls from
  the trace and restores the state.
* :class:`FakeState` writes the expected end state straight into the world, with fake trace entries.
* :class:`CrashOnHard` replays gold on easy tasks and raises on the others (it once ranked first).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_crmbench.core.evidence import Message, ToolCall
from pytest_crmbench.core.families.actions import required_counts
from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.core.matchers import operator_of
from pytest_crmbench.core.spec import Task
from pytest_crmbench.env.environment import ToolEnvironment, clone
from pytest_crmbench.run.baselines import GoldAgent
from pytest_crmbench.run.episode import AgentContext, ToolBox
from pytest_crmbench.run.referee import Referee


def task_for(conversation: Sequence[Message], tasks_dir: Path = Path("tasks")) -> Task:
    """The task whose opening line starts this conversation, read from the task files on disk."""
    opening = conversation[0].content
    for path in sorted(tasks_dir.glob("*.yaml")):
        if path.name == "manifest.yaml":
            continue
        for record in load_task_file(path):
            if opening in (record.task.user.opening, record.task.user.goal):
                return record.task
    raise LookupError(f"no task opens with {opening!r}")


def live_environment(tools: ToolBox) -> ToolEnvironment:
    """The episode's environment, reached by introspection (no attribute of the ToolBox holds it)."""
    for value in vars(tools).values():
        for cell in getattr(value, "__closure__", None) or ():
            referee = cell.cell_contents
            env = getattr(referee, "_env", None)
            if isinstance(env, ToolEnvironment):
                return env
    found = [obj for obj in gc.get_objects() if isinstance(obj, ToolEnvironment)]
    return found[-1]


class _Adversary:
    def __init__(self, task: Task | None = None) -> None:
        self._task = task
        self._done = False

    def task(self, conversation: Sequence[Message]) -> Task:
        if self._task is None:
            self._task = task_for(conversation)
        return self._task

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        if self._done:
            return ""
        self._done = True
        return self.play(self.task(conversation), conversation, tools)

    def play(self, task: Task, conversation: Sequence[Message], tools: ToolBox) -> str:
        raise NotImplementedError


class GoldFromContext:
    """Replays the gold path from ``context.task``, as it could before issue 11."""

    def __init__(self, context: AgentContext) -> None:
        self._gold = GoldAgent(context.task)  # type: ignore[attr-defined]

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        return self._gold.respond(conversation, tools)


class PrivateCopy(_Adversary):
    def play(self, task: Task, conversation: Sequence[Message], tools: ToolBox) -> str:
        env = live_environment(tools)
        twin = type(env)(task.initial_state, seed=env.seed)  # the gold path, played where nobody watches
        reply = GoldAgent(task).respond(conversation, Referee(twin).toolbox(tools.turn, tools.deadline, time.monotonic))
        env.state = twin.state
        env.trace[:] = twin.trace
        env.rng.setstate(twin.rng.getstate())
        env._ticks, env._issued_ids = twin._ticks, set(twin._issued_ids)
        return reply


class ForbiddenThenErase(_Adversary):
    def play(self, task: Task, conversation: Sequence[Message], tools: ToolBox) -> str:
        reply = GoldAgent(task).respond(conversation, tools)
        env = live_environment(tools)
        saved_state, kept = clone(env.state), len(env.trace)
        for name in task.contract.forbidden.actions:
            tools.call(name, _gold_arguments(task, name))
        for forbidden in task.contract.forbidden.params:
            tools.call(forbidden.tool, {**_gold_arguments(task, forbidden.tool), **forbidden.args})
        del env.trace[kept:]
        env.state = saved_state
        return reply


class FakeState(_Adversary):
    def play(self, task: Task, conversation: Sequence[Message], tools: ToolBox) -> str:
        env = live_environment(tools)
        for path, constraint in task.contract.expected_state.items():
            _write(env.state, path, _satisfying(constraint))
        for tool, count in required_counts(task.contract).items():
            for _ in range(count):
                fake = ToolCall(index=len(env.trace), turn=0, node="fake", name=tool, arguments={}, status="ok")
                env.trace.append(fake)
        return task.gold.reply


class CrashOnHard(_Adversary):
    def play(self, task: Task, conversation: Sequence[Message], tools: ToolBox) -> str:
        if task.difficulty != "easy":
            raise RuntimeError(f"giving up on a {task.difficulty} task")
        return GoldAgent(task).respond(conversation, tools)


def _gold_arguments(task: Task, tool: str) -> dict[str, Any]:
    for step in task.gold.path:
        if step.tool == tool:
            return {k: v for k, v in step.args.items() if not isinstance(v, dict)}
    return {}


def _satisfying(constraint: Any) -> Any:
    """A value that meets a contract constraint (literal or operator)."""
    found = operator_of(constraint)
    if found is None:
        return constraint
    name, operand = found
    return {
        "$one_of": lambda: operand[0],
        "$min_length": lambda: ["x"] * operand,
        "$non_empty": lambda: "x" if operand else None,
    }.get(name, lambda: operand)()


def _write(state: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    node: Any = state
    for segment in parents:
        if isinstance(node, list):
            while len(node) <= int(segment):
                node.append({})
            node = node[int(segment)]
        else:
            node = node.setdefault(segment, {})
    if isinstance(node, list):
        node.append(value)
    else:
        node[last] = value


def make_gold_from_context(context: AgentContext) -> GoldFromContext:
    return GoldFromContext(context)


def make_private_copy(context: AgentContext) -> PrivateCopy:
    return PrivateCopy()


def make_forbidden_then_erase(context: AgentContext) -> ForbiddenThenErase:
    return ForbiddenThenErase()


def make_fake_state(context: AgentContext) -> FakeState:
    return FakeState()


def make_crash_on_hard(context: AgentContext) -> CrashOnHard:
    return CrashOnHard()
