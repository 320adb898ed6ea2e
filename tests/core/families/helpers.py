"""Hand-built traces and contracts, and each family's check run on them one check kind at a time."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_crmbench.core.evidence import Evidence, Termination, ToolCall
from pytest_crmbench.core.families import Contract, family, kind_of
from pytest_crmbench.core.families.base import CheckVerdict


def evidence(
    trace: Sequence[ToolCall] = (), initial: Mapping[str, Any] | None = None, final: Mapping[str, Any] | None = None
) -> Evidence:
    return Evidence(
        task_id="t",
        agent="test",
        tool_calls=list(trace),
        initial_state=dict(initial or {}),
        final_state=dict(final or {}),
        termination=Termination(reason="user_stop"),
    )


def checked(label: str, kind: str, contract: Contract, ev: Evidence) -> list[CheckVerdict]:
    return [v for v in family(label).check(contract, ev) if kind_of(v.name) == kind]


def check_expected_actions(contract: Contract, trace: Sequence[ToolCall]) -> list[CheckVerdict]:
    return checked("action", "action", contract, evidence(trace))


def check_expected_params(contract: Contract, trace: Sequence[ToolCall]) -> list[CheckVerdict]:
    return checked("param", "param", contract, evidence(trace))


def check_action_order(contract: Contract, trace: Sequence[ToolCall]) -> list[CheckVerdict]:
    return checked("order", "order", contract, evidence(trace))


def check_expected_state(
    contract: Contract, final: Mapping[str, Any], trace: Sequence[ToolCall] = ()
) -> list[CheckVerdict]:
    return checked("state", "state", contract, evidence(trace, final=final))


def check_forbidden_actions(contract: Contract, trace: Sequence[ToolCall]) -> list[CheckVerdict]:
    return checked("forbidden", "forbidden.action", contract, evidence(trace))


def check_forbidden_params(contract: Contract, trace: Sequence[ToolCall]) -> list[CheckVerdict]:
    return checked("forbidden", "forbidden.param", contract, evidence(trace))


def check_forbidden_state(
    contract: Contract, final: Mapping[str, Any], trace: Sequence[ToolCall] = ()
) -> list[CheckVerdict]:
    return checked("forbidden", "forbidden.state", contract, evidence(trace, final=final))


def check_protected(contract: Contract, initial: Mapping[str, Any], final: Mapping[str, Any]) -> list[CheckVerdict]:
    return checked("collateral", "collateral", contract, evidence(initial=initial, final=final))


def trace(*calls: tuple[str, dict[str, Any] | str, str]) -> list[ToolCall]:
    return [
        ToolCall(index=i, turn=0, node=None, name=name, arguments=args, status=status)
        for i, (name, args, status) in enumerate(calls)
    ]  # type: ignore[arg-type]


def contract(**fields: Any) -> Contract:
    return Contract.model_validate(fields)


def statuses(verdicts: list) -> list[str]:
    return [v.status for v in verdicts]
