"""The task contract: pydantic models that are the single source of truth for task files.

One task record (``tasks/<domain>.yaml`` holds a list of them) describes the private user
instruction, an optional sparse initial-state override, the executable contract and a gold path.
Unknown fields are errors everywhere (``extra="forbid"``). ``crmbench schema`` prints the JSON Schema
generated from :class:`Task` so editors can validate task files.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from pytest_crmbench.core.families import Contract, Forbidden
from pytest_crmbench.core.families.actions import ExpectedAction
from pytest_crmbench.core.families.base import Constraint, FrozenModel, StatePath
from pytest_crmbench.core.families.forbidden import ForbiddenParams
from pytest_crmbench.core.families.order import ActionOrder, OrderStep
from pytest_crmbench.core.families.params import ExpectedParams

__all__ = [
    "ActionOrder",
    "Constraint",
    "Contract",
    "ExpectedAction",
    "ExpectedParams",
    "Forbidden",
    "ForbiddenParams",
    "OrderStep",
    "StatePath",
    "Task",
]

NAME_PATTERN = r"^[a-z][a-z0-9_]*$"
"""Ids, domains, tags and marks: they become pytest markers, so they must be identifiers."""

MAX_NAME_CHARS = 100
"""Ids become pytest node ids, file names of traces and lines of reports: 100 characters is twice
the longest shipped id (a 100,000-character id once loaded, collected and ran)."""
Name = Annotated[str, Field(pattern=NAME_PATTERN, max_length=MAX_NAME_CHARS)]
Difficulty = Literal["easy", "medium", "hard"]
DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "medium", "hard")


_Model = FrozenModel


class UserInstruction(_Model):
    """The simulator's private brief. Everything the agent needs must be obtainable from it or from tools."""

    persona: str = Field(description="Who the user is and how they talk.")
    goal: str = Field(description="What the user wants done, in their own terms.")
    opening: str | None = Field(
        None, description="The user's first message. Scripted users say it verbatim; simulators may paraphrase."
    )
    known: list[str] = Field(default_factory=list, description="Facts the user can give: ids, amounts, dates.")
    unknown: list[str] = Field(
        default_factory=list, description="What the user does not know and must say so when asked."
    )
    reactions: list[str] = Field(default_factory=list, description="How the user reacts to likely agent moves.")
    stop: str = Field(description="When the user ends the conversation.")

    def text(self) -> str:
        """The whole instruction as one text (what the simulator and the judge read)."""
        lines = [f"Persona: {self.persona}", f"Goal: {self.goal}"]
        if self.opening:
            lines.append(f"Opening message: {self.opening}")
        for title, items in (
            ("You know", self.known),
            ("You do not know", self.unknown),
            ("Reactions", self.reactions),
        ):
            lines.extend(f"{title}: {item}" for item in items)
        lines.append(f"Stop when: {self.stop}")
        return "\n".join(lines)


_REFERENCE = re.compile(r"^(\d{1,6})((?:\.[^.\s]+)+)$")


def gold_reference(value: Any) -> tuple[int, str] | None:
    """``(step, path)`` for a gold argument ``{$from: "2.transaction_id"}``, else None."""
    if isinstance(value, dict) and set(value) == {"$from"} and isinstance(value["$from"], str):
        match = _REFERENCE.match(value["$from"])
        if match:
            return int(match.group(1)), match.group(2)[1:]
    return None


class GoldCall(_Model):
    """One step of a gold path.

    An argument may be ``{$from: "<step>.<path>"}``: the value at ``path`` in the result of an
    earlier step, for ids the environment generates (``TXN-…``) and so depend on the seed.
    """

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    expect: Literal["ok", "rejected"] = Field(
        default="ok",
        description="The status the replayed call must get; a rejected step documents a refusal the agent meets.",
    )


def check_references(path: list[GoldCall]) -> None:
    """Every ``$from`` of a path names an earlier step that is expected to succeed (raises ValueError)."""
    for index, step in enumerate(path):
        for name, value in step.args.items():
            if not (isinstance(value, dict) and "$from" in value):
                continue
            reference = gold_reference(value)
            if reference is None:
                raise ValueError(
                    f"path[{index}].args.{name}: $from needs the form '<step>.<path>', e.g. '0.transaction_id'"
                )
            if reference[0] >= index:
                earlier = f"0..{index - 1}" if index else "there is none before the first step"
                raise ValueError(f"path[{index}].args.{name}: $from must name an earlier step ({earlier})")
            if path[reference[0]].expect != "ok":
                raise ValueError(
                    f"path[{index}].args.{name}: $from names step {reference[0]}, which is expected to be rejected"
                )


