"""Dry runs: a read tool that answers whether a write tool would go through, from the same rules.

A write tool's business rules live in one *check method* that raises
:class:`~pytest_crmbench.env.rejection.Rejection` for the first broken rule and returns a preview
of the outcome. The write tool calls it before changing anything; ``@dry_run`` also exposes it as
a read tool of its own (own name, schema and trace entries), so the rules are written once::

    @dry_run("validate_transfer", of="execute_transfer")
    def check_transfer(self, from_account: str, to_account: str, amount: Amount) -> dict[str, Any]:
        \"\"\"Check whether a transfer would go through, without moving any money.

        Args:
            ...
        \"\"\"
        source = self.get("accounts", from_account, param="from_account")
        require(amount <= source["balance"], 422, "INSUFFICIENT_FUNDS", "Insufficient funds.", param="amount")
        return {"balance_after": source["balance"] - amount}

    @tool(kind="write")
    def execute_transfer(self, from_account: str, to_account: str, amount: Amount, memo: str = "") -> dict[str, Any]:
        \"\"\"...\"\"\"
        self.check_transfer(from_account, to_account, amount)
        ...  # only effects from here on

The dry run answers ``{"valid": true, **preview}`` or, for a broken rule (including an argument
value rule such as a sub-cent amount), ``{"valid": false, "reason", "code": <status>,
"error_code", "message", "param"}`` with status ``ok``: a negative business answer, not a
rejection. Its arguments must be a subset of the write tool's, with the same types, so the same
call can be sent to both and their answers compared (the environment checks this at class
creation; tests compare the answers).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pytest_crmbench.env.rejection import Rejection

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class DryRun:
    """How a check method is exposed: the read tool's ``name``, the write tool it mirrors (``of``)
    and optional short reasons per rejection code (default: the code in words)."""

    name: str
    of: str
    reasons: Mapping[str, str] = field(default_factory=dict)

    def passed(self, preview: Mapping[str, Any] | None) -> dict[str, Any]:
        return {"valid": True, **(preview or {})}

    def refused(self, rejection: Rejection) -> dict[str, Any]:
        reason = self.reasons.get(rejection.code) or rejection.code.replace("_", " ").capitalize()
        return {
            "valid": False,
            "reason": reason,
            "code": rejection.status,
            "error_code": rejection.code,
            "message": rejection.message,
            "param": rejection.param,
        }


def dry_run(name: str, *, of: str, reasons: Mapping[str, str] | None = None) -> Callable[[F], F]:
    """Expose a check method as the read tool ``name``: a dry run of the write tool ``of``."""

    def mark(method: F) -> F:
        method.__crm_dry_run__ = DryRun(name, of, dict(reasons or {}))  # type: ignore[attr-defined]
        return method

    return mark
