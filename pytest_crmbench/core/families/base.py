"""What a check family is: its part of the contract, its check, its label, its rows and columns.

A family (expected actions, parameters, order, reply, expected state, forbidden, protected) is
one :class:`CheckFamily` in one module of this package, as syrupy's extensions own serializer,
comparator and storage behind one base class. The contract model, the grader, the primary-label
precedence, the table-2 inventory, figure 14, the release gate's structural checks and the report
all iterate over the registered families (:mod:`pytest_crmbench.core.families`); none of them
names one. Adding a family is adding a module here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from pytest_crmbench.core.matchers import check_constraint

if TYPE_CHECKING:
    from pytest_crmbench.core.evidence import Evidence

Loc = tuple[int | str, ...]
"""A place in a task record, as a path of keys and indexes: ``("contract", "expected_params", 0)``."""


class FrozenModel(BaseModel):
    """Task-file models: unknown fields are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def _valid_constraint(value: Any) -> Any:
    problem = check_constraint(value)
    if problem is not None:
        raise ValueError(problem)
    return value


Constraint = Annotated[Any, AfterValidator(_valid_constraint)]
"""A literal (exact match) or a ``{$operator: operand}`` mapping, see :mod:`pytest_crmbench.core.matchers`."""

_PATH_SEGMENT = re.compile(r"^[^.\s]+$")
MAX_PATH_CHARS, MAX_PATH_SEGMENTS, MAX_INDEX_DIGITS = 300, 16, 9
"""Bounds of a state path: real paths are a few segments long, and a list index of more than nine
digits could never exist (longer ones would not even convert to an integer past 4,300 digits)."""


def _valid_path(path: str) -> str:
    if len(path) > MAX_PATH_CHARS or path.count(".") >= MAX_PATH_SEGMENTS:
        raise ValueError(
            f"a state path may have at most {MAX_PATH_SEGMENTS} segments and {MAX_PATH_CHARS} characters"
            f" (this one: {path.count('.') + 1} segments, {len(path)} characters)"
        )
    if not path or not all(_PATH_SEGMENT.match(part) for part in path.split(".")):
        raise ValueError(f"{path!r} is not a dotted state path such as 'accounts.ACC-1001.balance'")
    for part in path.split("."):
        if part.isascii() and part.isdigit() and len(part) > MAX_INDEX_DIGITS:
            raise ValueError(f"list index {part[:12]}... has more than {MAX_INDEX_DIGITS} digits")
    return path


StatePath = Annotated[str, AfterValidator(_valid_path)]


def tool_shorthand(value: Any) -> Any:
    """``- refund_payment`` for ``- {tool: refund_payment}``."""
    return {"tool": value} if isinstance(value, str) else value


# -- verdicts ------------------------------------------------------------------------------------

CheckStatus = Literal["passed", "failed", "not_judged"]


class CheckVerdict(BaseModel):
    """The result of one declared check, with a diff a human can act on."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    family: str = Field(description="The label of the check's family (spec §A.2), e.g. 'forbidden'.")
    name: str = Field(description="Family and index plus a short subject, e.g. 'state[0] accounts.ACC-1002.balance'.")
    status: CheckStatus
    expected: Any = None
    actual: Any = None
    diff: str = Field("", description="Why it failed (or why it was not judged), naming paths and values.")

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def render(self) -> str:
        lines = [f"{self.name}: {self.status.upper().replace('_', ' ')}"]
        if self.diff:
            lines.extend(f"  {line}" for line in self.diff.splitlines())
        return "\n".join(lines)


# -- a family's part of the contract -----------------------------------------------------------

T = TypeVar("T")

_CHECK_NAME = re.compile(r"^(?P<kind>[a-z_.]+)\[(?P<index>[^\]]+)\](?: (?P<subject>\S+))?")


def check_name_parts(name: str) -> tuple[str, str, str | None] | None:
    """``("state", "0", "accounts.A.balance")`` for the check name ``state[0] accounts.A.balance``."""
    match = _CHECK_NAME.match(name)
    return None if match is None else (match["kind"], match["index"], match["subject"])


@dataclass(frozen=True)
class ContractField(Generic[T]):
    """One field of the task contract a family declares, and the table-2 row it counts in.

    ``location`` is where it is written under ``contract:`` (``("forbidden", "params")``); ``kind``
    the prefix of its checks' names (``forbidden.param[0] execute_transfer``). A field is a list
    of entries, or (``keyed``) a mapping from state path to constraint; one entry or key is one
    declaration (spec table 2: a state declaration is one leaf path).
    """

    location: tuple[str, ...]
    annotation: Any
    row: str
    """Its row of table 2 and of the manifest's targets, e.g. ``forbidden_params``."""
    kind: str
    title: str
    unit: str | None = None
    description: str | None = None
    keyed: bool = False
    negative: bool = False
    """A negative assertion of spec §B.8 (policy-constrained tasks and negative-check compliance)."""
    default_factory: Callable[[], Any] = list
    label: str | None = None
    """The label its verdicts carry when it is not the family's: the spec counts a forbidden end
    state with the state checks (figures 13 and 14), though a contract writes it under ``forbidden``."""

    def of(self, contract: Any) -> T:
        """This field's value in a contract."""
        value = contract
        for key in self.location:
            value = getattr(value, key)
        return value  # type: ignore[no-any-return]

    def count(self, contract: Any) -> int:
        return len(self.of(contract))  # type: ignore[arg-type]

    def declared_at(self, index: str, subject: str | None, contract: Any) -> Loc:
        """Where the entry a check of this field names is written: ``()`` when it cannot be told."""
        if self.keyed:
            return ("contract", *self.location, subject) if subject and index.isdigit() else ()
        return ("contract", *self.location, int(index)) if index.isdigit() else ()


