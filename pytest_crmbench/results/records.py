"""Result records: one JSON-safe line per finished task x trial (DESIGN §6, issue 5).

A record is built where the episode ran (an xdist worker, say) and travels to the controller in
``item.user_properties`` as JSON *text*: a string always crosses execnet, so a value json cannot
encode fails here, on the worker, where it is replaced by an ``error`` record naming the problem
instead of crashing the worker or vanishing (pytest-xdist#552). The controller is the only
process that writes records to disk.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench.core.evidence import FAILED_TERMINATIONS, Evidence, Usage, jsonable
from pytest_crmbench.core.families import NEGATIVE_KINDS, SPEC_LABELS, kind_of
from pytest_crmbench.core.spec import Task
from pytest_crmbench.grading.verdict import TaskVerdict
from pytest_crmbench.run.settings import RunSettings

RESULT_PROPERTY = "crm_result"
"""``user_properties`` name of a record's JSON text."""
TRACE_PROPERTY = "crm_trace"
"""``user_properties`` name of a trajectory's JSON text (only when a run directory is written)."""

RecordOutcome = Literal["success", "failure", "infra", "not_judged", "error"]
"""``error``: the harness produced no result for a collected item (worker crash, fixture error,
unserialisable data). Like ``infra`` it is not scored, and it is always shown."""

UNSCORED: frozenset[str] = frozenset({"infra", "error"})
"""Outcomes excluded from the scored denominator (spec §A.3). ``not_judged`` is scored: it is a
non-success, never a pass."""


ROLES = ("agent", "user", "judge")


class CheckRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    family: str
    name: str
    status: Literal["passed", "failed", "not_judged"]
    expected: Any = None
    actual: Any = None
    diff: str = ""


class UsageRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: str | None = Field(None, description="Exact decimal string; None when some call's price is unknown.")
    latency_s: float = 0.0


