"""The field service tools: what a customer-facing dispatch desk can read and change.

Rules the business enforces (ownership, scheduling rules, stock, state transitions) raise
rejections; conduct rules (identity first, an explicit yes, notifying after a change, escalating
late cancellations) live in ``policy.md`` so an agent can break them and a task can see it.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Annotated, Any, Literal

from pytest_crmbench import IsoDate, Rejection, Required, Timestamp, ToolEnvironment, norm, require, tool

from .data_model import CLOSED_WORK_ORDER, MOVABLE_APPOINTMENT, OPEN_APPOINTMENT

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def instant(value: str) -> datetime:
    """An ISO timestamp with its offset, as an aware datetime (compares across offsets)."""
    return datetime.fromisoformat(value)


def offset_zone(utc_offset: str) -> Any:
    """The fixed-offset zone of a territory ("-07:00")."""
    return datetime.fromisoformat(f"2000-01-01T00:00:00{utc_offset}").tzinfo


def local_iso(moment: datetime, utc_offset: str) -> str:
    """A moment written in a territory's local offset."""
    return moment.astimezone(offset_zone(utc_offset)).isoformat()


class SchedulingRules(ToolEnvironment):
    """The shared rules: ownership lookups and the business's hard scheduling invariants."""

    def now_fixed(self) -> datetime:
        """'Now' for scheduling rules: the domain clock's start (lead times do not drift per call)."""
        return instant(self.clock_start)

    def lead_time(self) -> timedelta:
        return timedelta(hours=int(self.state["settings"]["lead_time_hours"]))

    def work_order_of(self, account_id: str, work_order_id: str) -> dict[str, Any]:
        self.get("accounts", account_id, param="account_id")
        return self.get("work_orders", work_order_id, owner=account_id)

    def appointment_of(self, account_id: str, appointment_id: str) -> dict[str, Any]:
        self.get("accounts", account_id, param="account_id")
        return self.get("appointments", appointment_id, owner=account_id)

    def open_appointments(self, technician_id: str, ignore: str | None) -> list[dict[str, Any]]:
        return [
            a
            for a in self.state["appointments"].values()
            if a["technician_id"] == technician_id
            and a["status"] in OPEN_APPOINTMENT
            and a["appointment_id"] != ignore
            and a["sched_start"] is not None
        ]

    def check_slot(
        self, work_order: dict[str, Any], technician_id: str, start: str, ignore: str | None = None
    ) -> tuple[datetime, datetime]:
        """Raise for the first hard scheduling rule the slot breaks; return its start and end.

        The business's invariants only: the lead time, the work order's bounds, the technician's
        territory and shift, no double booking. Matching the work type's skills and starting on
        the full hour are the policy's (``policy.md`` §3): a desk may assign anyone, as a
        dispatcher can drag a visit onto any technician of the territory."""
        technician = self.get("technicians", technician_id, param="technician_id")
        work_type = self.state["work_types"][work_order["work_type_id"]]
        begin = instant(start)
        end = begin + timedelta(minutes=int(work_type["duration_minutes"]))
        earliest = self.now_fixed() + self.lead_time()
        require(
            begin >= earliest,
            422,
            "LEAD_TIME_TOO_SHORT",
            f"A visit must start at least {self.state['settings']['lead_time_hours']} hours from now.",
            param="start",
        )
        inside = begin >= instant(work_order["earliest_start"]) and end <= instant(work_order["due_date"])
        if not inside:
            raise Rejection(
                422,
                "OUTSIDE_SCHEDULING_WINDOW",
                f"The visit must start no earlier than {work_order['earliest_start']} and end by "
                f"{work_order['due_date']}.",
                param="start",
            )
        require(
            technician["territory_id"] == work_order["territory_id"],
            422,
            "TERRITORY_MISMATCH",
            f"{technician_id} does not serve territory {work_order['territory_id']}.",
            param="technician_id",
        )
        self.check_shift(technician, begin, end)
        for other in self.open_appointments(technician_id, ignore):
            if begin < instant(other["sched_end"]) and instant(other["sched_start"]) < end:
                raise Rejection(409, "SLOT_TAKEN", f"{technician_id} is already booked then.", param="start")
        return begin, end

    def check_shift(self, technician: dict[str, Any], begin: datetime, end: datetime) -> None:
        offset = self.state["territories"][technician["territory_id"]]["utc_offset"]
        zone = offset_zone(offset)
        local_begin, local_end = begin.astimezone(zone), end.astimezone(zone)
        hours = technician["working_hours"]
        shift_start = time.fromisoformat(hours["start"])
        shift_end = time.fromisoformat(hours["end"])
        works = (
            WEEKDAYS[local_begin.weekday()] in hours["days"]
            and local_begin.date() == local_end.date()
            and shift_start <= local_begin.time()
            and local_end.time() <= shift_end
        )
        if not works:
            raise Rejection(
                422,
                "OUTSIDE_WORKING_HOURS",
                f"{technician['technician_id']} works {', '.join(hours['days'])} {hours['start']}-{hours['end']} "
                f"(UTC{offset}).",
                param="start",
            )

    def place(self, appointment: dict[str, Any], technician_id: str, begin: datetime, end: datetime) -> None:
        """Write the scheduled times and the arrival window in the territory's local offset."""
        work_order = self.state["work_orders"][appointment["work_order_id"]]
        offset = self.state["territories"][work_order["territory_id"]]["utc_offset"]
        half = timedelta(minutes=int(self.state["settings"]["arrival_window_minutes"]))
        appointment.update(
            status="Scheduled",
            technician_id=technician_id,
            sched_start=local_iso(begin, offset),
            sched_end=local_iso(end, offset),
            arrival_window_start=local_iso(begin - half, offset),
            arrival_window_end=local_iso(begin + half, offset),
        )


