"""Meetings: a rep's calendar for a day and booking a meeting with a lead on it."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any

from pytest_crmbench import IsoDate, Rejection, require, tool

from .base import SalesTools

EASTERN = timezone(timedelta(hours=-5))
"""The sales floor's business hours are Eastern (EST in early March 2026)."""
OPENS, CLOSES = 9, 17
CLOCK = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")


def interval(event: dict[str, Any]) -> tuple[datetime, datetime]:
    start = datetime.fromisoformat(event["start"])
    return start, start + timedelta(minutes=event["duration_minutes"])


class MeetingTools(SalesTools):
    @tool(kind="read")
    def get_calendar(self, rep_id: str, date: IsoDate) -> dict[str, Any]:
        """The events on a rep's calendar on one day (Eastern time), earliest first.

        Args:
            rep_id: Whose calendar.
            date: The day, e.g. "2026-03-04".
        """
        rep = self.rep(rep_id)
        events = [e for e in self.state["events"].values() if e["rep_id"] == rep_id]
        on_day = [e for e in events if interval(e)[0].astimezone(EASTERN).date().isoformat() == date]
        on_day.sort(key=lambda e: interval(e)[0])
        shown = [{k: e[k] for k in ("event_id", "subject", "start", "duration_minutes")} for e in on_day]
        hours = f"{OPENS:02d}:00-{CLOSES:02d}:00 Eastern, Monday to Friday"
        return {"rep_id": rep_id, "rep_name": rep["name"], "date": date, "business_hours": hours, "events": shown}

    @tool(kind="write", prose=("subject",))
    def book_meeting(
        self, rep_id: str, lead_id: str, date: IsoDate, start_time: str, duration_minutes: int = 30, subject: str = ""
    ) -> dict[str, Any]:
        """Book a meeting with a lead on a rep's calendar and send the lead the invitation.

        Args:
            rep_id: The rep who hosts the meeting (whose calendar it goes on).
            lead_id: The lead invited.
            date: The day, e.g. "2026-03-04".
            start_time: Start time, Eastern, 24-hour "HH:MM", e.g. "14:30".
            duration_minutes: Length, 15 to 120 minutes.
            subject: Meeting title.
        """
        rep = self.rep(rep_id)
        lead = self.open_lead(lead_id)
        ok_length = 15 <= duration_minutes <= 120
        require(ok_length, 422, "INVALID_DURATION", "Meetings last 15 to 120 minutes.", param="duration_minutes")
        clock = CLOCK.match(start_time)
        require(clock is not None, 422, "INVALID_TIME", "Give the start as HH:MM (24-hour).", param="start_time")
        begins = datetime.fromisoformat(f"{date}T{start_time}:00").replace(tzinfo=EASTERN)
        start = begins.isoformat()
        ends = begins + timedelta(minutes=duration_minutes)
        require(begins > self.now(), 422, "START_IN_PAST", f"{start} has already passed.", param="start_time")
        local_start, local_end = begins.astimezone(EASTERN), ends.astimezone(EASTERN)
        in_hours = local_start.weekday() < 5 and local_start.hour >= OPENS and local_end.date() == local_start.date()
        in_hours = in_hours and (local_end.hour, local_end.minute) <= (CLOSES, 0)
        message = f"Meetings must fall within {OPENS:02d}:00-{CLOSES:02d}:00 Eastern, Monday to Friday."
        require(in_hours, 422, "OUTSIDE_BUSINESS_HOURS", message, param="start_time")
        for event in self.state["events"].values():
            other_start, other_end = interval(event)
            if event["rep_id"] == rep_id and other_start < ends and begins < other_end:
                message = f"{rep['name']} is busy then: {event['subject']} at {event['start']}."
                raise Rejection(409, "SLOT_TAKEN", message, param="start_time")
        title = subject or f"Intro call: {lead['company']}"
        fields = {"rep_id": rep_id, "subject": title, "duration_minutes": duration_minutes, "lead_id": lead_id}
        event = self.insert("events", {**fields, "start": begins.isoformat()})
        self.mark_contacted(lead)
        return {"event_id": event["event_id"], "start": event["start"], "invited": lead["email"]}
