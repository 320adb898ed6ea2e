"""Expected parameters: argument constraints one successful call must satisfy (spec §A.2 "param")."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from pytest_crmbench.core.families.base import (
    ArgumentUse,
    CheckFamily,
    CheckVerdict,
    Constraint,
    ContractField,
    FrozenModel,
    Loc,
    verdict,
)
from pytest_crmbench.core.families.trace import bound, described, ok_calls, summarize_attempts, unmet_args
from pytest_crmbench.core.matchers import describe, show

if TYPE_CHECKING:
    from pytest_crmbench.core.evidence import Evidence, ToolCall


class ExpectedParams(FrozenModel):
    """Argument constraints that one successful call of ``tool`` must satisfy.

    ``match: any`` — some ``ok`` call satisfies all constraints; ``match: first`` — the first ``ok``
    call of the tool does.
    """

    tool: str
    args: dict[str, Constraint] = Field(min_length=1)
    match: Literal["any", "first"] = "any"


@dataclass(frozen=True)
class ToolSpecifications(ContractField[list[ExpectedParams]]):
    """Counts task-tool specifications, the spec's unit (table 2: "for a parameter contract, a
    declaration is one task-tool specification"): two entries for one tool are one declaration."""

    def count(self, contract: Any) -> int:
        return len({entry.tool for entry in self.of(contract)})


EXPECTED_PARAMS: ContractField[list[ExpectedParams]] = ToolSpecifications(
    location=("expected_params",),
    annotation=list[ExpectedParams],
    row="expected_params",
    kind="param",
    title="expected params",
    unit="task-tool specifications",
)


class ExpectedParameters(CheckFamily):
    label = "param"
    title = "parameters"
    position, precedence = 20, 40
    colour = "#d9b44a"
    fields = (EXPECTED_PARAMS,)
    positive = True

    def check(self, contract: Any, evidence: Evidence) -> list[CheckVerdict]:
        trace = evidence.tool_calls
        return [self._check_one(index, spec, trace) for index, spec in enumerate(EXPECTED_PARAMS.of(contract))]

    def _check_one(self, index: int, spec: ExpectedParams, trace: list[ToolCall]) -> CheckVerdict:
        calls = [c for c in ok_calls(trace) if c.name == spec.tool]
        name = f"param[{index}] {spec.tool} ({spec.match})"
        expected = {k: describe(v) for k, v in spec.args.items()}
        if not calls:
            attempts = summarize_attempts(trace, spec.tool)
            return verdict(self.label, name, False, expected, None, f"no successful call of {spec.tool} ({attempts})")
        candidates = calls[:1] if spec.match == "first" else calls
        constraints = bound(spec.args, trace)
        misses = [unmet_args(constraints, c.graded_arguments()) for c in candidates]
        if any(not miss for miss in misses):
            return verdict(self.label, name, True, expected, None, "")
        wanted = {k: described(spec.args[k], v) for k, v in constraints.items()}
        lines = [f"expected {spec.tool} with " + ", ".join(f"{k}={v}" for k, v in wanted.items())]
        for call, miss in zip(candidates, misses, strict=True):
            got = ", ".join(f"{k}={show(v)}" for k, v in miss.items())
            lines.append(f"  call #{call.index} (turn {call.turn}) differs: {got}")
        actual = [c.graded_arguments() for c in candidates]
        return verdict(self.label, name, False, expected, actual, "\n".join(lines))

    def named_tools(self, contract: Any) -> Iterator[tuple[Loc, str]]:
        for i, params in enumerate(EXPECTED_PARAMS.of(contract)):
            yield ("contract", "expected_params", i, "tool"), params.tool

    def argument_uses(self, contract: Any) -> Iterator[ArgumentUse]:
        for i, params in enumerate(EXPECTED_PARAMS.of(contract)):
            yield ArgumentUse(("contract", "expected_params", i, "args"), params.tool, params.args)


FAMILY = ExpectedParameters()
