"""Forbidden evidence: tools never to attempt, argument patterns never to attempt, end states that
must not hold (spec §A.2 "forbidden"). Attempts count whatever their status: a rejected forbidden
call is still the attempt the policy forbids."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pydantic import Field

from pytest_crmbench.core.families.actions import required_counts
from pytest_crmbench.core.families.base import (
    FORBIDDEN_GROUP,
    ArgumentUse,
    CheckFamily,
    CheckVerdict,
    Constraint,
    ContractField,
    ContractRow,
    FrozenModel,
    Loc,
    StatePath,
    StatePathUse,
    verdict,
)
from pytest_crmbench.core.families.params import EXPECTED_PARAMS
from pytest_crmbench.core.families.trace import bind_results, bound, described, shown, unmet_args
from pytest_crmbench.core.matchers import describe, matches, show
from pytest_crmbench.core.paths import resolve

if TYPE_CHECKING:
    from pytest_crmbench.core.evidence import Evidence, ToolCall


class ForbiddenParams(FrozenModel):
    """No attempt of ``tool`` (any status, rejected included) may satisfy all of ``args``."""

    tool: str
    args: dict[str, Constraint] = Field(min_length=1)


FORBIDDEN_ACTIONS: ContractField[list[str]] = ContractField(
    location=("forbidden", "actions"),
    annotation=list[str],
    row="forbidden_actions",
    kind="forbidden.action",
    title="forbidden actions",
    unit="declarations",
    description="Tools that must never be attempted.",
    negative=True,
)
FORBIDDEN_PARAMS: ContractField[list[ForbiddenParams]] = ContractField(
    location=("forbidden", "params"),
    annotation=list[ForbiddenParams],
    row="forbidden_params",
    kind="forbidden.param",
    title="forbidden params",
    unit="patterns",
    negative=True,
)
FORBIDDEN_STATE: ContractField[dict[str, Any]] = ContractField(
    location=("forbidden", "state"),
    annotation=dict[StatePath, Constraint],
    row="forbidden_state",
    kind="forbidden.state",
    title="forbidden state",
    unit="leaf paths",
    description="Path -> value (or matcher) that must NOT hold in the final state.",
    keyed=True,
    # The spec counts a forbidden end state with the state checks: not a negative assertion of
    # §B.8, and labelled "state" in figures 13 and 14.
    negative=False,
    default_factory=dict,
    label="state",
)


class Forbidden(CheckFamily):
    label = "forbidden"
    title = "forbidden"
    position, precedence = 60, 20
    colour = "#8c2d2b"
    fields = (FORBIDDEN_ACTIONS, FORBIDDEN_PARAMS, FORBIDDEN_STATE)
    group = FORBIDDEN_GROUP

    def check(self, contract: Any, evidence: Evidence) -> list[CheckVerdict]:
        trace = evidence.tool_calls
        return [
            *self._actions(contract, trace),
            *(self._params(i, spec, trace) for i, spec in enumerate(FORBIDDEN_PARAMS.of(contract))),
            *self._state(contract, evidence),
        ]

    def _actions(self, contract: Any, trace: list[ToolCall]) -> Iterator[CheckVerdict]:
        for index, tool in enumerate(FORBIDDEN_ACTIONS.of(contract)):
            attempts = [c for c in trace if c.name == tool]
            listed = [f"#{c.index} turn {c.turn} {c.status} {show(c.arguments)}" for c in attempts]
            diff = f"{tool} must never be attempted; attempts:\n" + "\n".join(f"  {s}" for s in listed)
            yield verdict(self.label, f"forbidden.action[{index}] {tool}", not attempts, 0, len(attempts), diff)

    def _params(self, index: int, spec: ForbiddenParams, trace: list[ToolCall]) -> CheckVerdict:
        constraints = bound(spec.args, trace)
        hits = [c for c in trace if c.name == spec.tool and not unmet_args(constraints, c.graded_arguments())]
        pattern = ", ".join(f"{k}={described(spec.args[k], v)}" for k, v in constraints.items())
        listed = "\n".join(f"  #{c.index} turn {c.turn} {c.status} {show(c.arguments)}" for c in hits)
        diff = f"no attempt of {spec.tool} may match {pattern}; matching attempts:\n{listed}"
        actual = [c.graded_arguments() for c in hits]
        return verdict(self.label, f"forbidden.param[{index}] {spec.tool}", not hits, pattern, actual, diff)

    def _state(self, contract: Any, evidence: Evidence) -> Iterator[CheckVerdict]:
        for index, (path, written) in enumerate(FORBIDDEN_STATE.of(contract).items()):
            constraint = bind_results(written, evidence.tool_calls)
            actual = resolve(evidence.final_state, path)
            wanted = described(written, constraint)
            diff = f"{path}: must not be {wanted}, but it is {show(actual)}"
            holds = matches(constraint, actual)
            label = FORBIDDEN_STATE.label or self.label
            yield verdict(label, f"forbidden.state[{index}] {path}", not holds, f"not {wanted}", shown(actual), diff)

    def named_tools(self, contract: Any) -> Iterator[tuple[Loc, str]]:
        for i, tool in enumerate(FORBIDDEN_ACTIONS.of(contract)):
            yield ("contract", "forbidden", "actions", i), tool
        for i, spec in enumerate(FORBIDDEN_PARAMS.of(contract)):
            yield ("contract", "forbidden", "params", i, "tool"), spec.tool

    def argument_uses(self, contract: Any) -> Iterator[ArgumentUse]:
        for i, spec in enumerate(FORBIDDEN_PARAMS.of(contract)):
            yield ArgumentUse(("contract", "forbidden", "params", i, "args"), spec.tool, spec.args)
        yield ArgumentUse(("contract", "forbidden", "state"), None, FORBIDDEN_STATE.of(contract))

    def state_paths(self, contract: Any) -> Iterator[StatePathUse]:
        for path in FORBIDDEN_STATE.of(contract):
            yield StatePathUse(("contract", "forbidden", "state", path), path, may_grow=True)

    def consistency(self, contract: Any) -> Iterator[tuple[Loc, str]]:
        expected = set(required_counts(contract)) | {p.tool for p in EXPECTED_PARAMS.of(contract)}
        for i, tool in enumerate(FORBIDDEN_ACTIONS.of(contract)):
            if tool in expected:
                yield ("contract", "forbidden", "actions", i), f"{tool} is both expected and forbidden"

    def contract_rows(self, contract: Any) -> Iterator[ContractRow]:
        for path, constraint in FORBIDDEN_STATE.of(contract).items():
            yield ContractRow(path, "forbidden", f"not {describe(constraint)}")


FAMILY = Forbidden()
