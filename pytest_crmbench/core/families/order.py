"""Action order: the named tools' successful calls in a required order (spec §A.2 "order")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from pytest_crmbench.core.families.actions import required_counts
from pytest_crmbench.core.families.base import (
    ArgumentUse,
    CheckFamily,
    CheckVerdict,
    Constraint,
    ContractField,
    FrozenModel,
    Loc,
    tool_shorthand,
    verdict,
)
from pytest_crmbench.core.families.trace import bound, ok_calls, unmet_args

if TYPE_CHECKING:
    from pytest_crmbench.core.evidence import Evidence, ToolCall


class OrderStep(FrozenModel):
    """One entry of an order: a tool, optionally only its calls whose arguments match ``args``.

    ``{tool: execute_transfer, args: {to_account: ACC-1010}}`` after ``{tool: validate_transfer,
    args: {to_account: ACC-1010}}`` pairs a transfer with its own validation, which tool names
    alone cannot do when a conversation makes two transfers.
    """

    tool: str
    args: dict[str, Constraint] = Field(default_factory=dict)

    def text(self) -> str:
        if not self.args:
            return self.tool
        return f"{self.tool}(" + ", ".join(f"{k}={v}" for k, v in self.args.items()) + ")"


class ActionOrder(FrozenModel):
    """The named tools' ``ok`` calls must follow this order.

    ``subsequence``: unrelated calls (and other calls of the named tools) may interleave;
    ``exact``: the ``ok`` calls filtered to the named tools must match ``tools`` one for one.
    An entry is a tool name or an :class:`OrderStep` whose ``args`` a call must also satisfy.
    """

    tools: list[Annotated[OrderStep, BeforeValidator(tool_shorthand)]] = Field(min_length=2)
    mode: Literal["subsequence", "exact"] = "subsequence"

    def names(self) -> list[str]:
        """The tool of each entry, in order."""
        return [step.tool for step in self.tools]


ACTION_ORDER: ContractField[list[ActionOrder]] = ContractField(
    location=("action_order",),
    annotation=list[ActionOrder],
    row="action_order",
    kind="order",
    title="action order",
)


class ActionOrderFamily(CheckFamily):
    label = "order"
    title = "order"
    position, precedence = 30, 60
    colour = "#45a6b8"
    fields = (ACTION_ORDER,)
    positive = True

    def prepare(self, data: dict[str, Any]) -> dict[str, Any]:
        # One order constraint is the common case; let authors write it without a list.
        if isinstance(data.get("action_order"), dict):
            return {**data, "action_order": [data["action_order"]]}
        return data

    def check(self, contract: Any, evidence: Evidence) -> list[CheckVerdict]:
        trace = evidence.tool_calls
        return [self._check_one(index, order, trace) for index, order in enumerate(ACTION_ORDER.of(contract))]

    def _check_one(self, index: int, order: ActionOrder, trace: list[ToolCall]) -> CheckVerdict:
        named = set(order.names())
        calls = [c for c in ok_calls(trace) if c.name in named]
        steps = [(step.tool, bound(step.args, trace)) for step in order.tools]

        def fits(step: tuple[str, dict[str, Any]], call: ToolCall) -> bool:
            return call.name == step[0] and not unmet_args(step[1], call.graded_arguments())

        if order.mode == "exact":
            ok = len(calls) == len(steps) and all(fits(s, c) for s, c in zip(steps, calls, strict=False))
        else:
            # Greedy is optimal: taking the earliest call that fits an entry never blocks a later one.
            position = 0
            for call in calls:
                if position < len(steps) and fits(steps[position], call):
                    position += 1
            ok = position == len(steps)
        expected = [step.text() for step in order.tools]
        filtered = [c.name for c in calls]
        name = f"order[{index}] {' -> '.join(expected)} ({order.mode})"
        diff = f"expected {order.mode} order {expected}\n  successful calls of those tools, in order: {filtered}"
        return verdict(self.label, name, ok, expected, filtered, diff)

    def named_tools(self, contract: Any) -> Iterator[tuple[Loc, str]]:
        for i, order in enumerate(ACTION_ORDER.of(contract)):
            for j, tool in enumerate(order.names()):
                yield ("contract", "action_order", i, "tools", j), tool

    def argument_uses(self, contract: Any) -> Iterator[ArgumentUse]:
        for i, order in enumerate(ACTION_ORDER.of(contract)):
            for j, step in enumerate(order.tools):
                yield ArgumentUse(("contract", "action_order", i, "tools", j, "args"), step.tool, step.args)

    def consistency(self, contract: Any) -> Iterator[tuple[Loc, str]]:
        expected = required_counts(contract)
        for i, order in enumerate(ACTION_ORDER.of(contract)):
            for j, tool in enumerate(order.names()):
                if tool not in expected:
                    yield (
                        ("contract", "action_order", i, "tools", j),
                        f"{tool} is ordered but not in expected_actions (an order constraint only ranks expected tools)",
                    )


FAMILY = ActionOrderFamily()