class CustomerTools(SchedulingRules):
    """Identity, work orders and appointments as the customer sees them."""

    @tool(kind="read")
    def verify_customer(self, account_id: str, postal_code: str) -> dict[str, Any]:
        """Check the billing postal code a customer stated against the one on file (never reveals it).

        Args:
            account_id: The customer's account id, e.g. "ACC-5001".
            postal_code: The billing postal code they stated.
        """
        account = self.get("accounts", account_id)
        verified = norm(postal_code) == norm(account["postal_code"])
        return {"account_id": account_id, "verified": verified, "name": account["name"] if verified else None}

    @tool(kind="read")
    def list_work_orders(self, account_id: str) -> dict[str, Any]:
        """List the verified customer's work orders (id, subject, status, work type).

        Args:
            account_id: The verified customer.
        """
        self.get("accounts", account_id)
        orders = [
            {k: wo[k] for k in ("work_order_id", "subject", "status", "work_type_id", "site_address")}
            for wo in self.state["work_orders"].values()
            if wo["account_id"] == account_id
        ]
        return {"account_id": account_id, "work_orders": orders}

    @tool(kind="read")
    def get_work_order(self, account_id: str, work_order_id: str) -> dict[str, Any]:
        """Get one of the customer's work orders: site, territory (with its UTC offset), work type
        (required skills, duration), scheduling bounds, line items and its appointments.

        Args:
            account_id: The verified customer.
            work_order_id: e.g. "WO-00041201".
        """
        work_order = self.work_order_of(account_id, work_order_id)
        territory = self.state["territories"][work_order["territory_id"]]
        appointments = [
            a["appointment_id"] for a in self.state["appointments"].values() if a["work_order_id"] == work_order_id
        ]
        return {
            **work_order,
            "territory": territory,
            "work_type": self.state["work_types"][work_order["work_type_id"]],
            "appointment_ids": appointments,
        }

    @tool(kind="read")
    def list_appointments(self, account_id: str) -> dict[str, Any]:
        """List the verified customer's service appointments with their times and technicians.

        Args:
            account_id: The verified customer.
        """
        self.get("accounts", account_id)
        mine = [a for a in self.state["appointments"].values() if a["account_id"] == account_id]
        return {"account_id": account_id, "appointments": mine}

    @tool(kind="read")
    def get_appointment(self, account_id: str, appointment_id: str) -> dict[str, Any]:
        """Get one of the customer's service appointments.

        Args:
            account_id: The verified customer.
            appointment_id: e.g. "SA-1001".
        """
        return dict(self.appointment_of(account_id, appointment_id))


