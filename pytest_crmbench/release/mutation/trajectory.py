"""Trajectories the mutation audit replays: gold-like steps, run through the real environment.

A :class:`Step` is a gold step that remembers which gold step it came from (``origin``), so a
``$from`` reference keeps pointing at the right result when steps are dropped, duplicated, moved
or inserted: references name origins, not positions. Replays use :func:`~pytest_crmbench.release.replay.play_offline`,
the very episode loop, fresh world and seed of the gold replay, so a mutant's end state is real.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_crmbench.core.evidence import Evidence, Message, ToolCall
from pytest_crmbench.core.matchers import MISSING
from pytest_crmbench.core.paths import resolve
from pytest_crmbench.core.spec import GoldCall, Task, gold_reference
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.grading import TaskVerdict
from pytest_crmbench.release.replay import play_offline
from pytest_crmbench.run.episode import ToolBox


@dataclass(frozen=True)
class Step:
    """One call of a trajectory. ``args`` may hold ``{$from: "<origin>.<path>"}`` references."""

    tool: str
    args: Mapping[str, Any]
    origin: int | None = None
    """The gold (or hand-written) step this call is; None for a call a mutation inserted."""
    expect: str = "ok"


def steps_of(path: Sequence[GoldCall]) -> list[Step]:
    """A written path as steps whose origins are their own positions."""
    return [Step(call.tool, dict(call.args), index, call.expect) for index, call in enumerate(path)]


def references(step: Step) -> set[int]:
    """The origins whose results this step's arguments quote."""
    found = {gold_reference(value) for value in step.args.values()}
    return {reference[0] for reference in found if reference is not None}


@dataclass
class PathAgent:
    """Plays a list of steps on the first turn, like the gold agent, and says nothing."""

    steps: Sequence[Step]
    calls: list[ToolCall] = field(default_factory=list)
    name: str = "audit"

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        if self.calls or not self.steps:
            return ""
        tools.route("audit")
        results: dict[int, Any] = {}
        for step in self.steps:
            call = tools.call(step.tool, {name: _resolved(value, results) for name, value in step.args.items()})
            self.calls.append(call)
            if step.origin is not None and step.origin not in results:
                results[step.origin] = call.result
        return ""


def _resolved(value: Any, results: Mapping[int, Any]) -> Any:
    reference = gold_reference(value)
    if reference is None:
        return value
    origin, path = reference
    found = resolve(results.get(origin), path) if origin in results else MISSING
    # A reference to a step the mutation removed (or moved later) cannot be known to an agent:
    # send a visibly wrong value so the call fails the way it would for an agent guessing.
    return f"<unknown: step {origin} did not run>" if found is MISSING else found


@dataclass(frozen=True)
class Replay:
    """A replayed trajectory: its evidence, its verdict and the status of each step."""

    steps: tuple[Step, ...]
    evidence: Evidence
    verdict: TaskVerdict

    def failed_checks(self) -> list[str]:
        return [check.name for check in self.verdict.checks if check.status == "failed"]

    def status_mismatches(self) -> list[tuple[int, Step, ToolCall]]:
        """Steps that did not get the status they declare (hand-written paths)."""
        return [
            (index, step, call)
            for index, (step, call) in enumerate(zip(self.steps, self.evidence.tool_calls, strict=False))
            if call.status != step.expect
        ]


def replay(task: Task, environment: type[ToolEnvironment], steps: Sequence[Step]) -> Replay:
    """Run ``steps`` from a fresh world with the gold replay's seed and grade the programmatic checks."""
    evidence, verdict = play_offline(task, environment, PathAgent(steps), "audit")
    return Replay(tuple(steps), evidence, verdict)