@dataclass(frozen=True)
class FieldGroup:
    """A sub-mapping of the contract that several fields share (``forbidden:``)."""

    key: str
    title: str
    doc: str


FORBIDDEN_GROUP = FieldGroup(
    "forbidden", "Forbidden", "Negative evidence: attempts that must not happen and end states that must not hold."
)


# -- a family ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StatePathUse:
    """A state path a contract names: must it exist at reset, or may the episode create it?"""

    loc: Loc
    path: str
    may_grow: bool


@dataclass(frozen=True)
class ArgumentUse:
    """Argument constraints a contract names: ``tool`` None for state constraints (no arguments)."""

    loc: Loc
    tool: str | None
    constraints: Mapping[str, Any]


@dataclass(frozen=True)
class ContractRow:
    """A state path a contract names, for the report: what it asks of the path's final value."""

    path: str
    role: str
    wanted: str


class CheckFamily:
    """One check family. Subclasses set the class attributes and implement :meth:`check`.

    ``position`` orders families as a contract writes them and table 2 lists them; programmatic
    families are checked (and figure 14's columns drawn) in that order, judged ones after them.
    ``precedence`` is the family's place in spec §A.2's primary-label priority (lowest first):
    a failed task is labelled by its highest-priority failed family.
    """

    label: ClassVar[str]
    title: ClassVar[str]
    position: ClassVar[int]
    precedence: ClassVar[int]
    colour: ClassVar[str]
    fields: ClassVar[tuple[ContractField[Any], ...]]
    group: ClassVar[FieldGroup | None] = None
    judged: ClassVar[bool] = False
    """Checked by the semantic judge, not by :meth:`check` (reply criteria)."""
    positive: ClassVar[bool] = False
    """A do-nothing agent can fail it: something must be achieved."""
    spec: ClassVar[bool] = True
    """One of the specification's families (§A.2); strict accuracy over these alone keeps a run
    comparable with the specification's protocol."""
    negative_kinds: ClassVar[tuple[str, ...]] = ()
    """Check kinds of the family that are negative assertions though no contract field declares
    them (a domain's conduct rules), counted in negative-check compliance with the negative fields."""

    def check(self, contract: Any, evidence: Evidence) -> list[CheckVerdict]:
        raise NotImplementedError

    def declared(self, contract: Any) -> bool:
        return any(f.count(contract) for f in self.fields)

    def declarations(self, contract: Any) -> dict[str, int]:
        """Table-2 declarations of each of the family's rows."""
        return {f.row: f.count(contract) for f in self.fields}

    def declared_at(self, kind: str, index: str, subject: str | None, contract: Any) -> Loc:
        """Where in the task record the entry behind a check is written (see :func:`check_name_parts`)."""
        for f in self.fields:
            if f.kind == kind:
                return f.declared_at(index, subject, contract)
        return ()

    def prepare(self, data: dict[str, Any]) -> dict[str, Any]:
        """The raw ``contract:`` mapping before validation, rewritten (shorthands)."""
        return data

    # -- what the release gate checks structurally (defaults: nothing named) --

    def named_tools(self, contract: Any) -> Iterator[tuple[Loc, str]]:
        """``(location, tool)`` for every tool the family's declarations name."""
        return iter(())

    def argument_uses(self, contract: Any) -> Iterator[ArgumentUse]:
        return iter(())

    def state_paths(self, contract: Any) -> Iterator[StatePathUse]:
        return iter(())

    def consistency(self, contract: Any) -> Iterator[tuple[Loc, str]]:
        """Contradictions with the rest of the contract (a tool both expected and forbidden)."""
        return iter(())

    def contract_rows(self, contract: Any) -> Iterator[ContractRow]:
        """The state paths the family names, for a report's initial-vs-final table."""
        return iter(())


def verdict(label: str, name: str, ok: bool, expected: Any, actual: Any, diff: str) -> CheckVerdict:
    return CheckVerdict(
        family=label,
        name=name,
        status="passed" if ok else "failed",
        expected=expected,
        actual=actual,
        diff="" if ok else diff,
    )
