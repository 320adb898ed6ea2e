"""The typed state model of a domain and the plain state tree tools work on.

A domain declares its world once, as pydantic models::

    class Account(Record):
        id_prefix = "ACC"                     # ids insert() generates: ACC-7QX2KD
        account_id: str                       # the id field: <snake_case class name>_id by default
        balance: Money = Field(ge=0)

    class BankState(BaseModel):
        accounts: dict[str, Account]          # a keyed collection: accounts.<id>
        audit_log: list[AuditEntry]           # an append-only collection: audit_log.<index>

**References.** A field holding the id of another record says so with :class:`Ref`, naming the
keyed collection the id must be a key of; :func:`dangling` finds every id that is not::

    AccountId = Annotated[str, Ref("accounts")]

    class Transfer(Record):
        from_account: AccountId                               # must be a key of accounts
        refund_id: AccountId | None = None                    # None is no reference
        cc: list[AccountId] = []                              # each element is checked
        holds: dict[AccountId, int] = {}                      # each key is checked

The annotation is metadata only: validation and JSON schemas are those of the plain ``str``.

    class BankEnvironment(ToolEnvironment):
        state_model = BankState

**One source of truth.** Tools read and write ``self.state``, a plain tree of dicts, lists and
scalars (money as ``Decimal``) that contracts address with dotted paths. The model decides what
that tree may hold: :func:`canonical` validates a tree through the model and dumps it back, every
field present, values coerced (money as two-place Decimals). The environment applies it to the
seed once per process, to a task's merged ``initial_state`` at every reset, and to the state after
every successful ``write`` tool; so the tree always equals its own canonical dump, and a tool that
writes a value the model refuses is a bug caught at that call, not a silently wrong world.
"""

from __future__ import annotations

import enum
import functools
import re
import types
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any, ClassVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from pytest_crmbench.core.errors import CrmbenchError, EnvironmentDefinitionError


class Record(BaseModel):
    """Base of every record in a state model: unknown fields are errors; ids come from the class.

    ``id_prefix`` is the prefix of ids :meth:`ToolEnvironment.insert` generates (``XFER`` ->
    ``XFER-HD10VI``). ``id_field`` names the field holding the record's own id; by default
    ``<snake_case class name>_id`` when the model has that field (``PaymentMethod`` ->
    ``payment_method_id``), else None (the key alone is the id). Defaults are validated and stored
    in canonical form like any other value. ``owner_field`` names the field
    that binds a record to a customer, for ``get(..., owner=...)``. ``noun`` is how rejections
    name the record ("No payment method with id ..."), from the class name by default.
    """

    # Defaults are validated like any value: ``Field(default=0)`` on money is stored as
    # ``Decimal("0.00")``, as the canonical tree requires, not as the int 0 (which once passed the
    # gate and failed pytest on a serializer warning).
    model_config = ConfigDict(extra="forbid", populate_by_name=True, validate_default=True)

    id_prefix: ClassVar[str] = ""
    id_field: ClassVar[str | None] = None
    owner_field: ClassVar[str | None] = None
    noun: ClassVar[str] = ""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        words = re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", cls.__name__)
        if not cls.__dict__.get("noun"):
            cls.noun = " ".join(word.lower() for word in words)
        if "id_field" not in cls.__dict__:
            default = "_".join(word.lower() for word in words) + "_id"
            cls.id_field = default if default in cls.model_fields else None


class StateError(CrmbenchError):
    """A state tree the model refuses: one ``(dotted path, message)`` per problem."""

    def __init__(self, problems: list[tuple[str, str]], *, where: str = "state") -> None:
        self.problems = problems
        self.where = where
        super().__init__(
            "; ".join(f"{where}.{path}: {message}" if path else f"{where}: {message}" for path, message in problems)
        )


def canonical(model: type[BaseModel], tree: Mapping[str, Any], *, where: str = "state") -> dict[str, Any]:
    """``tree`` validated by ``model`` and dumped back: every field present, values coerced.

    Raises :class:`StateError` naming every refused field by its dotted path under ``where``.
    """
    try:
        validated = model.model_validate(tree)
    except ValidationError as exc:
        raise StateError(problems_of(exc), where=where) from None
    dumped: dict[str, Any] = validated.model_dump(mode="python", by_alias=True)
    return dumped