class ScheduleTools(SchedulingRules):
    """Finding slots and technicians; booking, moving and cancelling visits."""

    @tool(kind="read")
    def get_schedule(self, account_id: str, work_order_id: str, date: IsoDate) -> dict[str, Any]:
        """The dispatch board of the work order's territory for one local date: what the work order
        needs (required skills, duration, scheduling bounds), whether a visit may start that day at
        all, and every technician of the territory with their skills, working hours and the visits
        already booked for them that day. Finding a technician and a start that fit is yours.

        Args:
            account_id: The verified customer.
            work_order_id: The work order to schedule.
            date: The local date at the site, YYYY-MM-DD.
        """
        work_order = self.work_order_of(account_id, work_order_id)
        territory = self.state["territories"][work_order["territory_id"]]
        offset = territory["utc_offset"]
        work_type = self.state["work_types"][work_order["work_type_id"]]
        day_start = datetime.combine(date_of(date), time(0), offset_zone(offset))
        day_end = day_start + timedelta(days=1)
        window_start = max(instant(work_order["earliest_start"]), self.now_fixed() + self.lead_time())
        schedulable = (
            work_order["status"] not in CLOSED_WORK_ORDER
            and window_start < day_end
            and day_start < instant(work_order["due_date"])
        )
        technicians = []
        for technician in self.state["technicians"].values():
            if technician["territory_id"] != work_order["territory_id"]:
                continue
            bookings = []
            for visit in sorted(self.open_appointments(technician["technician_id"], None), key=_start):
                begin, finish = instant(visit["sched_start"]), instant(visit["sched_end"])
                if begin < day_end and day_start < finish:
                    booking = {"start": local_iso(begin, offset), "end": local_iso(finish, offset)}
                    if visit["work_order_id"] == work_order_id:  # the customer's own visit: named
                        booking["appointment_id"] = visit["appointment_id"]
                    bookings.append(booking)
            technicians.append(
                {
                    "technician_id": technician["technician_id"],
                    "name": technician["name"],
                    "skills": technician["skills"],
                    "working_hours": technician["working_hours"],
                    "bookings": bookings,
                }
            )
        return {
            "work_order_id": work_order_id,
            "date": date,
            "territory_id": work_order["territory_id"],
            "utc_offset": offset,
            "required_skills": work_type["required_skills"],
            "duration_minutes": work_type["duration_minutes"],
            "earliest_start": work_order["earliest_start"],
            "due_date": work_order["due_date"],
            "schedulable": schedulable,
            "technicians": technicians,
        }

    @tool(kind="read")
    def list_technicians(self, territory_id: str, skill: str | None = None) -> dict[str, Any]:
        """List the technicians of a territory (skills and working hours), optionally with one skill.

        Args:
            territory_id: e.g. "TER-DEN-01".
            skill: Only technicians with this skill, e.g. "hvac".
        """
        territory = self.get("territories", territory_id)
        found = [
            {k: t[k] for k in ("technician_id", "name", "skills", "working_hours")}
            for t in self.state["technicians"].values()
            if t["territory_id"] == territory_id and (skill is None or skill in t["skills"])
        ]
        return {"territory_id": territory_id, "utc_offset": territory["utc_offset"], "technicians": found}

    @tool(kind="write")
    def reschedule_appointment(
        self, account_id: str, appointment_id: str, technician_id: str, start: Timestamp
    ) -> dict[str, Any]:
        """Move one of the customer's appointments to a new technician and start, after reading the
        schedule and the customer's explicit yes.

        Args:
            account_id: The verified customer, owner of the appointment.
            appointment_id: e.g. "SA-1001".
            technician_id: The technician who takes the visit.
            start: The visit's start, ISO 8601 with offset.
        """
        appointment = self.appointment_of(account_id, appointment_id)
        status = appointment["status"]
        require(
            status in MOVABLE_APPOINTMENT,
            409,
            "APPOINTMENT_NOT_RESCHEDULABLE",
            f"{appointment_id} is {status}.",
            param="appointment_id",
        )
        if instant(appointment["sched_start"]) - self.now_fixed() < self.lead_time():
            raise Rejection(
                422,
                "INSIDE_RESCHEDULE_WINDOW",
                f"{appointment_id} starts within {self.state['settings']['lead_time_hours']} hours; it cannot be moved.",
                param="appointment_id",
            )
        same = appointment["technician_id"] == technician_id and instant(appointment["sched_start"]) == instant(start)
        require(
            not same, 409, "SAME_SLOT", f"{appointment_id} is already at that time with {technician_id}.", param="start"
        )
        work_order = self.state["work_orders"][appointment["work_order_id"]]
        begin, end = self.check_slot(work_order, technician_id, start, ignore=appointment_id)
        self.place(appointment, technician_id, begin, end)
        return {k: appointment[k] for k in ("appointment_id", "status", "technician_id", "sched_start", "sched_end")}

    @tool(kind="write")
    def book_appointment(
        self, account_id: str, work_order_id: str, technician_id: str, start: Timestamp
    ) -> dict[str, Any]:
        """Book a visit for a work order that has no open appointment, after reading the schedule
        and the customer's explicit yes.

        Args:
            account_id: The verified customer, owner of the work order.
            work_order_id: e.g. "WO-00041207".
            technician_id: The technician who takes the visit.
            start: The visit's start, ISO 8601 with offset.
        """
        work_order = self.work_order_of(account_id, work_order_id)
        require(
            work_order["status"] not in CLOSED_WORK_ORDER,
            409,
            "WORK_ORDER_CLOSED",
            f"{work_order_id} is {work_order['status']}.",
            param="work_order_id",
        )
        open_visits = [
            a["appointment_id"]
            for a in self.state["appointments"].values()
            if a["work_order_id"] == work_order_id and a["status"] in OPEN_APPOINTMENT
        ]
        if open_visits:
            raise Rejection(
                409, "OPEN_APPOINTMENT_EXISTS", f"{work_order_id} already has {open_visits[0]}.", param="work_order_id"
            )
        begin, end = self.check_slot(work_order, technician_id, start)
        appointment = self.insert(
            "appointments",
            {
                "work_order_id": work_order_id,
                "account_id": account_id,
                "status": "None",
                "technician_id": None,
                "sched_start": None,
                "sched_end": None,
                "arrival_window_start": None,
                "arrival_window_end": None,
            },
        )
        self.place(appointment, technician_id, begin, end)
        return {k: appointment[k] for k in ("appointment_id", "status", "technician_id", "sched_start", "sched_end")}

    @tool(kind="write", prose=("reason",))
    def cancel_appointment(
        self, account_id: str, appointment_id: str, reason: Annotated[str, Required("Say why the visit is cancelled.")]
    ) -> dict[str, Any]:
        """Cancel one of the customer's appointments before work starts, after their explicit yes.

        Args:
            account_id: The verified customer, owner of the appointment.
            appointment_id: e.g. "SA-1001".
            reason: Why, in a few words.
        """
        appointment = self.appointment_of(account_id, appointment_id)
        require(
            appointment["status"] in MOVABLE_APPOINTMENT,
            409,
            "APPOINTMENT_NOT_CANCELABLE",
            f"{appointment_id} is {appointment['status']}.",
            param="appointment_id",
        )
        appointment.update(status="Canceled", cancel_reason=reason)
        return {"appointment_id": appointment_id, "status": "Canceled"}


