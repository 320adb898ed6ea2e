"""Expected state: dotted paths of the final state and the value each must hold (spec §A.2 "state")."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pytest_crmbench.core.families.base import (
    ArgumentUse,
    CheckFamily,
    CheckVerdict,
    Constraint,
    ContractField,
    ContractRow,
    StatePath,
    StatePathUse,
    verdict,
)
from pytest_crmbench.core.families.trace import bind_results, described, shown
from pytest_crmbench.core.matchers import MISSING, describe, matches, show
from pytest_crmbench.core.paths import deepest_existing, resolve

if TYPE_CHECKING:
    from pytest_crmbench.core.evidence import Evidence

EXPECTED_STATE: ContractField[dict[str, Any]] = ContractField(
    location=("expected_state",),
    annotation=dict[StatePath, Constraint],
    row="expected_state",
    kind="state",
    title="expected state",
    unit="leaf paths",
    keyed=True,
    default_factory=dict,
)


def state_diff(path: str, expected: str, actual: Any, state: Mapping[str, Any]) -> str:
    if actual is MISSING:
        found = deepest_existing(state, path)
        return f"{path}: expected {expected}, but the path does not exist (exists up to {found or 'the root'!r})"
    return f"{path}: expected {expected}, got {show(actual)}"


class ExpectedState(CheckFamily):
    label = "state"
    title = "state"
    position, precedence = 50, 30
    colour = "#e0893b"
    fields = (EXPECTED_STATE,)
    positive = True

    def check(self, contract: Any, evidence: Evidence) -> list[CheckVerdict]:
        final_state, trace = evidence.final_state, evidence.tool_calls
        verdicts = []
        for index, (path, written) in enumerate(EXPECTED_STATE.of(contract).items()):
            constraint = bind_results(written, trace)
            actual = resolve(final_state, path)
            wanted = described(written, constraint)
            verdicts.append(
                verdict(
                    self.label,
                    f"state[{index}] {path}",
                    matches(constraint, actual),
                    wanted,
                    shown(actual),
                    state_diff(path, wanted, actual, final_state),
                )
            )
        return verdicts

    def argument_uses(self, contract: Any) -> Iterator[ArgumentUse]:
        yield ArgumentUse(("contract", "expected_state"), None, EXPECTED_STATE.of(contract))

    def state_paths(self, contract: Any) -> Iterator[StatePathUse]:
        # An expected end state may lie inside a slot the episode fills (a list that grows).
        for path in EXPECTED_STATE.of(contract):
            yield StatePathUse(("contract", "expected_state", path), path, may_grow=True)

    def contract_rows(self, contract: Any) -> Iterator[ContractRow]:
        for path, constraint in EXPECTED_STATE.of(contract).items():
            yield ContractRow(path, "expected", describe(constraint))


FAMILY = ExpectedState()