REPLY_REFERENCE = re.compile(r"\$\{(\d{1,6})((?:\.[^.\s}]+)+)\}")
"""``${2.transaction_id}`` inside a gold reply: a value from an earlier step's result."""


class Gold(_Model):
    """An architecture-independent reference solution: ordered tool calls and a final reply.

    The reply may quote generated values as ``${<step>.<path>}``.
    """

    path: list[GoldCall] = Field(default_factory=list)
    reply: str

    @model_validator(mode="after")
    def _references_point_back(self) -> Gold:
        check_references(self.path)
        for match in REPLY_REFERENCE.finditer(self.reply):
            target = int(match.group(1))
            if target >= len(self.path) or self.path[target].expect != "ok":
                raise ValueError(f"reply: {match.group(0)} must name a step of the path that is expected to succeed")
        return self


AuditName = Literal["information_sufficiency"]
"""Release audits (``crmbench validate --gold``) a task may be exempted from, with a reason."""


class Exemption(_Model):
    """A justified exception to a release audit, reviewed like any other task change.

    For ``information_sufficiency``, ``value`` is the gold argument value the user cannot state
    (say, an amount the agent computes from a policy rule) and ``reason`` says where it comes from.
    """

    check: AuditName
    value: Any = Field(description="The gold argument value the exemption covers.")
    reason: str = Field(pattern=r"\S", description="Why the exemption is correct; must not be empty.")


class Trajectory(_Model):
    """A hand-written path the contract mutation audit replays from a fresh world.

    An ``alternative`` is a right path that must pass every programmatic check; a
    ``counterexample`` is a wrong path that must fail at least one. Steps are written like gold
    steps (``$from`` references name earlier steps of the same path).
    """

    reason: str = Field(pattern=r"\S", description="Why the path is right (alternative) or wrong (counterexample).")
    path: list[GoldCall] = Field(default_factory=list)

    @model_validator(mode="after")
    def _references_point_back(self) -> Trajectory:
        check_references(self.path)
        return self


class MutationWaiver(_Model):
    """A mutant of the contract mutation audit that is known to survive (or a derived right path
    known to fail) for a reason the audit cannot see, reviewed like any other task change."""

    mutation: str = Field(
        pattern=r"\S", description="The mutation id as the audit reports it, e.g. 'change:2:send_receipt.channel=sms'."
    )
    reason: str = Field(pattern=r"\S", description="One line: why the mutant is equivalent (or the variant wrong).")


class Task(_Model):
    """One benchmark task: a POMDP instance (user, initial state, contract) in a domain."""

    id: Name
    domain: Name
    title: str | None = Field(default=None, description="One line for humans; shown in verbose output.")
    capabilities: list[Name] = Field(min_length=1, max_length=4)
    difficulty: Difficulty
    marks: list[Name] = Field(default_factory=list, description="Extra pytest markers.")
    user: UserInstruction
    initial_state: dict[str, Any] = Field(
        default_factory=dict, description="Sparse override deep-merged onto the domain's default_state()."
    )
    contract: Contract
    gold: Gold
    exemptions: list[Exemption] = Field(
        default_factory=list, description="Justified exceptions to release audits (crmbench validate --gold)."
    )
    alternatives: list[Trajectory] = Field(
        default_factory=list, description="Hand-written right paths: each must pass every programmatic check."
    )
    counterexamples: list[Trajectory] = Field(
        default_factory=list, description="Hand-written wrong paths: each must fail at least one programmatic check."
    )
    mutation_waivers: list[MutationWaiver] = Field(
        default_factory=list,
        description="Mutants of the contract mutation audit waived with a reason (counted in its report).",
    )

    @model_validator(mode="after")
    def _unique_tags(self) -> Task:
        if len(set(self.capabilities)) != len(self.capabilities):
            raise ValueError("capabilities must not repeat")
        return self

    @field_validator("mutation_waivers")
    @classmethod
    def _unique_waivers(cls, waivers: list[MutationWaiver]) -> list[MutationWaiver]:
        seen: set[str] = set()
        for waiver in waivers:
            if waiver.mutation in seen:
                raise ValueError(f"{waiver.mutation!r} is waived twice")
            seen.add(waiver.mutation)
        return waivers

    def markers(self) -> list[str]:
        """The pytest markers of this task, in a stable order."""
        seen: dict[str, None] = dict.fromkeys([self.domain, self.difficulty, *self.capabilities, *self.marks])
        return list(seen)


def task_json_schema() -> dict[str, Any]:
    """JSON Schema for a task file (a list of task records)."""
    item = Task.model_json_schema()
    defs = item.pop("$defs", {})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "crmbench task file",
        "type": "array",
        "items": {"$ref": "#/$defs/Task"},
        "$defs": {**defs, "Task": item},
    }
