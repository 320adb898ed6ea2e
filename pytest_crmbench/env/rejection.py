"""Structured business rejections: the call was well-formed, the business said no.

A tool raises :class:`Rejection` (or calls :func:`require`) *before* it changes anything; the
environment restores the state anyway, records the call as ``rejected`` and shows the model
``{status, code, message[, param]}`` so it can recover. The four statuses follow HTTP:

=====  ==========================================================================
403    not allowed: not the owner, a hold, no approval
404    unknown id (name the argument in ``param``)
409    wrong state or a conflict: already refunded, not pending, a duplicate
422    breaks a value rule: an amount over a limit, a window expired, a blank reason
=====  ==========================================================================
"""

from __future__ import annotations

from typing import Any

REJECTION_STATUSES = frozenset({403, 404, 409, 422})


class Rejection(Exception):
    """A business rejection with an HTTP-like status, a machine ``code`` and a message for the model."""

    def __init__(self, status: int, code: str, message: str, *, param: str | None = None) -> None:
        if status not in REJECTION_STATUSES:
            raise ValueError(f"rejection status must be one of {sorted(REJECTION_STATUSES)}, got {status}")
        self.status, self.code, self.message, self.param = status, code, message, param
        super().__init__(f"{status} {code}: {message}")

    def as_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"status": self.status, "code": self.code, "message": self.message}
        if self.param is not None:
            error["param"] = self.param
        return error


def require(condition: object, status: int, code: str, message: str, *, param: str | None = None) -> None:
    """Raise ``Rejection(status, code, message, param=param)`` unless ``condition`` holds.

    One line per business rule::

        require(account["status"] != "closed", 409, "ACCOUNT_CLOSED", f"Account {account_id} is closed.")

    The message is built even when the rule holds, so it must not depend on the failure (write
    ``if ...: raise Rejection(...)`` when it formats a value that only exists then).
    """
    if not condition:
        raise Rejection(status, code, message, param=param)
