"""``crmbench leaderboard``, ``report``, ``grade`` and ``gate``: saved runs, no pytest, no model."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_crmbench.core.exitcodes import ExitCode
from pytest_crmbench.plugin.optiontable import add_cli_arguments
from pytest_crmbench.results import report, tables
from pytest_crmbench.results.gates import Gates, evaluate
from pytest_crmbench.results.html import sources_for, write_report
from pytest_crmbench.results.paired import flip_lines
from pytest_crmbench.results.records import to_json
from pytest_crmbench.results.regrade import regrade, summary_lines
from pytest_crmbench.results.rundir import SavedRun, load_run


def run_inputs(runs: Sequence[SavedRun]) -> list[report.RunInput]:
    return [report.RunInput(run.path.name, run.system, run.created_at, run.records) for run in runs]


def leaderboard_text(paths: Sequence[Path], as_json: bool) -> str:
    board = report.build(run_inputs([load_run(path) for path in paths]))
    return json.dumps(report.as_json(board), indent=2, sort_keys=True) if as_json else tables.markdown(board)


def _leaderboard(args: argparse.Namespace) -> int:
    print(leaderboard_text(args.runs, args.json), end="" if args.json else "\n")
    return ExitCode.OK


def _report(args: argparse.Namespace) -> int:
    written = write_report(args.runs, args.output, sources_for(args.tasks, Path.cwd()))
    print(f"report written: {written}")
    return ExitCode.OK


def _grade(args: argparse.Namespace) -> int:
    results = regrade(args.path, args.tasks, args.envs)
    if args.json:
        for result in results:
            print(to_json({**result.record.model_dump(mode="json"), "nondeterminism": result.nondeterminism}))
    else:
        print("\n".join(summary_lines(results)))
        board = report.build([report.RunInput(args.path.name, "re-graded", "", [r.record for r in results])])
        print("\n".join(tables.headline(board)))
    return ExitCode.GATE_FAILED if any(r.nondeterminism for r in results) else ExitCode.OK


def _gate(args: argparse.Namespace) -> int:
    compare = Path(args.crm_compare) if args.crm_compare else None
    gates = Gates(
        fail_under=args.crm_fail_under,
        compare=compare,
        max_drop=args.crm_max_drop,
        max_infra=args.crm_max_infra,
        significance=args.crm_significance,
    )
    baseline = load_run(compare).records if compare else None
    verdict = evaluate(gates, load_run(args.run).records, baseline)
    for failure in verdict.failures:
        print(f"crmbench gate FAILED: {failure}")
    if verdict.passed:
        print("crmbench gate passed: " + "; ".join(verdict.notes))
    if verdict.comparison is not None:
        print(f"compared with the baseline: {verdict.comparison.summary()}")
        print("\n".join(f"  {line}" for line in flip_lines(verdict.comparison)))
    return ExitCode.OK if verdict.passed else ExitCode.GATE_FAILED


def add_commands(commands: Any) -> None:
    """Add the run commands to ``crmbench``'s sub-parsers."""
    board = commands.add_parser("leaderboard", help="Print the spec's tables (markdown or JSON) for saved runs.")
    board.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="Run directories (crm-runs/...).")
    board.add_argument("--json", action="store_true", help="Print JSON instead of markdown.")
    board.set_defaults(handler=_leaderboard)

    html = commands.add_parser(
        "report", help="Write one self-contained HTML report (leaderboard, figures, task pages) for saved runs."
    )
    html.add_argument(
        "runs", nargs="+", type=Path, metavar="RUN_DIR", help="Run directories; with two, the first is the baseline."
    )
    html.add_argument("-o", "--output", type=Path, default=Path("report.html"), help="Output file (report.html).")
    html.add_argument(
        "--tasks",
        type=Path,
        default=Path("tasks"),
        help="Task files folder, for user briefs and YAML lines (default: tasks; missing: left out).",
    )
    html.set_defaults(handler=_report)

    grade = commands.add_parser(
        "grade", help="Re-grade saved trajectories against the current contracts (no model is called)."
    )
    grade.add_argument("path", type=Path, metavar="RUN_DIR_OR_FILE", help="A run directory or a trajectory file.")
    grade.add_argument("--tasks", type=Path, default=Path("tasks"), help="Task files folder (default: tasks).")
    grade.add_argument("--envs", type=Path, default=Path("envs"), help="Environments folder (default: envs).")
    grade.add_argument("--json", action="store_true", help="Print one re-graded record per line.")
    grade.set_defaults(handler=_grade)

    gate = commands.add_parser(
        "gate",
        help="Apply the CI gates of --crm-fail-under, --crm-compare, ... to a saved run (exit 1 when one fails).",
    )
    gate.add_argument("run", type=Path, metavar="RUN_DIR")
    add_cli_arguments(gate, "crm_fail_under", "crm_compare", "crm_max_drop", "crm_max_infra", "crm_significance")
    gate.set_defaults(handler=_gate)
