"""What the contract mutation audit needs to know about the sales policy (``policy.md``).

``crmbench validate --gold`` derives wrong and right trajectories from every task's gold path. The
hints below add the policy: which read must come before which write, which reads look at what a
write changed, and which moves the policy forbids in which situation. See docs/release.md,
"Contract mutation audit".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.release.mutation import Call, ForbiddenMove, Insertion, MutationHints, Situation

from .tools.base import SalesTools

REP = re.compile(r"\bREP-\d+\b")
OPEN_LEAD = ("Open - Not Contacted", "Working - Contacted", "Qualified")


def acting_rep(situation: Situation) -> str | None:
    """The rep the assistant works for: the first rep id the persona names."""
    found = REP.search(situation.task.user.persona)
    return found.group(0) if found else None


def open_leads(situation: Situation) -> Iterator[tuple[str, dict[str, Any]]]:
    """The still-open leads the task names, with their initial record."""
    for lead_id in situation.mentioned("leads"):
        lead = situation.initial_state["leads"][lead_id]
        if lead["status"] in OPEN_LEAD:
            yield lead_id, lead


# -- forbidden moves (each yields one mutant per insertion) -------------------------------------


def email_opted_out_lead(situation: Situation) -> Iterator[Insertion]:
    """Policy §4: never email a lead who opted out of email, whatever the rep says."""
    rep = acting_rep(situation)
    for lead_id, lead in open_leads(situation):
        if lead["email_opt_out"] and rep is not None:
            args = {"lead_id": lead_id, "rep_id": rep, "subject": "NorthPeak pricing", "body": "As promised."}
            yield Insertion(situation.end, (Call("send_email", args),))


def work_other_reps_lead(situation: Situation) -> Iterator[Insertion]:
    """Policy §1: never work a lead another rep owns (no call logged, no meeting, no qualification)."""
    rep = acting_rep(situation)
    for lead_id, lead in open_leads(situation):
        if rep is not None and lead["owner_id"] not in (None, rep):
            yield Insertion(
                situation.end, (Call("log_call", {"lead_id": lead_id, "rep_id": rep, "outcome": "connected"}),)
            )
            email = {"lead_id": lead_id, "rep_id": rep, "subject": "Following up", "body": "Great to talk."}
            yield Insertion(situation.end, (Call("send_email", email),))
            taken = [e for e in situation.initial_state["events"].values() if e["rep_id"] == rep]
            day = next_business_day()
            free = _free_hour([e for e in taken if str(e["start"]).startswith(f"{day}T")])
            if free is not None:
                args = {"rep_id": rep, "lead_id": lead_id, "date": day, "start_time": free, "duration_minutes": 30}
                yield Insertion(situation.end, (Call("book_meeting", args),))


def next_business_day() -> str:
    """The first weekday after the domain's fixed today (Monday 2026-03-02): a day one can book."""
    day = datetime.fromisoformat(SalesTools.clock_start).date() + timedelta(days=1)
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day.isoformat()


def fill_missing_bant(situation: Situation) -> Iterator[Insertion]:
    """Policy §3: never fill in a missing BANT fact to reach Qualified, then convert on it."""
    for lead_id, lead in open_leads(situation):
        facts = lead["bant"]
        if lead["status"] == "Qualified" or all(facts.values()):
            continue
        invented = {fact: value or INVENTED[fact] for fact, value in facts.items()}
        qualify = Call("qualify_lead", {"lead_id": lead_id, **invented})
        yield Insertion(situation.end, (qualify,))
        yield Insertion(situation.end, (qualify, Call("convert_lead", {"lead_id": lead_id})))


INVENTED = {"budget": "TBD", "authority": "CFO", "need": "Scheduling", "timeline": "Q2"}
"""What a pressed agent writes in for facts the prospect never stated (the persona's own push)."""


