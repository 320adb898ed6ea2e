"""The information-sufficiency audit: could the simulated user and the tools supply every value?

Every literal argument of a gold path must appear in the user's private instruction or in what an
earlier gold call returned (a result, or a rejection the agent reads); otherwise no agent can
send it and the task is broken (spec case C: a PIN the user was never given). Not audited:
``$from`` references (taken from an earlier result by construction), values the tool schema
offers as choices (enums, literals, booleans), and arguments the manifest declares free text
(memos, reasons: prose the agent composes). A task may exempt a value with a written reason.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pytest_crmbench.core.errors import SpecError
from pytest_crmbench.core.evidence import Evidence, ToolCall
from pytest_crmbench.core.loader import TaskRecord
from pytest_crmbench.core.matchers import as_decimal, values_equal
from pytest_crmbench.core.spec import Exemption, GoldCall, gold_reference
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.release.taskset import problem

CHECK = "information_sufficiency"

_NUMBER = re.compile(r"(?<![\w.-])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w-])")
"""Numbers as people write them: ``1000``, ``1,000``, ``$1,000.00`` (the ``$`` is outside the
match). Digits glued to letters or hyphens on either side (``ACC-1001``, ``2026-03``,
``1000-A``) are ids, not numbers."""


def numbers_in(text: str) -> set[Decimal]:
    """Every number written in a text, as exact decimals (``$1,000.00`` -> ``1000.00``)."""
    return {Decimal(m.group(1).replace(",", "") + (m.group(2) or "")) for m in _NUMBER.finditer(text)}


@dataclass
class Knowledge:
    """What the conversation can have revealed so far: texts and numbers."""

    texts: list[str] = field(default_factory=list)
    numbers: set[Decimal] = field(default_factory=set)

    def learn_text(self, text: str) -> None:
        self.texts.append(text.casefold())
        self.numbers |= numbers_in(text)

    def learn(self, tree: Any) -> None:
        """Every key, string and number of a tool result or rejection."""
        if isinstance(tree, Mapping):
            for key, value in tree.items():
                self.learn(key)
                self.learn(value)
        elif isinstance(tree, (list, tuple)):
            for value in tree:
                self.learn(value)
        elif isinstance(tree, str):
            self.learn_text(tree)
        elif (number := as_decimal(tree)) is not None:
            self.numbers.add(number)

    def knows(self, value: Any) -> bool:
        if value is None or isinstance(value, bool):
            return True
        if isinstance(value, (list, tuple)):
            return all(self.knows(v) for v in value)
        if isinstance(value, Mapping):
            return all(self.knows(v) for v in value.values())
        # A number, or a numeric string standing for one (``amount: "1000.00"``), is known when the
        # same value was written anywhere, however it was formatted ("$1,000").
        number = as_decimal(value)
        if number is not None and number in self.numbers:
            return True
        if number is not None and not isinstance(value, str):
            return False
        # Whole tokens only: ``ACC-100`` is not revealed by ``ACC-1001``, nor ``ACC-1`` by ``ACC-1-OLD``.
        pattern = re.compile(r"(?<![A-Za-z0-9])" + re.escape(str(value).casefold()) + r"(?![A-Za-z0-9]|-[A-Za-z0-9])")
        return any(pattern.search(text) for text in self.texts)


def _is_choice(schema: Mapping[str, Any]) -> bool:
    """The schema offers the value as a choice (enum, literal, boolean), possibly nullable."""
    if "enum" in schema or "const" in schema or schema.get("type") in ("boolean", "null"):
        return True
    options = schema.get("anyOf")
    return isinstance(options, list) and all(_is_choice(option) for option in options)


def _choice_arguments(environment: type[ToolEnvironment], tool: str) -> set[str]:
    spec = environment.tools.get(tool)
    if spec is None:
        return set()
    properties = spec.json_schema()["function"]["parameters"].get("properties", {})
    return {name for name, schema in properties.items() if _is_choice(schema)}


def information_problems(
    record: TaskRecord, evidence: Evidence, environment: type[ToolEnvironment], free_text: Collection[str]
) -> Iterator[SpecError]:
    """Values of the gold path nobody in the conversation could have supplied.

    :param evidence: the gold replay of the task; its trace holds one call per gold step.
    :param free_text: ``tool.argument`` names whose values are prose the agent writes itself.
    """
    task = record.task
    knowledge = Knowledge()
    knowledge.learn_text(task.user.text())
    exemptions = {i: e for i, e in enumerate(task.exemptions) if e.check == CHECK}
    used: set[int] = set()
    for index, (step, call) in enumerate(zip(task.gold.path, evidence.tool_calls, strict=False)):
        for name, value in _audited_arguments(step, environment, free_text):
            if knowledge.knows(value):
                continue
            exempt = _exemption(exemptions, value)
            if exempt is not None:
                used.add(exempt)
                continue
            yield problem(
                record,
                ("gold", "path", index, "args", name),
                f"{step.tool}.{name} = {value!r} appears neither in the user instruction nor in an earlier gold "
                "result: the simulated user cannot supply it (add it to user.known, or add an exemption with a reason)",
            )
        _learn_call(knowledge, call)
    for index, exemption in exemptions.items():
        if index not in used:
            yield problem(
                record, ("exemptions", index), f"unused exemption: no gold argument needs {exemption.value!r}"
            )


def _audited_arguments(
    step: GoldCall, environment: type[ToolEnvironment], free_text: Collection[str]
) -> Iterator[tuple[str, Any]]:
    """The literal arguments someone in the conversation has to supply."""
    choices = _choice_arguments(environment, step.tool)
    for name, value in step.args.items():
        if name not in choices and f"{step.tool}.{name}" not in free_text and gold_reference(value) is None:
            yield name, value


def _exemption(exemptions: Mapping[int, Exemption], value: Any) -> int | None:
    return next((i for i, e in exemptions.items() if values_equal(e.value, value)), None)


def _learn_call(knowledge: Knowledge, call: ToolCall) -> None:
    # The agent reads a rejection as well as a result (an error message can name a balance).
    knowledge.learn(call.result if call.status == "ok" else call.error)
