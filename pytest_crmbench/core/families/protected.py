"""Protected paths: state that must end as it began, collateral damage otherwise (spec §A.2 "collateral")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pytest_crmbench.core.families.base import (
    FORBIDDEN_GROUP,
    CheckFamily,
    CheckVerdict,
    ContractField,
    ContractRow,
    StatePath,
    StatePathUse,
    verdict,
)
from pytest_crmbench.core.families.trace import shown
from pytest_crmbench.core.matchers import MISSING, show, values_equal
from pytest_crmbench.core.paths import resolve

if TYPE_CHECKING:
    from pytest_crmbench.core.evidence import Evidence

PROTECTED: ContractField[list[str]] = ContractField(
    location=("forbidden", "protected"),
    annotation=list[StatePath],
    row="protected_state",
    kind="collateral",
    title="protected paths",
    unit="paths",
    description="Paths whose final value must equal their initial value.",
    negative=True,
)


class Protected(CheckFamily):
    label = "collateral"
    title = "protected"
    position, precedence = 70, 70
    colour = "#d07cb1"
    fields = (PROTECTED,)
    group = FORBIDDEN_GROUP

    def check(self, contract: Any, evidence: Evidence) -> list[CheckVerdict]:
        verdicts = []
        for index, path in enumerate(PROTECTED.of(contract)):
            before, after = resolve(evidence.initial_state, path), resolve(evidence.final_state, path)
            unchanged = (before is MISSING and after is MISSING) or (
                before is not MISSING and after is not MISSING and values_equal(before, after)
            )
            diff = f"{path} is protected: initial {show(before)}, final {show(after)}"
            verdicts.append(
                verdict(self.label, f"collateral[{index}] {path}", unchanged, shown(before), shown(after), diff)
            )
        return verdicts

    def state_paths(self, contract: Any) -> Iterator[StatePathUse]:
        # A protected path must exist at the start: it is compared with its initial value.
        for i, path in enumerate(PROTECTED.of(contract)):
            yield StatePathUse(("contract", "forbidden", "protected", i), path, may_grow=False)

    def contract_rows(self, contract: Any) -> Iterator[ContractRow]:
        for path in PROTECTED.of(contract):
            yield ContractRow(path, "protected", "unchanged")


FAMILY = Protected()
