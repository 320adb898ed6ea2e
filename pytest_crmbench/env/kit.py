"""What every domain's tools need, on ``self``: records, seeded ids, the clock, world invariants.

:class:`Kit` is the base of :class:`~pytest_crmbench.env.environment.ToolEnvironment`; nothing here
knows about tool calls. Records and ids:

* ``self.get("accounts", account_id)`` — the live record, or a 404 rejection
  ``ACCOUNT_NOT_FOUND`` naming the argument (``param="from_account"`` when it is not the
  record's id field). ``owner=customer_id`` adds a 403 ``NOT_OWNER`` when the record's
  ``owner_field`` holds someone else.
* ``self.insert("transfers", {...})`` — validates the record through its model, gives it a fresh
  seeded id (``XFER-HD10VI``) in its id field, stores it and returns the stored record.

The clock starts at ``clock_start`` and is the same in every run: ``self.today()`` is its date,
``self.stamp()`` an ISO timestamp one second later than the previous one, ``self.age_days(iso)``
how many days before today a date or timestamp lies.

World invariants are methods marked ``@invariant`` that yield :class:`Violation` for a broken
rule; ``crmbench validate`` runs them on the seed and on every task's initial state. Two families
need no method, they follow from the state model: a keyed record's id field equals its key, and
every :class:`~pytest_crmbench.env.state.Ref` field names an existing record
(``leads.LEAD-1.owner_id: names no rep``).
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ValidationError

from pytest_crmbench.env.rejection import Rejection
from pytest_crmbench.env.state import (
    Collection,
    StateError,
    collection,
    collections_of,
    dangling,
    problems_of,
)

InvariantMethod = Callable[[Any], Iterable["Violation"]]
M = TypeVar("M", bound=InvariantMethod)


@dataclass(frozen=True)
class Violation:
    """A broken world rule at a dotted state path (``accounts.ACC-1002.balance``)."""

    path: str
    message: str


def invariant(method: M) -> M:
    """Mark a method that yields a :class:`Violation` for every place the world breaks a rule.

    ::

        @invariant
        def refunds_add_up(self) -> Iterator[Violation]:
            for txn_id, txn in self.state["transactions"].items():
                if sum_of_refunds(txn) != txn["refunded_amount"]:
                    yield Violation(f"transactions.{txn_id}.refunded_amount", "differs from its refunds")
    """
    method.__crm_invariant__ = True  # type: ignore[attr-defined]
    return method


def day_of(value: str) -> date:
    """The calendar date of an ISO date or timestamp (in its own offset)."""
    return datetime.fromisoformat(value).date()


class Kit:
    """Helpers for tools. Subclasses (``ToolEnvironment``) set up ``state``, ``rng`` and the clock."""

    state_model: ClassVar[type[BaseModel] | None] = None
    """The domain's typed world (see :mod:`pytest_crmbench.env.state`); None keeps the tree untyped."""

    clock_start: ClassVar[str] = "2026-03-02T09:00:00+00:00"
    """The domain's 'now' at reset; :meth:`now` advances one second per call, deterministically."""

    invariants: ClassVar[dict[str, InvariantMethod]] = {}

    state: dict[str, Any]
    lookups: list[tuple[str, str, str | None]] | None = None
    """While a tool runs (in a domain declaring conduct rules): every record :meth:`get` looked up."""
    rng: random.Random
    _issued_ids: set[str]
    _ticks: int

    # -- ids and records -------------------------------------------------------------------

    def new_id(self, prefix: str, length: int = 6) -> str:
        """A fresh id like ``XFER-HD10VI`` from the seeded RNG, unique within this episode."""
        alphabet = string.ascii_uppercase + string.digits
        while True:
            candidate = f"{prefix}-" + "".join(self.rng.choice(alphabet) for _ in range(length))
            if candidate not in self._issued_ids:
                self._issued_ids.add(candidate)
                return candidate

    def get(
        self, collection_name: str, record_id: str, *, param: str | None = None, owner: str | None = None
    ) -> dict[str, Any]:
        """The live record ``record_id`` of a keyed collection, or a 404 naming ``param``.

        ``param`` is the tool argument that carried the id (default: the record's id field).
        With ``owner``, a record whose ``owner_field`` differs is a 403 ``NOT_OWNER``.
        """
        info = self._collection(collection_name)
        noun = info.record.noun if info else collection_name.removesuffix("s").replace("_", " ")
        param = param or (info.record.id_field if info else None)
        record = self.state[collection_name].get(record_id)
        if self.lookups is not None:
            self.lookups.append((collection_name, record_id, param))
        if record is None:
            code = noun.upper().replace(" ", "_") + "_NOT_FOUND"
            raise Rejection(404, code, f"No {noun} with id {record_id!r}.", param=param)
        owner_field = info.record.owner_field if info else None
        if owner is not None and owner_field is not None and record[owner_field] != owner:
            raise Rejection(
                403, "NOT_OWNER", f"{noun.capitalize()} {record_id} does not belong to {owner}.", param=param
            )
        return record  # type: ignore[no-any-return]

    def insert(self, collection_name: str, record: dict[str, Any]) -> dict[str, Any]:
        """Validate ``record``, give it a fresh id (when its model has an id field), store it, return it.

        A record the model refuses is a bug in the tool: :class:`StateError` names the field.
        """
        info = self._collection(collection_name)
        if info is None:
            raise TypeError(f"{type(self).__name__}.insert needs a state_model describing {collection_name!r}")
        id_field = info.record.id_field
        if info.keyed and id_field is None:
            raise TypeError(f"{info.record.__name__} has no id field: cannot insert into keyed {collection_name!r}")
        fields = dict(record)
        record_id = self._fresh_id(info) if id_field is not None else ""
        if id_field is not None:
            fields[id_field] = record_id
        try:
            stored = info.record.model_validate(fields).model_dump(mode="python", by_alias=True)
        except ValidationError as exc:
            raise StateError(problems_of(exc), where=f"{collection_name}.<new>") from None
        if info.keyed:
            self.state[collection_name][record_id] = stored
        else:
            self.state[collection_name].append(stored)
        return stored

    def _collection(self, name: str) -> Collection | None:
        model = type(self).state_model
        return collection(model, name) if model is not None else None

    def _fresh_id(self, info: Collection) -> str:
        if not info.record.id_prefix:
            raise TypeError(f"{info.record.__name__} needs an id_prefix to get generated ids")
        taken = self.state[info.name] if info.keyed else ()
        while True:
            candidate = self.new_id(info.record.id_prefix)
            if candidate not in taken:
                return candidate

    # -- the clock -------------------------------------------------------------------------

    def now(self) -> datetime:
        """The domain clock: ``clock_start`` plus one second per call since reset."""
        self._ticks += 1
        return datetime.fromisoformat(self.clock_start) + timedelta(seconds=self._ticks)

    def stamp(self) -> str:
        """:meth:`now` as an ISO timestamp, for ``created_at`` fields."""
        return self.now().isoformat()

    def today(self) -> date:
        """The domain's calendar date (the date of ``clock_start``; it does not tick)."""
        return day_of(self.clock_start)

    def age_days(self, value: str) -> int:
        """Whole days from the date of ``value`` (ISO date or timestamp) to :meth:`today`."""
        return (self.today() - day_of(value)).days

    # -- invariants ------------------------------------------------------------------------

    def violations(self) -> list[Violation]:
        """Every broken world rule of the current state; an invariant that crashes is one too."""
        found = [*self._ids_match_keys(), *self._references_resolve()]
        for name, method in self.invariants.items():
            try:
                found.extend(method(self))
            except Exception as exc:  # a dangling reference in an override must be reported, not crash
                found.append(Violation("", f"invariant {name} could not run: {type(exc).__name__}: {exc}"))
        return found

    def _ids_match_keys(self) -> Iterator[Violation]:
        model = type(self).state_model
        if model is None:
            return
        for info in collections_of(model):
            id_field = info.record.id_field
            if info.keyed and id_field is not None:
                for key, record in self.state[info.name].items():
                    if record[id_field] != key:
                        message = f"is {record[id_field]!r} but the record is stored under {key!r}"
                        yield Violation(f"{info.name}.{key}.{id_field}", message)

    def _references_resolve(self) -> Iterator[Violation]:
        model = type(self).state_model
        if model is None:
            return
        for path, reference in dangling(model, self.state):
            yield Violation(path, f"names no {collection(model, reference.collection).record.noun}")


def collect_invariants(cls: type) -> dict[str, InvariantMethod]:
    """The ``@invariant`` methods of ``cls`` and its bases, bases first."""
    found: dict[str, InvariantMethod] = {}
    for klass in reversed(cls.__mro__):
        for name, value in vars(klass).items():
            if getattr(value, "__crm_invariant__", False):
                found[name] = value
    return found
