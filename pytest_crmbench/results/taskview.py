"""One result as the report's task page shows it (spec §D, figure 17): brief, trajectory, checks, state.

Plain data for the page's script, built from three sources that may each be missing: the result
record (always), its trajectory (``traces/<domain>.jsonl``; absent for an ``error`` row) and the
task as written (the task files; absent when they moved or were deleted since the run). Long tool
outputs and state values are clipped: the page stays small enough to open fast, and the run
directory keeps everything.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pytest_crmbench.core.families import FAMILIES
from pytest_crmbench.core.matchers import MISSING
from pytest_crmbench.core.paths import resolve
from pytest_crmbench.results.records import ResultRecord
from pytest_crmbench.results.sources import TaskSource

CLIP = 2000
"""Characters of one shown JSON value (tool arguments, output, state value) before it is clipped."""


def clipped(value: Any, limit: int = CLIP) -> str:
    """Compact JSON text of ``value``, cut at ``limit`` characters with a note of what was cut."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … ({len(text) - limit} more characters in the run directory)"


def index_row(record: ResultRecord, run: int, detail: int) -> list[Any]:
    """The task table's row: short and positional, the page holds one per result."""
    failed = sum(1 for c in record.checks if c.status == "failed")
    return [
        run,
        record.task_id,
        record.trial,
        record.domain or "?",
        record.difficulty or "?",
        record.capabilities,
        record.outcome,
        record.primary_label or "",
        failed,
        len(record.checks),
        record.turns,
        sum(record.tool_calls.values()),
        detail,
    ]


def task_detail(record: ResultRecord, trace: Mapping[str, Any] | None, source: TaskSource | None) -> dict[str, Any]:
    evidence = trace.get("evidence") if isinstance(trace, Mapping) else None
    detail: dict[str, Any] = {
        "record": {
            "outcome": record.outcome,
            "label": record.primary_label,
            "termination": record.termination,
            "error": record.error,
            "seed": record.seed,
            "agent": record.agent,
            "model": record.model,
            "latency_s": record.latency_s,
            "usage": {role: u.model_dump(mode="json") for role, u in record.usage.items() if u is not None},
            "tool_calls": record.tool_calls,
        },
        "task": _task(source),
        "checks": [_check(check, source) for check in record.checks],
        "judge": _judge(record),
        "trajectory": None if not isinstance(evidence, Mapping) else _trajectory(evidence),
        "state": [] if source is None or not isinstance(evidence, Mapping) else contract_state(source, evidence),
    }
    return detail


def _task(source: TaskSource | None) -> dict[str, Any] | None:
    if source is None:
        return None
    return {
        "title": source.task.title,
        "file": source.file,
        "line": source.line,
        "brief": source.task.user.model_dump(mode="json"),
    }


def _check(check: Any, source: TaskSource | None) -> dict[str, Any]:
    return {
        "family": check.family,
        "name": check.name,
        "status": check.status,
        "expected": clipped(check.expected),
        "actual": clipped(check.actual),
        "diff": check.diff,
        "line": source.check_line(check.name) if source else None,
    }


def _judge(record: ResultRecord) -> list[dict[str, Any]]:
    """Reply verdicts: the criterion, the judge's decision and its verbatim quote of the reply."""
    verdicts = []
    for check in record.checks:
        if check.family != "reply" or check.name == "reply[contradiction]":
            continue
        quote = check.actual if isinstance(check.actual, str) and check.status != "not_judged" else ""
        verdicts.append(
            {
                "criterion": check.expected if isinstance(check.expected, str) else clipped(check.expected),
                "status": check.status,
                "quote": quote,
                "explanation": check.diff,
            }
        )
    return verdicts


def _trajectory(evidence: Mapping[str, Any]) -> dict[str, Any]:
    calls = evidence.get("tool_calls") or []
    return {
        "messages": [
            {"role": m.get("role"), "content": m.get("content", ""), "turn": m.get("turn", 0)}
            for m in evidence.get("messages") or []
            if isinstance(m, Mapping)
        ],
        "routing": [
            {"turn": r.get("turn", 0), "node": r.get("node"), "detail": r.get("detail")}
            for r in evidence.get("routing") or []
            if isinstance(r, Mapping)
        ],
        "tools": [_tool(call) for call in calls if isinstance(call, Mapping)],
        "model_use": [_turn_usage(turn, usage) for turn, usage in enumerate(evidence.get("agent_turn_usage") or [])],
        "termination": evidence.get("termination"),
    }


def _turn_usage(turn: int, usage: Any) -> dict[str, Any]:
    usage = usage if isinstance(usage, Mapping) else {}
    return {
        "turn": turn,
        "calls": usage.get("calls", 0),
        "tokens": (usage.get("prompt_tokens") or 0) + (usage.get("completion_tokens") or 0),
    }


def _tool(call: Mapping[str, Any]) -> dict[str, Any]:
    status = call.get("status")
    # What the model was shown (ToolCall.output): the result, or the structured error.
    output = call.get("result") if status == "ok" else {"error": {"outcome": status, **(call.get("error") or {})}}
    return {
        "index": call.get("index"),
        "turn": call.get("turn", 0),
        "node": call.get("node"),
        "name": call.get("name"),
        "status": status,
        "arguments": clipped(call.get("arguments")),
        "output": clipped(output),
    }


def contract_state(source: TaskSource, evidence: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Initial and final value of every state path the contract names, with what it asks of it."""
    contract = source.task.contract
    paths = [(row.path, row.role, row.wanted) for family in FAMILIES for row in family.contract_rows(contract)]
    initial, final = evidence.get("initial_state") or {}, evidence.get("final_state") or {}
    rows = []
    for path, kind, wanted in paths:
        before, after = resolve(initial, path), resolve(final, path)
        rows.append(
            {
                "path": path,
                "kind": kind,
                "wanted": wanted,
                "initial": "(absent)" if before is MISSING else clipped(before),
                "final": "(absent)" if after is MISSING else clipped(after),
                "changed": before != after,
            }
        )
    return rows