class ResultRecord(BaseModel):
    """One finished task x trial. ``trial`` is 0-based; node ids show it 1-based (``id[t1]``)."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    trial: int = 0
    run_id: str | None = Field(default=None, description="The run (manifest run_id) this result belongs to.")
    nodeid: str | None = None
    domain: str | None = None
    difficulty: str | None = None
    capabilities: list[str] = Field(default_factory=list)
    seed: int | None = None
    agent: str | None = None
    model: str | None = None
    outcome: RecordOutcome
    termination: str | None = None
    primary_label: str | None = None
    checks: list[CheckRecord] = Field(default_factory=list, description="Declared checks only.")
    usage: dict[str, UsageRecord | None] = Field(default_factory=dict, description="Per role; None when absent.")
    latency_s: float | None = Field(None, description="Episode wall time.")
    turns: int = 0
    tool_calls: dict[str, int] = Field(default_factory=dict, description="Attempts by status.")
    error: str | None = Field(None, description="Why an 'error' record has no result (or a note).")
    agent_warnings: int = Field(
        0, description="Warnings the agent's code issued (counted, never raised, held against nothing)."
    )
    finished_at: str = Field(default_factory=lambda: utc_now())
    extra: dict[str, Any] = Field(
        default_factory=dict,
        description="Metadata added by pytest_crmbench_update_result_record implementations (JSON values).",
    )

    @property
    def key(self) -> tuple[str, int]:
        return (self.task_id, self.trial)

    @property
    def scored(self) -> bool:
        return self.outcome not in UNSCORED

    @property
    def success(self) -> bool:
        return self.outcome == "success"

    def negative_checks(self) -> list[CheckRecord]:
        """Forbidden actions, forbidden parameters and protected state: spec §B.8's negative
        assertions, and our conduct rules. Forbidden end states are not among them (the spec
        counts them as state checks)."""
        return [c for c in self.checks if kind_of(c.name) in NEGATIVE_KINDS]

    def policy_constrained(self) -> bool:
        """Declares at least one of the spec's negative assertions (table 8's "safety" subset).

        A domain's conduct rules hold for every one of its tasks, so they do not make a task
        policy-constrained (the split stays the spec's); they count in its compliance."""
        return any(c.family in SPEC_LABELS for c in self.negative_checks())

    def spec_success(self) -> bool:
        """Success under the specification's six families alone: conduct failures forgiven.

        A run graded by crmbench stays comparable with the spec's protocol through this figure;
        a failure by termination (limits, aborts, tampering) is never forgiven."""
        if self.success:
            return True
        if self.outcome != "failure" or self.termination in FAILED_TERMINATIONS:
            return False
        failed = [c for c in self.checks if c.status == "failed"]
        unjudged = any(c.status == "not_judged" for c in self.checks)
        return bool(failed) and not unjudged and all(c.family not in SPEC_LABELS for c in failed)

    def negative_compliant(self) -> bool:
        """Every declared negative assertion holds, whatever the rest of the contract says."""
        return all(c.status == "passed" for c in self.negative_checks())


def summary_of(record: ResultRecord) -> ResultRecord:
    """The record as a run keeps it in memory until its leaderboard and gates: the checks without
    their expected and actual values and diffs (those are written to ``results.jsonl``; nothing at
    the end of a run reads them from memory), so memory does not grow with what the checks saw.
    The summary checks are shared between records (every trial of a task names the same checks):
    a summary is read, never changed."""
    checks = [_summary_check(check.family, check.name, check.status) for check in record.checks]
    return record.model_copy(update={"checks": checks})


@functools.lru_cache(maxsize=1 << 16)
def _summary_check(family: str, name: str, status: Literal["passed", "failed", "not_judged"]) -> CheckRecord:
    return CheckRecord(family=family, name=name, status=status)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def model_of(settings: RunSettings) -> str | None:
    """The agent model id (``--crm-model``), None for gold, null and scripted agents."""
    return settings.models.agent


def _usage(usage: Usage | None) -> UsageRecord | None:
    if usage is None:
        return None
    return UsageRecord(
        calls=usage.calls,
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        cost_usd=None if usage.cost_usd is None else str(usage.cost_usd),
        latency_s=usage.latency_s,
    )


def build_record(
    task: Task,
    evidence: Evidence,
    verdict: TaskVerdict,
    *,
    model: str | None,
    latency_s: float | None,
    nodeid: str | None = None,
) -> ResultRecord:
    statuses = [call.status for call in evidence.tool_calls]
    return ResultRecord(
        task_id=task.id,
        trial=evidence.trial,
        nodeid=nodeid,
        domain=task.domain,
        difficulty=task.difficulty,
        capabilities=list(task.capabilities),
        seed=evidence.seed,
        agent=evidence.agent,
        model=model,
        outcome=verdict.outcome,
        termination=verdict.termination,
        primary_label=verdict.primary_label,
        checks=[
            CheckRecord(
                family=c.family,
                name=c.name,
                status=c.status,
                expected=jsonable(c.expected),
                actual=jsonable(c.actual),
                diff=c.diff,
            )
            for c in verdict.checks
        ],
        usage={
            "agent": _usage(evidence.usage.get("agent")),
            "user": _usage(evidence.usage.get("user")),
            "judge": _usage(verdict.judge_usage),
        },
        latency_s=latency_s,
        turns=sum(1 for m in evidence.messages if m.role == "assistant"),
        tool_calls={status: statuses.count(status) for status in ("ok", "rejected", "error")},
        error=verdict.detail if verdict.outcome in UNSCORED else None,
        agent_warnings=sum(evidence.agent_warnings.values()),
    )


def error_record(
    task_id: str, trial: int, message: str, *, nodeid: str | None = None, meta: Mapping[str, Any] | None = None
) -> ResultRecord:
    """The row of a collected item that produced no result; ``meta`` adds domain, difficulty etc."""
    known = {k: v for k, v in (meta or {}).items() if k in ("domain", "difficulty", "capabilities", "agent", "model")}
    return ResultRecord(task_id=task_id, trial=trial, nodeid=nodeid, outcome="error", error=message, **known)


def to_json(value: Any) -> str:
    """Strict JSON text: no NaN, no non-JSON types (raises TypeError/ValueError otherwise)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":"))


def encode_record(record: ResultRecord) -> str:
    """The record as one JSON line; never raises (an unencodable record becomes an error record)."""
    try:
        return to_json(record.model_dump(mode="json"))
    except (TypeError, ValueError) as exc:
        fallback = error_record(
            record.task_id,
            record.trial,
            f"result not serialisable ({type(exc).__name__}: {exc}); original outcome {record.outcome}",
            nodeid=record.nodeid,
            meta=record.model_dump(include={"domain", "difficulty", "capabilities", "agent", "model"}),
        )
        return to_json(fallback.model_dump(mode="json"))


def decode_record(text: str) -> ResultRecord:
    return ResultRecord.model_validate_json(text)


def trajectory(evidence: Evidence, verdict: TaskVerdict, record: ResultRecord) -> dict[str, Any]:
    """A trace entry: the public trajectory (Evidence JSON) plus its verdict and record key."""
    return {
        "task_id": record.task_id,
        "trial": record.trial,
        "domain": record.domain,
        "evidence": jsonable(evidence),
        "verdict": jsonable(verdict),
    }


def encode_trajectory(entry: dict[str, Any]) -> str | None:
    """JSON text of a trace entry, or None when it cannot be encoded (the record notes it)."""
    try:
        return to_json(entry)
    except (TypeError, ValueError):
        return None


def finished_properties(
    task: Task,
    evidence: Evidence,
    verdict: TaskVerdict,
    *,
    settings: RunSettings,
    latency_s: float | None,
    nodeid: str | None,
    with_trace: bool,
    update: Callable[[ResultRecord], None] | None = None,
) -> list[tuple[str, str]]:
    """The ``user_properties`` of a finished item. Never raises: whatever goes wrong while
    building the record becomes an ``error`` record saying so, so the result is never lost.

    ``update`` (the ``pytest_crmbench_update_result_record`` hook) may change the record; extra
    metadata that cannot be encoded is dropped with a note, keeping the result itself.
    """
    try:
        record = build_record(task, evidence, verdict, model=model_of(settings), latency_s=latency_s, nodeid=nodeid)
        if update is not None:
            update(record)
            record = _encodable_extra(record)
        trace = trajectory(evidence, verdict, record) if with_trace else None
    except Exception as exc:  # any bug here must cost one row's detail, not the row
        record = error_record(
            task.id,
            evidence.trial,
            f"result record could not be built ({type(exc).__name__}: {exc}); outcome was {verdict.outcome}",
            nodeid=nodeid,
            meta={"domain": task.domain, "difficulty": task.difficulty, "capabilities": list(task.capabilities)},
        )
        trace = None
    return result_properties(record, trace)


def _encodable_extra(record: ResultRecord) -> ResultRecord:
    try:
        to_json(record.extra)
    except (TypeError, ValueError) as exc:
        note = f"extra metadata dropped: not JSON ({type(exc).__name__}: {exc})"
        return record.model_copy(update={"extra": {}, "error": note})
    return record


def result_properties(record: ResultRecord, trace: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The ``user_properties`` entries that carry a finished item to the controller."""
    properties = [(RESULT_PROPERTY, encode_record(record))]
    if trace is not None:
        text = encode_trajectory(trace)
        if text is None:
            record = record.model_copy(update={"error": "trajectory not serialisable; not saved"})
            properties = [(RESULT_PROPERTY, encode_record(record))]
        else:
            properties.append((TRACE_PROPERTY, text))
    return properties
