"""The itsm world as one typed state model, after ServiceNow's tables: the single source of truth.

The environment validates ``seed.json``, every task's ``initial_state`` and the state after every
write through :class:`ItsmState`. Record numbers are sequential like ServiceNow's
(``INC0010001``, ``CHG0030001``, ``PRB0040001``, ``REQ0010001``, ``RITM0010001``): a new record
takes the next free number of its table.

State layout::

    users.<EMP-…>               User            (sys_user: roles, manager, groups)
    groups.<GRP-…>              Group           (sys_user_group: assignment groups, access groups)
    cis.<CI-…>                  ConfigItem      (cmdb_ci: servers, applications, laptops)
    incidents.<INC…>            Incident
    problems.<PRB…>             Problem
    changes.<CHG…>              ChangeRequest
    catalog.<CAT-…>             CatalogItem     (sc_cat_item)
    requests.<REQ…>             Request         (sc_request)
    request_items.<RITM…>       RequestItem     (sc_req_item, with its approvals)
    blackouts.<BLK-…>           Blackout        (change freeze windows)
    work_notes[]                WorkNote        (append-only journal)
    number_counters.<INC|…>     int             (last number used per table, like sys_number_counter)
    settings                    Settings        (SLA targets by priority)
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench import Money, Record, Ref, Timestamp

Role = Literal["itil", "itil_admin", "cmdb_admin", "user_admin", "approver"]
IncidentState = Literal["new", "in_progress", "on_hold", "resolved", "closed", "canceled"]
HoldReason = Literal["awaiting_caller", "awaiting_change", "awaiting_problem", "awaiting_vendor"]
CloseCode = Literal["solved_permanently", "solved_workaround", "not_solved", "user_error", "duplicate"]
ChangeType = Literal["standard", "normal", "emergency"]
ChangeState = Literal["new", "assess", "authorize", "scheduled", "implement", "review", "closed", "canceled"]
ProblemState = Literal["new", "assess", "root_cause_analysis", "fix_in_progress", "resolved", "closed"]
RitmState = Literal["pending_approval", "approved", "rejected", "fulfilled", "canceled"]
OPEN_INCIDENT = ("new", "in_progress", "on_hold")
OPEN_CHANGE = ("new", "assess", "authorize", "scheduled", "implement", "review")


# Ids of other records: the kit reports one naming no record ("names no config item").
UserId = Annotated[str, Ref("users")]
CiId = Annotated[str, Ref("cis")]
IncidentId = Annotated[str, Ref("incidents")]
ProblemId = Annotated[str, Ref("problems")]
CatalogItemId = Annotated[str, Ref("catalog")]
RequestId = Annotated[str, Ref("requests")]


class User(Record):
    """An employee (sys_user). The caller is verified by employee id and full name."""

    id_prefix = "EMP"
    owner_field = "user_id"  # an employee's own record (conduct.py)

    user_id: str = Field(description="Employee id, e.g. EMP-1001.")
    name: str
    email: str
    department: str
    title: str
    manager_id: str | None = Field(description="The user's manager (approves their requests).")
    roles: list[Role] = Field(default_factory=list, description="ITSM roles the user holds.")
    groups: list[str] = Field(default_factory=list, description="Groups the user is a member of.")
    active: bool = True


class Group(Record):
    """An assignment group or an access group (sys_user_group)."""

    id_prefix = "GRP"

    group_id: str = Field(description="e.g. GRP-NET.")
    name: str
    kind: Literal["assignment", "access", "cab"]
    members: list[str] = Field(default_factory=list)
    privileged: bool = Field(False, description="Access to it needs the data owner's approval too.")
    owner_id: str | None = Field(None, description="Data owner of a privileged access group.")
    active: bool = True


class ConfigItem(Record):
    """A configuration item (cmdb_ci)."""

    id_prefix = "CI"
    id_field = "ci_id"

    ci_id: str = Field(description="e.g. CI-2001.")
    name: str
    ci_class: Literal["server", "application", "database", "network", "laptop", "peripheral"]
    criticality: Literal["high", "medium", "low"]
    support_group: str = Field(description="Assignment group that supports it.")
    depends_on: list[CiId] = Field(default_factory=list, description="CIs this one runs on.")
    assigned_to: UserId | None = Field(None, description="User a piece of hardware is assigned to.")
    status: Literal["operational", "retired"] = "operational"


class Incident(Record):
    id_prefix = "INC"
    owner_field = "caller_id"

    incident_id: str
    caller_id: UserId
    short_description: str
    ci_id: CiId | None = None
    impact: int = Field(ge=1, le=3)
    urgency: int = Field(ge=1, le=3)
    priority: int = Field(ge=1, le=5, description="Derived from impact x urgency; never set directly.")
    state: IncidentState = "new"
    assignment_group: str | None = None
    assigned_to: str | None = None
    hold_reason: HoldReason | None = None
    problem_id: ProblemId | None = None
    parent_id: IncidentId | None = Field(None, description="The incident a duplicate was canceled against.")
    close_code: CloseCode | None = None
    close_notes: str | None = None
    opened_at: Timestamp
    resolved_at: Timestamp | None = None


class Problem(Record):
    id_prefix = "PRB"

    problem_id: str
    short_description: str
    ci_id: CiId | None = None
    state: ProblemState = "new"
    known_error: bool = False
    workaround: str | None = None
    opened_at: Timestamp


class ChangeRequest(Record):
    id_prefix = "CHG"
    id_field = "change_id"
    owner_field = "requested_by"

    change_id: str
    requested_by: str
    change_type: ChangeType
    short_description: str
    ci_id: CiId
    risk: Literal["high", "moderate", "low"]
    state: ChangeState = "new"
    template_id: str | None = None
    cab_approval: Literal["not_requested", "requested", "approved", "rejected"] = "not_requested"
    approved_by: str | None = None
    planned_start: Timestamp | None = None
    planned_end: Timestamp | None = None


class Blackout(Record):
    id_prefix = "BLK"

    blackout_id: str
    name: str
    start: Timestamp
    end: Timestamp


class CatalogItem(Record):
    id_prefix = "CAT"
    id_field = "item_id"

    item_id: str
    name: str
    kind: Literal["hardware", "software", "access"]
    price: Money = Field(ge=0)
    needs_manager_approval: bool
    access_group: str | None = Field(None, description="The group an access item grants.")
    stock: int | None = Field(None, ge=0, description="Units in the stockroom (hardware only).")
    standard_template: bool = False


class Approval(BaseModel):
    model_config = ConfigDict(extra="forbid")

    approver_id: str
    role: Literal["manager", "data_owner"]
    state: Literal["requested", "approved", "rejected", "not_required"] = "requested"


class Request(Record):
    id_prefix = "REQ"
    owner_field = "requested_by"

    request_id: str
    requested_by: str
    opened_at: Timestamp


class RequestItem(Record):
    id_prefix = "RITM"
    id_field = "ritm_id"
    owner_field = "requested_for"

    ritm_id: str
    request_id: RequestId
    requested_for: str
    item_id: CatalogItemId
    quantity: int = Field(ge=1)
    total: Money = Field(ge=0)
    justification: str
    state: RitmState
    approvals: list[Approval] = Field(default_factory=list)


class WorkNote(Record):
    id_prefix = "WN"
    id_field = "note_id"

    note_id: str
    record_id: str
    author: str
    text: str
    created_at: Timestamp


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    resolution_sla_hours: dict[str, int] = Field(description="Resolution target per priority (P1..P5).")
    standard_templates: dict[str, str] = Field(description="Pre-approved standard change templates: id -> name.")


class ItsmState(BaseModel):
    """The whole world; ``seed.json`` and every task's ``initial_state`` must validate against it."""

    model_config = ConfigDict(extra="forbid")

    settings: Settings
    users: dict[str, User]
    groups: dict[str, Group]
    cis: dict[str, ConfigItem]
    incidents: dict[str, Incident]
    problems: dict[str, Problem]
    changes: dict[str, ChangeRequest]
    blackouts: dict[str, Blackout]
    catalog: dict[str, CatalogItem]
    requests: dict[str, Request]
    request_items: dict[str, RequestItem]
    work_notes: list[WorkNote]
    number_counters: dict[str, int] = Field(
        description="Last number used per numbered table (sys_number_counter): INC, PRB, CHG, REQ, RITM."
    )
