"""The task contract: pydantic models that are the single source of truth for task files.

One task record (``tasks/<domain>.yaml`` holds a list of them) describes the private user
instruction, an optional sparse initial-state override, the executable contract and a gold path.
Unknown fields are errors everywhere (``extra="forbid"``). ``crmbench schema`` prints the JSON Schema
generated from :class:`Task` so editors can validate task files.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from pytest_crmbench.core.matchers import check_constraint

NAME_PATTERN = r"^[a-z][a-z0-9_]*$"
"""Ids, domains, tags and marks: they become pytest markers, so they must be identifiers."""

Name = Annotated[str, Field(pattern=NAME_PATTERN)]
Difficulty = Literal["easy", "medium", "hard"]
DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "medium", "hard")


def _valid_constraint(value: Any) -> Any:
    problem = check_constraint(value)
    if problem is not None:
        raise ValueError(problem)
    return value


Constraint = Annotated[Any, AfterValidator(_valid_constraint)]
"""A literal (exact match) or a ``{$operator: operand}`` mapping, see :mod:`pytest_crmbench.core.matchers`."""

_PATH_SEGMENT = re.compile(r"^[^.\s]+$")


def _valid_path(path: str) -> str:
    if not path or not all(_PATH_SEGMENT.match(part) for part in path.split(".")):
        raise ValueError(f"{path!r} is not a dotted state path such as 'accounts.ACC-1001.balance'")
    return path


StatePath = Annotated[str, AfterValidator(_valid_path)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


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


def _tool_shorthand(value: Any) -> Any:
    return {"tool": value} if isinstance(value, str) else value


class ExpectedAction(_Model):
    """A tool that must have ``count`` successful (status ``ok``) calls; repeated entries add up."""

    tool: str
    count: int = Field(1, ge=1)


class ExpectedParams(_Model):
    """Argument constraints that one successful call of ``tool`` must satisfy.

    ``match: any`` — some ``ok`` call satisfies all constraints; ``match: first`` — the first ``ok``
    call of the tool does.
    """

    tool: str
    args: dict[str, Constraint] = Field(min_length=1)
    match: Literal["any", "first"] = "any"


class ActionOrder(_Model):
    """The named tools' ``ok`` calls must follow this order.

    ``subsequence``: unrelated calls (and other calls of the named tools) may interleave;
    ``exact``: the ``ok`` calls filtered to the named tools must equal ``tools`` exactly.
    """

    tools: list[str] = Field(min_length=2)
    mode: Literal["subsequence", "exact"] = "subsequence"


class ForbiddenParams(_Model):
    """No attempt of ``tool`` (any status, rejected included) may satisfy all of ``args``."""

    tool: str
    args: dict[str, Constraint] = Field(min_length=1)


class Forbidden(_Model):
    """Negative evidence: attempts that must not happen and end states that must not hold."""

    actions: list[str] = Field(default_factory=list, description="Tools that must never be attempted.")
    params: list[ForbiddenParams] = Field(default_factory=list)
    state: dict[StatePath, Constraint] = Field(
        default_factory=dict, description="Path -> value (or matcher) that must NOT hold in the final state."
    )
    protected: list[StatePath] = Field(
        default_factory=list, description="Paths whose final value must equal their initial value."
    )


class Contract(_Model):
    """Only the checks that apply. An empty family is undeclared: absent, never an automatic pass."""

    expected_actions: list[Annotated[ExpectedAction, BeforeValidator(_tool_shorthand)]] = Field(default_factory=list)
    expected_params: list[ExpectedParams] = Field(default_factory=list)
    action_order: list[ActionOrder] = Field(default_factory=list)
    reply_criteria: list[str] = Field(default_factory=list)
    expected_state: dict[StatePath, Constraint] = Field(default_factory=dict)
    forbidden: Forbidden = Field(default_factory=Forbidden)

    @model_validator(mode="before")
    @classmethod
    def _single_order(cls, data: Any) -> Any:
        # One order constraint is the common case; let authors write it without a list.
        if isinstance(data, dict) and isinstance(data.get("action_order"), dict):
            data = {**data, "action_order": [data["action_order"]]}
        return data

    def required_counts(self) -> dict[str, int]:
        """Tool -> number of successful calls required (entries for the same tool add up)."""
        counts: dict[str, int] = {}
        for action in self.expected_actions:
            counts[action.tool] = counts.get(action.tool, 0) + action.count
        return counts

    def has_positive_check(self) -> bool:
        """Whether a do-nothing agent could fail this contract (it declares something to achieve)."""
        return bool(self.expected_actions or self.expected_params or self.action_order or self.expected_state)


_REFERENCE = re.compile(r"^(\d+)((?:\.[^.\s]+)+)$")


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


REPLY_REFERENCE = re.compile(r"\$\{(\d+)((?:\.[^.\s}]+)+)\}")
"""``${2.transaction_id}`` inside a gold reply: a value from an earlier step's result."""


class Gold(_Model):
    """An architecture-independent reference solution: ordered tool calls and a final reply.

    The reply may quote generated values as ``${<step>.<path>}``.
    """

    path: list[GoldCall] = Field(default_factory=list)
    reply: str

    @model_validator(mode="after")
    def _references_point_back(self) -> Gold:
        for index, step in enumerate(self.path):
            for name, value in step.args.items():
                if not (isinstance(value, dict) and "$from" in value):
                    continue
                reference = gold_reference(value)
                if reference is None:
                    raise ValueError(
                        f"path[{index}].args.{name}: $from needs the form '<step>.<path>', e.g. '0.transaction_id'"
                    )
                if reference[0] >= index:
                    raise ValueError(f"path[{index}].args.{name}: $from must name an earlier step (0..{index - 1})")
                if self.path[reference[0]].expect != "ok":
                    raise ValueError(
                        f"path[{index}].args.{name}: $from names step {reference[0]}, which is expected to be rejected"
                    )
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

    @model_validator(mode="after")
    def _unique_tags(self) -> Task:
        if len(set(self.capabilities)) != len(self.capabilities):
            raise ValueError("capabilities must not repeat")
        return self

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
