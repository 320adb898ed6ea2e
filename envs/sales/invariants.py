"""The sales world's rules across records, checked on the seed, every task's initial state and
(by the hypothesis test) after every operation."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from itertools import pairwise

from pytest_crmbench import ToolEnvironment, Violation, invariant

from .data_model import STAGE_PROBABILITY


class WorldInvariants(ToolEnvironment):
    """The invariants mixin: no tools, only world rules."""

    @invariant
    def lead_status_matches_its_record(self) -> Iterator[Violation]:
        converted_fields = ("converted_account_id", "converted_contact_id", "converted_opportunity_id")
        for lead_id, lead in self.state["leads"].items():
            status = lead["status"]
            converted = [lead[f] for f in converted_fields]
            if (status == "Closed - Converted") != all(converted) or (any(converted) and not all(converted)):
                yield Violation(
                    f"leads.{lead_id}.status", "is Closed - Converted exactly when all converted ids are set"
                )
            merged = lead["merged_into"]
            if (status == "Merged") != (merged is not None):
                yield Violation(f"leads.{lead_id}.merged_into", "is set exactly when the lead is Merged")
            if merged == lead_id:
                yield Violation(f"leads.{lead_id}.merged_into", "names the lead itself")
            if (status == "Closed - Not Converted") != (lead["disqualified_reason"] is not None):
                yield Violation(f"leads.{lead_id}.disqualified_reason", "is set exactly when the lead is disqualified")
            if status in ("Qualified", "Closed - Converted") and not all(lead["bant"].values()):
                yield Violation(f"leads.{lead_id}.bant", "is complete on a qualified or converted lead")

    @invariant
    def probability_follows_stage(self) -> Iterator[Violation]:
        for opp_id, opp in self.state["opportunities"].items():
            if opp["probability"] != STAGE_PROBABILITY[opp["stage"]]:
                yield Violation(
                    f"opportunities.{opp_id}.probability", f"is {STAGE_PROBABILITY[opp['stage']]} at {opp['stage']}"
                )
            if opp["stage"] == "Closed Won" and not (opp["amount"] and opp["close_date"]):
                yield Violation(f"opportunities.{opp_id}.amount", "a won deal has an amount and a close date")
            if (opp["stage"] == "Closed Lost") != bool(opp["loss_reason"]):
                yield Violation(f"opportunities.{opp_id}.loss_reason", "is set exactly when the deal is lost")

    @invariant
    def no_double_booking(self) -> Iterator[Violation]:
        events = sorted(self.state["events"].values(), key=lambda e: (e["rep_id"], datetime.fromisoformat(e["start"])))
        for earlier, later in pairwise(events):
            ends = datetime.fromisoformat(earlier["start"]) + timedelta(minutes=earlier["duration_minutes"])
            if earlier["rep_id"] == later["rep_id"] and datetime.fromisoformat(later["start"]) < ends:
                yield Violation(
                    f"events.{later['event_id']}.start", f"overlaps {earlier['event_id']} on the same calendar"
                )