class ContactTools(SchedulingRules):
    """Telling the customer, and handing over to a human dispatcher."""

    @tool(kind="write")
    def notify_customer(
        self, account_id: str, appointment_id: str, channel: Literal["sms", "email"] = "sms"
    ) -> dict[str, Any]:
        """Send the customer the current details of one of their appointments (after any change).

        Args:
            account_id: The verified customer.
            appointment_id: The appointment the message is about.
            channel: "sms" (default) or "email".
        """
        account = self.get("accounts", account_id)
        self.appointment_of(account_id, appointment_id)
        require(
            channel != "sms" or account["phone"] is not None,
            422,
            "NO_PHONE_ON_FILE",
            f"{account_id} has no mobile number; use email.",
            param="channel",
        )
        note = self.insert(
            "notifications",
            {"account_id": account_id, "appointment_id": appointment_id, "channel": channel, "sent_at": self.stamp()},
        )
        return {"notification_id": note["notification_id"], "channel": channel}

    @tool(kind="write", prose=("summary",))
    def transfer_to_dispatcher(
        self, account_id: str, summary: Annotated[str, Required("Summarise the request for the dispatcher.")]
    ) -> dict[str, Any]:
        """Hand the conversation to a human dispatcher, with a summary of what the customer needs.

        Args:
            account_id: The customer's account.
            summary: What the customer needs and why the assistant could not do it.
        """
        self.get("accounts", account_id)
        queued = [e["escalation_id"] for e in self.state["escalations"].values() if e["account_id"] == account_id]
        if queued:
            raise Rejection(
                409, "ALREADY_ESCALATED", f"{queued[0]} is already queued for {account_id}.", param="account_id"
            )
        case = self.insert("escalations", {"account_id": account_id, "summary": summary, "created_at": self.stamp()})
        return {"escalation_id": case["escalation_id"], "status": "queued"}