def revalidated(model: type[BaseModel], state: dict[str, Any], before: Mapping[str, Any]) -> dict[str, Any]:
    """``state`` after a write, canonical again: what differs from ``before`` is validated and dumped.

    ``before`` is the canonical state the write started from. Only the records (or top-level
    fields) the write changed go through the model, so a write costs a fraction of a millisecond,
    not a whole validation. Records are compared by value: every changed value ends canonical,
    but a record whose values all stayed equal is skipped even if a tool rewrote one with an
    equal value of another type (``0`` for ``Decimal("0.00")``); grading compares numbers by
    value, and tests can check the exact form with :func:`identical`. Rules across records
    belong in ``@invariant`` methods (validators on the state model are not re-run here).
    """
    if set(state) != set(before):  # a tool added or dropped a top-level key: check everything
        return canonical(model, state, where="state")
    for name, field in model.model_fields.items():
        key = field.alias or name
        now, was = state.get(key), before.get(key)
        if now == was:  # by value, at C speed
            continue
        info = _collection_or_none(model, name)
        if info is not None and isinstance(now, dict if info.keyed else list):
            _revalidate_records(info, key, now, was)
        else:
            state[key] = _dump(_field_adapter(model, name), now, where=f"state.{key}")
    return state


def _revalidate_records(info: Collection, key: str, now: Any, was: Any) -> None:
    adapter = _record_adapter(info.record)
    if info.keyed:
        old = was if isinstance(was, dict) else {}
        for record_id, record in now.items():
            if old.get(record_id) != record:
                now[record_id] = _dump(adapter, record, where=f"state.{key}.{record_id}")
    else:
        old_list = was if isinstance(was, list) else []
        for index, record in enumerate(now):
            if index >= len(old_list) or old_list[index] != record:
                now[index] = _dump(adapter, record, where=f"state.{key}.{index}")


