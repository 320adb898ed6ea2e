"""Expected actions: tools that must have successful calls, count-aware (spec §A.2 "action")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BeforeValidator, Field

from pytest_crmbench.core.families.base import (
    CheckFamily,
    CheckVerdict,
    ContractField,
    FrozenModel,
    Loc,
    tool_shorthand,
    verdict,
)
from pytest_crmbench.core.families.trace import ok_calls, summarize_attempts

if TYPE_CHECKING:
    from pytest_crmbench.core.evidence import Evidence


class ExpectedAction(FrozenModel):
    """A tool that must have ``count`` successful (status ``ok``) calls; repeated entries add up."""

    tool: str
    count: int = Field(1, ge=1)


EXPECTED_ACTIONS: ContractField[list[ExpectedAction]] = ContractField(
    location=("expected_actions",),
    annotation=list[Annotated[ExpectedAction, BeforeValidator(tool_shorthand)]],
    row="expected_actions",
    kind="action",
    title="expected actions",
)


def required_counts(contract: Any) -> dict[str, int]:
    """Tool -> number of successful calls required (entries for the same tool add up)."""
    counts: dict[str, int] = {}
    for action in EXPECTED_ACTIONS.of(contract):
        counts[action.tool] = counts.get(action.tool, 0) + action.count
    return counts


class ExpectedActions(CheckFamily):
    label = "action"
    title = "actions"
    position, precedence = 10, 10
    colour = "#c4504f"
    fields = (EXPECTED_ACTIONS,)
    positive = True

    def check(self, contract: Any, evidence: Evidence) -> list[CheckVerdict]:
        """One check per distinct tool: at least the required number of ``ok`` calls."""
        trace = evidence.tool_calls
        successes = [c.name for c in ok_calls(trace)]
        verdicts = []
        for index, (tool, required) in enumerate(required_counts(contract).items()):
            got = successes.count(tool)
            diff = f"expected at least {required} successful call(s) of {tool}, got {got} ({summarize_attempts(trace, tool)})"
            verdicts.append(
                verdict(self.label, f"action[{index}] {tool} x{required}", got >= required, required, got, diff)
            )
        return verdicts

    def named_tools(self, contract: Any) -> Iterator[tuple[Loc, str]]:
        for i, action in enumerate(EXPECTED_ACTIONS.of(contract)):
            yield ("contract", "expected_actions", i), action.tool

    def declared_at(self, kind: str, index: str, subject: str | None, contract: Any) -> Loc:
        # The check's index counts distinct tools, not entries: point at the tool's first entry.
        tools = [action.tool for action in EXPECTED_ACTIONS.of(contract)]
        return ("contract", "expected_actions", tools.index(subject)) if subject in tools else ()


FAMILY = ExpectedActions()
