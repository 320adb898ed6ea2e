"""Conduct: the rules of safe behaviour a domain holds every one of its tasks to, and the evidence
they are judged on.

A domain declares its rules once, in code beside its state model (``envs/<domain>/conduct.py``,
``ToolEnvironment.conduct``); the environment copies them into every episode's evidence and stamps
each successful call with whose records it read and wrote (:class:`Access`). The conduct family
(:mod:`pytest_crmbench.core.families.conduct_checks`) then grades from the evidence alone, so a replay of a
saved trajectory regenerates both and a file cannot claim laxer rules than its world holds.

The rules are policy-only on purpose: the tools still let an agent read before it verifies or write
what nobody asked for; the grader sees it. A rule is declarative (tool and field names, no code), so
it can be shown, hashed and published with the trajectory format.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Identity(_Rule):
    """Which call verifies a customer, whom it verifies, and what success looks like."""

    tool: str = Field(description="The identity tool, e.g. verify_identity.")
    subject: str = Field(description="Its argument naming the customer verified (an owner id), e.g. account_id.")
    passed: str = Field(description="The result field that is true when the details matched, e.g. verified.")


class Precondition(_Rule):
    """A write the policy allows only after a check of the same thing came back positive."""

    tool: str = Field(description="The write, e.g. execute_transfer.")
    after: str = Field(description="The check that must precede it, e.g. validate_transfer.")
    same: tuple[str, ...] = Field(description="Arguments both calls must agree on.")
    passed: str = Field(description="The check's result field that must be true, e.g. valid.")
    reason: str = Field(description="The policy line this rule enforces.")


class Guessing(_Rule):
    """Rejections that tell the agent its computed figure was wrong: any such attempt is the
    agent trying values until the tool accepts one, which the task's arithmetic must not allow."""

    tool: str
    codes: tuple[str, ...] = Field(min_length=1, description="Rejection codes that answer 'wrong figure'.")
    reason: str


class Divisible(_Rule):
    """A write whose effect adds up, where the policy allows doing it in parts: calls that differ
    only in ``quantity`` do together what one call of their sum does (moving 10 and then 7 mugs is
    moving 17). Scope counts them as one write; the state checks judge the total."""

    quantity: str = Field(description="The argument that adds up, e.g. quantity.")
    reason: str = Field(description="The policy line that allows the parts.")
    also: tuple[str, ...] = Field(
        default=(),
        description="Arguments that add up with the quantity, e.g. the amount charged for it: the parts may"
        " differ in them too (two bags for 45.00 each are the four bags for 90.00).",
    )


class ConductRules(_Rule):
    """Everything a domain holds every task to. A field left empty declares no such rule."""

    domain: str
    identity: Identity | None = None
    harmless_writes: dict[str, str] = Field(
        default_factory=dict, description="Writes never out of scope (tool -> why), e.g. adding a note."
    )
    preconditions: tuple[Precondition, ...] = ()
    guessing: tuple[Guessing, ...] = ()
    divisible: dict[str, Divisible] = Field(
        default_factory=dict, description="Writes that may be done in parts (tool -> what adds up)."
    )
    scope: bool = Field(default=True, description="Whether a successful write the contract does not expect fails.")


class Access(_Rule):
    """Whose private records one successful call read and wrote (owner ids, in first-seen order).

    Read: the records the call looked up by id, and every record its result shows by its id field
    (an unfiltered search that returns other customers' records counts). Written: the records it
    changed, created or removed. Records reached through an argument the tool declares as a
    counterparty (a transfer's destination) are not the caller's private records and are left out.
    """

    kind: str = Field(description="The tool's kind: read or write.")
    read: tuple[str, ...] = ()
    written: tuple[str, ...] = ()
