"""The mini domain's policy for the contract mutation audit (tests only)."""

from __future__ import annotations

from collections.abc import Iterator

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.release.mutation import Call, ForbiddenMove, Insertion, MutationHints, Situation


def close_protected_account(situation: Situation) -> Iterator[Insertion]:
    """Never close an account whose status (or whole record) the task protects: nobody asked."""
    for path in situation.task.contract.forbidden.protected:
        parts = path.split(".")
        if parts[0] == "accounts" and len(parts) in (2, 3) and parts[2:] in ([], ["status"]):
            yield Insertion(situation.end, (Call("close_account", {"account_id": parts[1]}),))


def balance_after(call: ToolCall) -> list[Call]:
    return [Call("get_balance", {"account_id": (call.effective_arguments or {})["from_account"]})]


HINTS = MutationHints(
    requires_before={"execute_transfer": ("validate_transfer",)},
    rereads={"execute_transfer": balance_after},
    forbidden_moves=(
        ForbiddenMove("close_protected_account", "never close an account unasked", close_protected_account),
    ),
)
