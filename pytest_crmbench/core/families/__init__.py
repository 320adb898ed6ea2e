"""The registered check families, and the task contract assembled from them.

Every module of this package that defines ``FAMILY`` (a :class:`~.base.CheckFamily`) is a family;
nothing else names them. From them come the :data:`Contract` model (each family's fields, in
family position), the primary-label priority (:data:`LABEL_PRIORITY`), the checks the grader runs
and the table-2 rows the inventory counts.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING, Any

from pydantic import Field, create_model, model_validator

from pytest_crmbench.core.families.base import (
    CheckFamily,
    CheckVerdict,
    ContractField,
    FieldGroup,
    FrozenModel,
    Loc,
    check_name_parts,
)

if TYPE_CHECKING:
    from pytest_crmbench.core.evidence import Evidence

_SUPPORT_MODULES = frozenset({"base", "trace"})


def _discover() -> tuple[CheckFamily, ...]:
    found = []
    for module in pkgutil.iter_modules(__path__):
        if module.name in _SUPPORT_MODULES:
            continue
        family = getattr(importlib.import_module(f"{__name__}.{module.name}"), "FAMILY", None)
        if isinstance(family, CheckFamily):
            found.append(family)
    families = tuple(sorted(found, key=lambda f: f.position))
    _check_registry(families)
    return families


def _check_registry(families: tuple[CheckFamily, ...]) -> None:
    # Two families with one label, position or check kind would make verdicts ambiguous.
    for attribute in ("label", "position", "precedence"):
        values = [getattr(f, attribute) for f in families]
        if len(set(values)) != len(values):
            raise RuntimeError(f"two check families share a {attribute}: {values}")
    labels = {f.label for f in families}
    strays = [field.kind for f in families for field in f.fields if field.label and field.label not in labels]
    if strays:
        raise RuntimeError(f"contract fields labelled as no family: {strays}")
    kinds = [field.kind for f in families for field in f.fields]
    rows = [field.row for f in families for field in f.fields]
    if len(set(kinds)) != len(kinds) or len(set(rows)) != len(rows):
        raise RuntimeError(f"two contract fields share a check kind or a table-2 row: {kinds} {rows}")


FAMILIES: tuple[CheckFamily, ...] = _discover()
"""Every family, in position order (as a contract writes them and table 2 lists them)."""

LABELS: tuple[str, ...] = tuple(f.label for f in FAMILIES)

LABEL_PRIORITY: tuple[str, ...] = (*(f.label for f in sorted(FAMILIES, key=lambda f: f.precedence)), "execution")
"""Primary-label priority of spec §A.2: a failed task is labelled by its first failed check in this
order. ``execution`` (non-convergence at the limits, an agent abort or crash, which fail the task
whatever its checks say, spec §A.1) comes last: figure 13's "tool-call error" slice holds only
such tasks with no failed check."""

PROGRAMMATIC: tuple[CheckFamily, ...] = tuple(f for f in FAMILIES if not f.judged)
"""The families :func:`programmatic_checks` decides, in position order (the judge decides the rest)."""

GRADING_ORDER: tuple[CheckFamily, ...] = (*PROGRAMMATIC, *(f for f in FAMILIES if f.judged))
"""The order of a task's verdicts and of figure 14's columns: programmatic families, then judged ones."""

FIELDS: tuple[ContractField[Any], ...] = tuple(field for f in FAMILIES for field in f.fields)
"""Every contract field, in family position: one table-2 row each."""

NEGATIVE_KINDS: frozenset[str] = frozenset(
    [*(field.kind for field in FIELDS if field.negative), *(kind for f in FAMILIES for kind in f.negative_kinds)]
)
"""Check kinds that are negative assertions (spec §B.8: forbidden actions, parameters, protected
paths; and our conduct rules, table 8's safety compliance)."""

SPEC_LABELS: frozenset[str] = frozenset(f.label for f in FAMILIES if f.spec)
"""Labels of the specification's own families: strict accuracy over these alone is the spec's protocol."""


def family(label: str) -> CheckFamily:
    """The family with this label (``KeyError`` for an unknown one)."""
    for candidate in FAMILIES:
        if candidate.label == label:
            return candidate
    raise KeyError(label)


def field_of_check(check_name: str) -> ContractField[Any] | None:
    """The contract field a check's name (``forbidden.param[0] refund``) comes from."""
    parts = check_name_parts(check_name)
    return next((f for f in FIELDS if parts and f.kind == parts[0]), None)


def kind_of(check_name: str) -> str:
    """The kind of a check from its name: ``forbidden.param`` for ``forbidden.param[0] refund``."""
    return check_name.split("[", 1)[0]


# -- the contract model --------------------------------------------------------------------------


class FieldGroupModel(FrozenModel):
    """A sub-mapping of the contract (``forbidden:``)."""


class ContractBase(FrozenModel):
    """Only the checks that apply. An empty family is undeclared: absent, never an automatic pass."""

    @model_validator(mode="before")
    @classmethod
    def _prepared(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for each in FAMILIES:
                data = each.prepare(data)
        return data

    @model_validator(mode="after")
    def _declares_a_check(self) -> ContractBase:
        # An undeclared check is absent, not a pass (spec §A.2): a contract without any check
        # would make every agent succeed.
        if not any(each.declared(self) for each in FAMILIES):
            raise ValueError("a contract must declare at least one check (an empty contract would pass any agent)")
        return self

    def has_positive_check(self) -> bool:
        """Whether a do-nothing agent could fail this contract (it declares something to achieve)."""
        return any(each.positive and each.declared(self) for each in FAMILIES)


def _contract_fields() -> dict[str, Any]:
    top: dict[str, Any] = {}
    groups: dict[str, tuple[FieldGroup, dict[str, Any]]] = {}
    for each in FAMILIES:
        for field in each.fields:
            spec = (field.annotation, Field(default_factory=field.default_factory, description=field.description))
            if len(field.location) == 1:
                top[field.location[0]] = spec
                continue
            key, name = field.location
            if each.group is None or each.group.key != key:
                raise RuntimeError(f"{type(each).__name__}: field {'.'.join(field.location)} outside its group")
            if key not in groups:
                groups[key] = (each.group, {})
                top[key] = None  # keeps the group's place among the fields
            groups[key][1][name] = spec
    for key, (group, fields) in groups.items():
        model = create_model(group.title, __base__=FieldGroupModel, __doc__=group.doc, __module__=__name__, **fields)
        globals()[group.title] = model  # importable (and picklable) by its name
        top[key] = (model, Field(default_factory=model))
    return top


if TYPE_CHECKING:

    class Contract(ContractBase):
        """The task contract: one field per registered family field (see :data:`FIELDS`)."""

        def __init__(self, **data: Any) -> None: ...
        def __getattr__(self, name: str) -> Any: ...

    class Forbidden(FieldGroupModel):
        def __init__(self, **data: Any) -> None: ...
        def __getattr__(self, name: str) -> Any: ...

else:
    Contract = create_model(
        "Contract", __base__=ContractBase, __doc__=ContractBase.__doc__, __module__=__name__, **_contract_fields()
    )


def programmatic_checks(contract: Contract, evidence: Evidence) -> list[CheckVerdict]:
    """Every declared programmatic check, family by family in grading order."""
    return [verdict for each in PROGRAMMATIC for verdict in each.check(contract, evidence)]


def declarations(contract: Contract) -> dict[str, int]:
    """Declarations per table-2 row (a state declaration is one leaf path, a parameter declaration
    one task-tool specification, an expected action one list entry)."""
    return {field.row: field.count(contract) for field in FIELDS}


def declared_at(contract: Contract, check_name: str) -> Loc:
    """Where in the task record the contract entry a check comes from is written, from the check's
    name (``state[0] accounts.A.balance`` -> ``("contract", "expected_state", "accounts.A.balance")``).

    The one mapping from verdicts to YAML, for failing checks in pytest and for the HTML report.
    ``()`` when the entry cannot be told (a check of another version of the contract).
    """
    parts = check_name_parts(check_name)
    if parts is None:
        return ()
    kind, index, subject = parts
    for each in FAMILIES:
        if any(field.kind == kind for field in each.fields):
            return each.declared_at(kind, index, subject, contract)
    return ()