class PartTools(SchedulingRules):
    """Parts on technicians' vans and reserving them for a work order."""

    @tool(kind="read")
    def get_van_inventory(self, technician_id: str) -> dict[str, Any]:
        """List the parts on one technician's van with units and unit prices.

        Args:
            technician_id: e.g. "SR-101".
        """
        technician = self.get("technicians", technician_id)
        stock = [
            {
                "part_id": part_id,
                "name": self.state["parts"][part_id]["name"],
                "units": units,
                "unit_price": self.state["parts"][part_id]["unit_price"],
            }
            for part_id, units in sorted(technician["van_stock"].items())
        ]
        return {"technician_id": technician_id, "parts": stock}

    @tool(kind="write")
    def reserve_part(self, account_id: str, work_order_id: str, part_id: str, quantity: int) -> dict[str, Any]:
        """Reserve parts from the van of the technician assigned to the work order's open visit;
        adds a part line item at the part's price. After the customer's explicit yes.

        Args:
            account_id: The verified customer, owner of the work order.
            work_order_id: e.g. "WO-00041201".
            part_id: e.g. "P-FLT-1620".
            quantity: Whole units, at least 1.
        """
        require(quantity >= 1, 422, "INVALID_QUANTITY", "Reserve at least one unit.", param="quantity")
        work_order = self.work_order_of(account_id, work_order_id)
        part = self.get("parts", part_id)
        require(
            work_order["status"] not in CLOSED_WORK_ORDER,
            409,
            "WORK_ORDER_CLOSED",
            f"{work_order_id} is {work_order['status']}.",
            param="work_order_id",
        )
        visits = [
            a
            for a in self.state["appointments"].values()
            if a["work_order_id"] == work_order_id and a["status"] in MOVABLE_APPOINTMENT and a["technician_id"]
        ]
        require(
            bool(visits),
            409,
            "NO_TECHNICIAN_ASSIGNED",
            f"{work_order_id} has no scheduled visit.",
            param="work_order_id",
        )
        technician = self.state["technicians"][visits[0]["technician_id"]]
        on_van = int(technician["van_stock"].get(part_id, 0))
        if quantity > on_van:
            raise Rejection(
                409,
                "INSUFFICIENT_STOCK",
                f"{technician['technician_id']}'s van holds {on_van} of {part_id}.",
                param="quantity",
            )
        technician["van_stock"][part_id] = on_van - quantity
        line = {
            "line_item_id": f"WOLI-{len(work_order['line_items']) + 1}",
            "kind": "part",
            "description": part["name"],
            "part_id": part_id,
            "technician_id": technician["technician_id"],
            "quantity": quantity,
            "unit_price": part["unit_price"],
            "status": "New",
        }
        work_order["line_items"].append(line)
        return {
            "work_order_id": work_order_id,
            "line_item_id": line["line_item_id"],
            "technician_id": technician["technician_id"],
        }


def date_of(value: str) -> date:
    return date.fromisoformat(value)


def _start(visit: dict[str, Any]) -> datetime:
    return instant(visit["sched_start"])