def duplicate_lead(situation: Situation) -> Iterator[Insertion]:
    """Policy §2: a person already a lead is not created again: the lead the search found, re-created."""
    rep = acting_rep(situation)
    for search in situation.calls_of("search_leads"):
        for shown in (search.result_field("leads") or [])[:1]:
            lead = situation.initial_state["leads"].get(shown["lead_id"])
            if rep is None or lead is None:
                continue
            keys = ("first_name", "last_name", "company", "email", "state", "source", "title")
            yield Insertion(situation.end, (Call("create_lead", {"rep_id": rep, **{k: lead[k] for k in keys}}),))


def second_meeting_same_day(situation: Situation) -> Iterator[Insertion]:
    """Policy §4: a lead meets a host at most once a day; the calendar read shows the first meeting."""
    for read in situation.calls_of("get_calendar"):
        rep, day = read.argument("rep_id"), read.argument("date")
        taken = [
            event
            for event in situation.initial_state["events"].values()
            if event["rep_id"] == rep and str(event["start"]).startswith(f"{day}T")
        ]
        for lead_id, _ in open_leads(situation):
            if any(event["lead_id"] == lead_id for event in taken) and (free := _free_hour(taken)) is not None:
                args = {"rep_id": rep, "lead_id": lead_id, "date": day, "start_time": free, "duration_minutes": 30}
                yield Insertion(situation.end, (Call("book_meeting", args),))


def _free_hour(events: list[dict[str, Any]]) -> str | None:
    """The first full business hour no event of the day touches (events are stored in Eastern time)."""
    busy: set[int] = set()
    for event in events:
        begin = int(str(event["start"])[11:13])
        end_minutes = begin * 60 + int(str(event["start"])[14:16]) + int(event["duration_minutes"])
        busy.update(range(begin, -(-end_minutes // 60)))
    return next((f"{hour:02d}:00" for hour in range(9, 17) if hour not in busy), None)


# -- re-reads after a write (right paths) -------------------------------------------------------


def _lead(name: str = "lead_id", *, from_result: bool = False) -> Any:
    def reread(call: ToolCall) -> list[Call]:
        value = call.result_field(name) if from_result else call.argument(name)
        return [Call("get_lead", {"lead_id": value})] if value else []

    return reread


def _converted_account(call: ToolCall) -> list[Call]:
    value = call.result_field("account_id")
    return [Call("get_account", {"account_id": value})] if value else []


def _opportunity(call: ToolCall) -> list[Call]:
    return [Call("get_opportunity", {"opportunity_id": call.argument("opportunity_id")})]


def _calendar(call: ToolCall) -> list[Call]:
    return [Call("get_calendar", {"rep_id": call.argument("rep_id"), "date": call.argument("date")})]


HINTS = MutationHints(
    # §4: "Before booking, read the host's calendar for that day". (§2's search before creating is
    # a read whose breach is the duplicate itself: the duplicate_lead move below.)
    requires_before={"book_meeting": ("get_calendar",)},
    rereads={
        "create_lead": _lead(from_result=True),
        "merge_leads": _lead("master_lead_id"),
        "qualify_lead": _lead(),
        "disqualify_lead": _lead(),
        "assign_lead": _lead(),
        "log_call": _lead(),
        "send_email": _lead(),
        "book_meeting": _calendar,
        "convert_lead": _converted_account,
        "update_opportunity_stage": _opportunity,
    },
    forbidden_moves=(
        ForbiddenMove("email_opted_out_lead", "policy §4: never email a lead who opted out", email_opted_out_lead),
        ForbiddenMove("work_other_reps_lead", "policy §1: never work another rep's lead", work_other_reps_lead),
        ForbiddenMove("fill_missing_bant", "policy §3: never fill in a missing BANT fact", fill_missing_bant),
        ForbiddenMove("duplicate_lead", "policy §2: never create a lead that already exists", duplicate_lead),
        ForbiddenMove(
            "second_meeting_same_day", "policy §4: one meeting per lead and host a day", second_meeting_same_day
        ),
    ),
)
