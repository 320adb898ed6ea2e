"""Saved runs as pandas DataFrames, for analysis in a notebook (issue 32; as inspect's
``evals_df`` / ``samples_df``).

::

    from pytest_crmbench.results.analysis import results_df, runs_df

    df = results_df("crm-runs")                    # every run directory under crm-runs/
    df[df.scored].groupby(["system", "domain"]).success.mean().unstack()
    df[df.outcome == "failure"].primary_label.value_counts()
    runs = runs_df(["crm-runs/base", "crm-runs/new"])

:func:`results_df` has one row per result (the latest attempt of each task and trial, as the
leaderboard counts them) with the task's metadata, the outcome, one verdict column per check
family, usage and cost per role; :func:`runs_df` one row per run, from its manifest. The runs are
read as saved: nothing is re-graded (``crmbench leaderboard`` and ``crmbench report`` check each
record against its trajectory first; ``crmbench grade`` re-scores).

pandas is optional: ``pip install 'crmbench[analysis]'``. Without it these functions raise
:class:`PandasMissing` saying so; nothing else in crmbench imports pandas.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_crmbench.results.leaderboard import COMPONENT_COLUMNS, RunInput, rounds_of
from pytest_crmbench.results.records import ROLES, ResultRecord
from pytest_crmbench.results.rundir import MANIFEST, SavedRun, load_run

if TYPE_CHECKING:
    import pandas

__all__ = ["PandasMissing", "find_runs", "result_rows", "results_df", "runs_df"]

PathLike = str | Path


class PandasMissing(ImportError):
    """pandas is not installed (the ``analysis`` extra)."""


def _require_pandas() -> None:
    try:
        import pandas  # noqa: F401
    except ImportError:
        raise PandasMissing(
            "crmbench's DataFrames need pandas: pip install 'crmbench[analysis]' (or pip install pandas)"
        ) from None


def find_runs(paths: PathLike | Iterable[PathLike]) -> list[Path]:
    """Run directories: each path that holds a ``manifest.json``, or the run directories directly
    inside a folder that holds none (``crm-runs/``), sorted by name."""
    given = [paths] if isinstance(paths, str | Path) else list(paths)
    found: list[Path] = []
    for raw in given:
        path = Path(raw)
        if (path / MANIFEST).is_file():
            found.append(path)
            continue
        inside = sorted(p for p in path.iterdir() if (p / MANIFEST).is_file()) if path.is_dir() else []
        if not inside:
            raise FileNotFoundError(f"{path}: neither a crmbench run directory nor a folder of them")
        found.extend(inside)
    return found


def verdicts(record: ResultRecord) -> dict[str, str | None]:
    """Per check family, as figure 14 counts it: ``passed`` when every verdict of the family passed,
    ``failed`` when one failed, ``not_judged`` when the family's verdicts were all left unjudged,
    None when the task declares no check of the family."""
    by_family: dict[str, list[str]] = {}
    for check in record.checks:
        by_family.setdefault(check.family, []).append(check.status)
    columns: dict[str, str | None] = {}
    for family in dict.fromkeys([*COMPONENT_COLUMNS, *by_family]):
        statuses = by_family.get(family)
        if not statuses:
            columns[family] = None
        elif "failed" in statuses:
            columns[family] = "failed"
        elif all(s == "not_judged" for s in statuses):
            columns[family] = "not_judged"
        else:
            columns[family] = "passed"
    return columns


def result_rows(runs: Iterable[SavedRun]) -> list[dict[str, Any]]:
    """The rows of :func:`results_df` as plain dictionaries (no pandas needed)."""
    runs = list(runs)
    rounds: dict[tuple[str, int], int] = {}
    by_system: dict[str, list[RunInput]] = {}
    for run in runs:
        by_system.setdefault(run.system, []).append(RunInput(run.path.name, run.system, run.created_at, run.records))
    for members in by_system.values():
        for number, round_ in enumerate(rounds_of(members), start=1):
            rounds[(round_.run, round_.trial)] = number
    rows = []
    for run in runs:
        for record in run.records:
            rows.append(_row(run, record, rounds.get((run.path.name, record.trial))))
    return rows


def _row(run: SavedRun, record: ResultRecord, round_: int | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "run": run.path.name,
        "system": run.system,
        "agent": record.agent or run.manifest.get("agent"),
        "model": record.model,
        "round": round_,
        "task_id": record.task_id,
        "trial": record.trial,
        "domain": record.domain,
        "difficulty": record.difficulty,
        "capabilities": list(record.capabilities),
        "outcome": record.outcome,
        "scored": record.scored,
        "success": record.success,
        "spec_success": record.spec_success(),
        "primary_label": record.primary_label,
        "termination": record.termination,
        "policy_constrained": record.policy_constrained(),
        "checks": len(record.checks),
        "checks_failed": sum(c.status == "failed" for c in record.checks),
        "turns": record.turns,
        "tool_calls": sum(record.tool_calls.values()),
        "latency_s": record.latency_s,
        "seed": record.seed,
        "finished_at": record.finished_at,
    }
    row.update({f"verdict_{family}": status for family, status in verdicts(record).items()})
    for role in ROLES:
        usage = record.usage.get(role)
        row[f"{role}_calls"] = usage.calls if usage else 0
        row[f"{role}_prompt_tokens"] = usage.prompt_tokens if usage else 0
        row[f"{role}_completion_tokens"] = usage.completion_tokens if usage else 0
        row[f"{role}_cost_usd"] = _cost(usage.cost_usd if usage else None, bool(usage and usage.calls))
    return row


def _cost(value: str | None, used: bool) -> float | None:
    """A role's cache-neutral cost in US$ as a float; 0.0 when the role made no call, None (NaN in
    the frame) when some call had no known price."""
    if not used:
        return 0.0
    return None if value is None else float(Decimal(value))


def results_df(paths: PathLike | Iterable[PathLike]) -> pandas.DataFrame:
    """One row per result of every run at ``paths`` (run directories, or folders of them).

    Columns: ``run``, ``system``, ``agent``, ``model``, ``round`` (the system's round, 1-based, as
    table 9 numbers them), ``task_id``, ``trial`` (0-based), ``domain``, ``difficulty``,
    ``capabilities`` (a list), ``outcome``, ``scored``, ``success``, ``spec_success``,
    ``primary_label``, ``termination``, ``policy_constrained``, ``checks``, ``checks_failed``,
    ``turns``, ``tool_calls``, ``latency_s``, ``seed``, ``finished_at``; ``verdict_<family>`` for
    every check family (``passed``, ``failed``, ``not_judged`` or None: not declared); and per role
    (``agent``, ``user``, ``judge``) ``<role>_calls``, ``_prompt_tokens``, ``_completion_tokens``,
    ``_cost_usd`` (NaN: a price was unknown).
    """
    _require_pandas()
    import pandas

    rows = result_rows(load_run(path) for path in find_runs(paths))
    frame = pandas.DataFrame(rows)
    if not rows:
        return frame
    for column in ("run", "system", "domain", "difficulty", "outcome", "primary_label"):
        frame[column] = frame[column].astype("category")
    return frame


def runs_df(paths: PathLike | Iterable[PathLike]) -> pandas.DataFrame:
    """One row per run: its name, path, system, agent, models, start, whether it finished
    complete, how many results it holds, its task-set hash and the benchmark version."""
    _require_pandas()
    import pandas

    rows = []
    for path in find_runs(paths):
        run = load_run(path)
        manifest = run.manifest
        models = _mapping(manifest.get("models"))
        finished = _mapping(manifest.get("finished"))
        rows.append(
            {
                "run": path.name,
                "path": str(path),
                "system": run.system,
                "agent": manifest.get("agent"),
                "agent_model": models.get("agent"),
                "user_model": models.get("user"),
                "judge_model": _mapping(manifest.get("judge")).get("model") or models.get("judge"),
                "created_at": run.created_at,
                "finished": finished.get("complete") is True,
                "results": len(run.records),
                "task_set": _mapping(manifest.get("task_set")).get("hash"),
                "benchmark_version": manifest.get("benchmark_version"),
            }
        )
    return pandas.DataFrame(rows)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
