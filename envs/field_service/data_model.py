"""The field service world as one typed state model (modelled on Salesforce Field Service).

The environment validates ``seed.json``, every task's ``initial_state`` and the state after every
write through :class:`FieldServiceState`; tools read and write the plain tree it dumps, so task
contracts address it with dotted paths such as ``appointments.SA-1001.sched_start``.

Times are ISO 8601 timestamps with the UTC offset of the service territory they happen in
(``2026-03-05T10:00:00-07:00`` is 10 am in Denver); tools compare them as instants, so an agent
may send a time in any offset. Money is a two-place ``Decimal``; part quantities are whole units.

State layout::

    settings                    Settings           (lead time, arrival window)
    accounts.<ACC-…>            Account            (the customer; identity: postal code)
    territories.<TER-…>         ServiceTerritory   (UTC offset, operating days)
    work_types.<WT-…>           WorkType           (required skills, duration)
    technicians.<SR-…>          ServiceResource    (skills, territory, working hours, van stock)
    parts.<P-…>                 Part               (price, units the company owns)
    work_orders.<WO-…>          WorkOrder          (site, work type, scheduling bounds, line items)
    appointments.<SA-…>         ServiceAppointment (scheduled times, arrival window, technician)
    notifications.<NTF-…>       Notification       (messages sent to customers)
    escalations.<ESC-…>         Escalation         (hand-offs to a human dispatcher)
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import Money, Record, Ref, Timestamp

WorkOrderStatus = Literal["New", "In Progress", "On Hold", "Completed", "Cannot Complete", "Closed", "Canceled"]
AppointmentStatus = Literal[
    "None", "Scheduled", "Dispatched", "In Progress", "Completed", "Cannot Complete", "Canceled"
]
OPEN_APPOINTMENT = ("None", "Scheduled", "Dispatched", "In Progress")
MOVABLE_APPOINTMENT = ("None", "Scheduled", "Dispatched")
CLOSED_WORK_ORDER = ("Completed", "Cannot Complete", "Closed", "Canceled")
Weekday = Literal["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


# Ids of other records: the kit reports one naming no record ("names no account").
AccountId = Annotated[str, Ref("accounts")]
TerritoryId = Annotated[str, Ref("territories")]
WorkTypeId = Annotated[str, Ref("work_types")]
TechnicianId = Annotated[str, Ref("technicians")]
PartId = Annotated[str, Ref("parts")]
WorkOrderId = Annotated[str, Ref("work_orders")]


class Settings(BaseModel):
    """Company-wide scheduling rules."""

    model_config = ConfigDict(extra="forbid")

    lead_time_hours: int = Field(gt=0, description="A visit is moved or booked at least this long before it starts.")
    arrival_window_minutes: int = Field(
        gt=0, description="The arrival window runs this long either side of the scheduled start."
    )


class Account(Record):
    """A customer (the Account of the work order); identity is checked with the billing postal code."""

    owner_field = "account_id"  # the customer record: its own owner

    account_id: str = Field(description="e.g. ACC-5001.")
    name: str
    postal_code: str = Field(description="Billing postal code: the identity check.")
    email: str
    phone: str | None = Field(description="Mobile number for SMS, or null.")
    home_utc_offset: str = Field(description="The UTC offset where the customer lives, e.g. -05:00.")


class ServiceTerritory(Record):
    """A region technicians serve; all its times use its UTC offset (no DST change inside the seed's weeks)."""

    id_field = "territory_id"
    noun = "territory"

    territory_id: str = Field(description="e.g. TER-DEN-01.")
    name: str
    utc_offset: str = Field(description="e.g. -07:00.")


class WorkType(Record):
    """A kind of job: the skills it requires and how long it takes."""

    work_type_id: str = Field(description="e.g. WT-HVAC-MAINT.")
    name: str
    required_skills: list[str]
    duration_minutes: int = Field(gt=0)


class WorkingHours(BaseModel):
    """A technician's shift, in the local time of their territory."""

    model_config = ConfigDict(extra="forbid")

    days: list[Weekday]
    start: str = Field(pattern=r"^[0-2]\d:[0-5]\d$", description="Local shift start, HH:MM.")
    end: str = Field(pattern=r"^[0-2]\d:[0-5]\d$", description="Local shift end, HH:MM.")


class ServiceResource(Record):
    """A technician (ServiceResource) with skills, a home territory, working hours and a stocked van."""

    id_field = "technician_id"
    noun = "technician"

    technician_id: str = Field(description="e.g. SR-101.")
    name: str
    territory_id: TerritoryId
    skills: list[str]
    working_hours: WorkingHours
    van_stock: dict[PartId, int] = Field(description="Part id -> units on the van.")


class Part(Record):
    """A part the company stocks on its vans."""

    part_id: str = Field(description="e.g. P-FLT-1620.")
    name: str
    unit_price: Money = Field(gt=0)
    total_units: int = Field(ge=0, description="Units the company owns: on vans plus reserved on work orders.")


class LineItem(BaseModel):
    """A work order line item: labour or a part reserved from a technician's van."""

    model_config = ConfigDict(extra="forbid")

    line_item_id: str = Field(description="e.g. WOLI-1.")
    kind: Literal["labor", "part"]
    description: str
    part_id: str | None = None
    technician_id: str | None = Field(default=None, description="Whose van a reserved part came from.")
    quantity: int = Field(gt=0)
    unit_price: Money = Field(ge=0)
    status: WorkOrderStatus = "New"


class WorkOrder(Record):
    """A job at a customer's site; its appointments must fall between earliest_start and due_date."""

    owner_field = "account_id"

    work_order_id: str = Field(description="e.g. WO-00041201.")
    account_id: AccountId
    subject: str
    site_address: str
    territory_id: TerritoryId
    work_type_id: WorkTypeId
    status: WorkOrderStatus
    earliest_start: Timestamp
    due_date: Timestamp
    line_items: list[LineItem]


class ServiceAppointment(Record):
    """A visit for a work order (ServiceAppointment with its AssignedResource)."""

    owner_field = "account_id"
    id_field = "appointment_id"
    id_prefix = "SA"
    noun = "appointment"

    appointment_id: str = Field(description="e.g. SA-1001.")
    work_order_id: WorkOrderId
    account_id: str
    status: AppointmentStatus
    technician_id: TechnicianId | None
    sched_start: Timestamp | None
    sched_end: Timestamp | None
    arrival_window_start: Timestamp | None
    arrival_window_end: Timestamp | None
    cancel_reason: str | None = None


class Notification(Record):
    """A message sent to a customer about an appointment."""

    owner_field = "account_id"
    id_prefix = "NTF"

    notification_id: str
    account_id: str
    appointment_id: str
    channel: Literal["sms", "email"]
    sent_at: Timestamp


class Escalation(Record):
    """A hand-off to a human dispatcher."""

    owner_field = "account_id"
    id_prefix = "ESC"

    escalation_id: str
    account_id: str
    summary: str
    created_at: Timestamp


class FieldServiceState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    settings: Settings
    accounts: dict[str, Account]
    territories: dict[str, ServiceTerritory]
    work_types: dict[str, WorkType]
    technicians: dict[str, ServiceResource]
    parts: dict[str, Part]
    work_orders: dict[str, WorkOrder]
    appointments: dict[str, ServiceAppointment]
    notifications: dict[str, Notification]
    escalations: dict[str, Escalation]


__all__ = ["FieldServiceState"]
