"""Reply criteria: ordered natural-language criteria the semantic judge decides (spec §A.2 "reply").

The family declares the criteria; :mod:`pytest_crmbench.models.judge` decides them. Without a
judge each criterion is ``not_judged``, which is never a pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_crmbench.core.families.base import CheckFamily, CheckVerdict, ContractField

if TYPE_CHECKING:
    from pytest_crmbench.core.evidence import Evidence

REPLY_CRITERIA: ContractField[list[str]] = ContractField(
    location=("reply_criteria",),
    annotation=list[str],
    row="reply_criteria",
    kind="reply",
    title="reply criteria",
    unit="criteria",
)


class ReplyCriteria(CheckFamily):
    label = "reply"
    title = "reply"
    position, precedence = 40, 50
    colour = "#8c6bb1"
    fields = (REPLY_CRITERIA,)
    judged = True

    def check(self, contract: Any, evidence: Evidence) -> list[CheckVerdict]:
        return []  # judged: see unjudged() and the ReplyJudge seam of pytest_crmbench.grading

    def declared_at(self, kind: str, index: str, subject: str | None, contract: Any) -> tuple[int | str, ...]:
        # reply[contradiction] is about the whole transcript, not one criterion.
        return ("contract", "reply_criteria", int(index)) if index.isdigit() else ("contract", "reply_criteria")

    def unjudged(self, contract: Any, reason: str) -> list[CheckVerdict]:
        """One ``not_judged`` verdict per criterion, saying why."""
        return [
            CheckVerdict(family=self.label, name=f"reply[{i}]", status="not_judged", expected=c, diff=f"{reason}: {c}")
            for i, c in enumerate(REPLY_CRITERIA.of(contract))
        ]


FAMILY = ReplyCriteria()
