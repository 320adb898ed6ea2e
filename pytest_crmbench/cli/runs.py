"""``crmbench leaderboard``, ``report``, ``grade`` and ``gate``: saved runs, no pytest, no model.

Every command that ranks or gates saved runs first re-grades each of their records from its
trajectory against the current contracts (``--tasks``, ``--envs``) and refuses a run that
disagrees (:mod:`pytest_crmbench.results.verify`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_crmbench.cli.contentdirs import content_dirs
from pytest_crmbench.core.exitcodes import ExitCode
from pytest_crmbench.plugin.optiontable import add_cli_arguments
from pytest_crmbench.results import leaderboard, tables
from pytest_crmbench.results.gates import Gates, evaluate, not_gate_worthy
from pytest_crmbench.results.html import sources_for, write_report
from pytest_crmbench.results.paired import flip_lines
from pytest_crmbench.results.records import to_json
from pytest_crmbench.results.regrade import regrade, summary_lines
from pytest_crmbench.results.rundir import SavedRun, load_run
from pytest_crmbench.results.runset import RunSet, comparable, finished
from pytest_crmbench.results.verify import Contracts, verified


def run_inputs(runs: Sequence[SavedRun]) -> list[leaderboard.RunInput]:
    return [leaderboard.RunInput(run.path.name, run.system, run.created_at, run.records) for run in runs]


def checked_runs(paths: Sequence[Path], tasks: Path, envs: Path) -> RunSet:
    """The runs, each verified against its trajectories, if they can be ranked together."""
    contracts = Contracts.load(tasks, envs)
    return comparable([verified(load_run(path), contracts) for path in paths])


def leaderboard_text(runs: RunSet, as_json: bool, max_unscored: int = 0) -> str:
    board = leaderboard.build(run_inputs(runs.runs), max_unscored=max_unscored)
    return json.dumps(leaderboard.as_json(board), indent=2, sort_keys=True) if as_json else tables.markdown(board)


def _leaderboard(args: argparse.Namespace) -> int:
    dirs = content_dirs(args.tasks, args.envs, args.runs)
    runs = checked_runs(args.runs, dirs.tasks, dirs.envs)
    for note in runs.notes:
        print(f"crmbench: {note}", file=sys.stderr)
    print(leaderboard_text(runs, args.json, args.max_infra), end="" if args.json else "\n")
    return ExitCode.OK


def _report(args: argparse.Namespace) -> int:
    dirs = content_dirs(args.tasks, args.envs, args.runs)
    contracts = Contracts.load(dirs.tasks, dirs.envs)
    for path in args.runs:  # a report ranks runs too: each is checked against its trajectories first
        verified(load_run(path), contracts)
    written = write_report(args.runs, args.output, sources_for(dirs.tasks, dirs.root))
    print(f"report written: {written}")
    return ExitCode.OK


def _grade(args: argparse.Namespace) -> int:
    dirs = content_dirs(args.tasks, args.envs, [args.path])
    results = regrade(args.path, dirs.tasks, dirs.envs)
    if args.json:
        for result in results:
            print(to_json({**result.record.model_dump(mode="json"), "nondeterminism": result.nondeterminism}))
    else:
        print("\n".join(summary_lines(results)))
        board = leaderboard.build([leaderboard.RunInput(args.path.name, "re-graded", "", [r.record for r in results])])
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
    dirs = content_dirs(args.tasks, args.envs, [args.run, *([compare] if compare else [])])
    contracts = Contracts.load(dirs.tasks, dirs.envs)
    run = verified(load_run(args.run), contracts)
    for saved in [run, *([load_run(compare)] if compare else [])]:
        refusal = not_gate_worthy(saved.manifest)
        if refusal is not None:
            print(f"crmbench gate FAILED: {saved.path}: {refusal}")
            return ExitCode.GATE_FAILED
    if not finished(run):
        print(f"crmbench gate FAILED: {args.run} did not finish (killed or interrupted); --crm-resume completes it")
        return ExitCode.GATE_FAILED
    baseline = verified(load_run(compare), contracts).records if compare else None
    verdict = evaluate(gates, run.records, baseline)
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
    board = commands.add_parser(
        "leaderboard",
        help="Print the spec's tables (markdown or JSON) for finished saved runs of one task set, each re-graded"
        " from its trajectories first.",
    )
    board.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="Run directories (crm-runs/...).")
    board.add_argument("--json", action="store_true", help="Print JSON instead of markdown.")
    board.add_argument(
        "--max-infra",
        type=int,
        default=0,
        metavar="N",
        help="Mark a system with more than N unscored (infra/error) results (default 0).",
    )
    _contracts(board)
    board.set_defaults(handler=_leaderboard)

    html = commands.add_parser(
        "report", help="Write one self-contained HTML report (leaderboard, figures, task pages) for saved runs."
    )
    html.add_argument(
        "runs", nargs="+", type=Path, metavar="RUN_DIR", help="Run directories; with two, the first is the baseline."
    )
    html.add_argument("-o", "--output", type=Path, default=Path("report.html"), help="Output file (report.html).")
    _contracts(html)
    html.set_defaults(handler=_report)

    grade = commands.add_parser(
        "grade", help="Re-grade saved trajectories against the current contracts (no model is called)."
    )
    grade.add_argument("path", type=Path, metavar="RUN_DIR_OR_FILE", help="A run directory or a trajectory file.")
    _contracts(grade)
    grade.add_argument("--json", action="store_true", help="Print one re-graded record per line.")
    grade.set_defaults(handler=_grade)

    gate = commands.add_parser(
        "gate",
        help="Apply the CI gates of --crm-fail-under, --crm-compare, ... to a saved run, re-graded from its"
        " trajectories first (exit 1 when one fails).",
    )
    gate.add_argument("run", type=Path, metavar="RUN_DIR")
    add_cli_arguments(gate, "crm_fail_under", "crm_compare", "crm_max_drop", "crm_max_infra", "crm_significance")
    _contracts(gate)
    gate.set_defaults(handler=_gate)


def _contracts(parser: argparse.ArgumentParser) -> None:
    """The contracts saved runs are checked against (the task files also give reports their lines)."""
    suite = "for runs of the packaged suite (pytest --crm-suite), the suite's own"
    parser.add_argument("--tasks", type=Path, help=f"Task files folder (default: tasks; {suite}).")
    parser.add_argument("--envs", type=Path, help=f"Environments folder (default: envs; {suite}).")