def identical(a: Any, b: Any) -> bool:
    """Equal and of the same types throughout: ``1 == 1.0 == Decimal("1.00")`` are not identical,
    so a tool that writes a float or an unquantised amount over an equal value is still caught."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return a.keys() == b.keys() and all(identical(value, b[key]) for key, value in a.items())
    if type(a) is list:
        return len(a) == len(b) and all(map(identical, a, b))
    if type(a) is Decimal:
        return a.as_tuple() == b.as_tuple()  # type: ignore[no-any-return]
    return a == b  # type: ignore[no-any-return]


def _dump(adapter: TypeAdapter[Any], value: Any, *, where: str) -> Any:
    try:
        return adapter.dump_python(adapter.validate_python(value), mode="python", by_alias=True)
    except ValidationError as exc:
        raise StateError(problems_of(exc), where=where) from None


@functools.cache
def _record_adapter(record: type[Record]) -> TypeAdapter[Any]:
    return TypeAdapter(record)


@functools.cache
def _field_adapter(model: type[BaseModel], name: str) -> TypeAdapter[Any]:
    return TypeAdapter(model.model_fields[name].rebuild_annotation())


def _collection_or_none(model: type[BaseModel], name: str) -> Collection | None:
    return next((info for info in collections_of(model) if info.name == name), None)


def problems_of(exc: ValidationError) -> list[tuple[str, str]]:
    """``(dotted path, message)`` per pydantic error; validator names in locations are dropped."""
    problems = []
    for error in exc.errors(include_url=False):
        parts = [str(part) for part in error["loc"] if isinstance(part, int) or ("[" not in part and "(" not in part)]
        problems.append((".".join(parts), error["msg"]))
    return problems


@dataclass(frozen=True)
class Collection:
    """One field of a state model that holds records: keyed by id (a dict) or appended to (a list)."""

    name: str
    record: type[Record]
    keyed: bool


@functools.cache
def collections_of(model: type[BaseModel]) -> tuple[Collection, ...]:
    """Every field of the state model that is a ``dict[str, Record]`` or a ``list[Record]``."""
    found = []
    for name, field in model.model_fields.items():
        origin, args = get_origin(field.annotation), get_args(field.annotation)
        record = args[-1] if args else None
        if origin in (dict, list) and isinstance(record, type) and issubclass(record, Record):
            found.append(Collection(name, record, keyed=origin is dict))
    return tuple(found)


def collection(model: type[BaseModel], name: str) -> Collection:
    """The collection ``name`` of the state model; an error when it is not one."""
    for info in collections_of(model):
        if info.name == name:
            return info
    raise EnvironmentDefinitionError(
        f"{model.__name__}.{name} is not a collection: declare it as dict[str, <Record>] or list[<Record>]"
    )


@dataclass(frozen=True)
class Ref:
    """``Annotated[str, Ref("accounts")]``: the field holds the key of a record of ``accounts``.

    The collection must be a keyed collection (``dict[str, Record]``) of the state model. On an
    optional field None is no reference; on ``list[str]`` every element is one (as on
    ``list[Annotated[str, Ref(...)]]``); on a dict's key type every key is one. The world
    invariants (:meth:`Kit.violations`) report each id that is not a key, as "names no <noun>".
    """

    collection: str


class _Each(enum.Enum):
    ITEM = "[i]"
    KEY = "{key}"
    VALUE = "{value}"


Step = str | _Each


@dataclass(frozen=True)
class Reference:
    """One place of the state tree that holds ids of ``collection``: ``where`` is the field path
    from the root, where :class:`_Each` steps stand for every list item, dict key or dict value."""

    where: tuple[Step, ...]
    collection: str

    def __str__(self) -> str:
        return _dotted(self.where)


@functools.cache
def references_of(model: type[BaseModel]) -> tuple[Reference, ...]:
    """Every :class:`Ref` of the state model, nested records and models included; an error for a
    Ref naming no keyed collection of it or placed on a type that holds no ids."""
    try:
        found = tuple(_references_in_model(model, (), frozenset()))
    except EnvironmentDefinitionError as exc:
        raise EnvironmentDefinitionError(f"{model.__name__}.{exc}") from None
    keyed = {info.name for info in collections_of(model) if info.keyed}
    for reference in found:
        if reference.collection not in keyed:
            raise EnvironmentDefinitionError(
                f"{model.__name__}.{reference}: Ref({reference.collection!r}) names no keyed collection"
                f" (dict[str, <Record>]) of the state model"
            )
    return found


def reference_values(model: type[BaseModel], state: Mapping[str, Any]) -> Iterator[tuple[str, Any, Reference]]:
    """``(dotted path, value, reference)`` for every place of ``state`` a :class:`Ref` annotates
    (None included: an optional reference that is not set)."""
    for reference in references_of(model):
        for path, value in _values_at(state, reference.where, ()):
            yield ".".join(path), value, reference


def dangling(model: type[BaseModel], state: Mapping[str, Any]) -> Iterator[tuple[str, Reference]]:
    """``(dotted path, reference)`` for every id in ``state`` that is no key of its collection."""
    for path, value, reference in reference_values(model, state):
        if value is not None and value not in (state.get(reference.collection) or {}):
            yield path, reference


def _values_at(node: Any, where: tuple[Step, ...], path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    if not where:
        yield path, node
        return
    step, rest = where[0], where[1:]
    if step is _Each.ITEM and isinstance(node, list):
        for index, item in enumerate(node):
            yield from _values_at(item, rest, (*path, str(index)))
    elif step is _Each.KEY and isinstance(node, dict):
        for key in node:
            yield (*path, str(key)), key
    elif step is _Each.VALUE and isinstance(node, dict):
        for key, value in node.items():
            yield from _values_at(value, rest, (*path, str(key)))
    elif isinstance(step, str) and isinstance(node, dict) and step in node:
        yield from _values_at(node[step], rest, (*path, step))


def _references_in_model(
    model: type[BaseModel], where: tuple[Step, ...], seen: frozenset[type[BaseModel]]
) -> Iterator[Reference]:
    if model in seen:  # a recursive model: its references are found where it first appears
        return
    for name, field in model.model_fields.items():
        yield from _references_in(field.rebuild_annotation(), (*where, field.alias or name), seen | {model})


def _references_in(annotation: Any, where: tuple[Step, ...], seen: frozenset[type[BaseModel]]) -> Iterator[Reference]:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        base = args[0]
        for ref in (meta for meta in args[1:] if isinstance(meta, Ref)):
            yield Reference((*where, *_id_steps(base, ref, where)), ref.collection)
        yield from _references_in(base, where, seen)
    elif origin in (Union, types.UnionType):
        for arg in args:
            yield from _references_in(arg, where, seen)
    elif origin in (list, tuple, set, frozenset) and args:
        yield from _references_in(args[0], (*where, _Each.ITEM), seen)
    elif origin is dict and len(args) == 2:
        yield from _references_in(args[0], (*where, _Each.KEY), seen)
        yield from _references_in(args[1], (*where, _Each.VALUE), seen)
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield from _references_in_model(annotation, where, seen)


def _id_steps(base: Any, ref: Ref, where: tuple[Step, ...]) -> tuple[Step, ...]:
    """How to reach the ids from a value of ``base``: a str (or str | None) is one, list[str] holds them."""
    kinds = [_unannotated(arg) for arg in _alternatives(base) if arg is not type(None)]
    if kinds == [str]:
        return ()
    if len(kinds) == 1 and get_origin(kinds[0]) is list and [_unannotated(a) for a in get_args(kinds[0])] == [str]:
        return (_Each.ITEM,)
    raise EnvironmentDefinitionError(
        f"{_dotted(where)}: Ref({ref.collection!r}) is on {base!r}; put it on a str, str | None or list[str]"
        " (for a dict, on its key or value type)"
    )


def _alternatives(annotation: Any) -> tuple[Any, ...]:
    return get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else (annotation,)


def _unannotated(annotation: Any) -> Any:
    return get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation


def _dotted(where: tuple[Step, ...]) -> str:
    return ".".join(step if isinstance(step, str) else step.value for step in where)
