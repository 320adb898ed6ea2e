"""The release subcommands of ``crmbench``: ``validate``, ``audit [--mutations]``, ``inventory``.

Each handler is one library call and its printing; the exit status is
:attr:`~pytest_crmbench.core.exitcodes.ExitCode.GATE_FAILED` when the gate finds a problem
(``inventory`` reports and never gates). Library modules are imported inside the handlers so
``crmbench --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

from pytest_crmbench.core.exitcodes import ExitCode

# Under the run output folder (ignored by git), not next to the sources: an audit is evidence for
# a release, written on demand, not a file of the working tree (issue 12).
AUDIT_OUT = Path("crm-runs/evidence/capability_exposure_audit.json")
MUTATIONS_OUT = Path("crm-runs/evidence/mutation_audit.json")


def _validate(args: argparse.Namespace) -> int:
    from pytest_crmbench.release.forked import parallel_jobs
    from pytest_crmbench.release.passed import Passes
    from pytest_crmbench.release.validate import Selection, validate

    if (args.gold or args.write_lock) and args.fuzz_examples > 0 and importlib.util.find_spec("hypothesis") is None:
        # A missing test dependency is the command line's problem, not the release's (as for litellm).
        print(
            "crmbench validate: error: the tool fuzz needs hypothesis: pip install 'crmbench[release]'"
            " (or --fuzz-examples=0 to validate without it)",
            file=sys.stderr,
        )
        return ExitCode.USAGE_ERROR
    report = validate(
        args.tasks,
        args.envs,
        args.agents,
        gold=args.gold,
        lock=args.write_lock,
        fuzz_examples=args.fuzz_examples,
        selection=Selection(tuple(args.domain), tuple(args.task)),
        passes=Passes(None if args.no_cache else args.cache_dir),
        jobs=parallel_jobs(args.jobs),
        progress=lambda line: print(line, file=sys.stderr, flush=True),  # stdout keeps the report alone
    )
    print("\n".join(report.lines()))
    return ExitCode.OK if report.ok else ExitCode.GATE_FAILED


def _audit(args: argparse.Namespace) -> int:
    from pytest_crmbench.release.audit import run_audit

    audit = run_audit(args.tasks, args.agents, args.out)
    print("\n".join(audit.lines()))
    mutations_ok = _mutations(args) if args.mutations else True
    return ExitCode.OK if audit.ok and mutations_ok else ExitCode.GATE_FAILED


def _mutations(args: argparse.Namespace) -> bool:
    from pytest_crmbench.release.forked import parallel_jobs
    from pytest_crmbench.release.mutation.sweep import run_mutation_audit
    from pytest_crmbench.release.passed import Passes

    result = run_mutation_audit(
        args.tasks,
        args.envs,
        args.agents,
        args.mutations_out,
        jobs=parallel_jobs(args.jobs),
        passes=Passes(None if args.no_cache else args.cache_dir),
    )
    print("\n".join(result.lines(verbose=True)))
    return result.ok


def _inventory(args: argparse.Namespace) -> int:
    from pytest_crmbench.core.errors import CrmbenchError
    from pytest_crmbench.release.inventory import inventory_text, readme_figures_text

    if not args.tasks.is_dir():
        # The figures of no task set are no report: exit 2 (bad input), not 0 with a note.
        raise CrmbenchError(f"no such tasks directory: {args.tasks} (run it in a checkout, or give --tasks DIR)")
    if args.readme:
        text = readme_figures_text(args.tasks, args.agents, args.readme)
    else:
        text = inventory_text(args.tasks, args.agents, as_json=args.json)
    if args.out is None:
        print(text)
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return ExitCode.OK


def _content_dirs(parser: argparse.ArgumentParser, *, envs: bool = True) -> None:
    parser.add_argument("--tasks", type=Path, default=Path("tasks"), help="Task directory (default: tasks).")
    if envs:
        parser.add_argument("--envs", type=Path, default=Path("envs"), help="Environment directory (default: envs).")
    parser.add_argument("--agents", type=Path, default=Path("agents"), help="Agent graph directory (default: agents).")


def add_commands(commands: Any) -> None:
    """Add ``validate``, ``audit`` and ``inventory`` to the ``crmbench`` subparsers."""
    validate = commands.add_parser("validate", help="Validate the task set (the release gate of spec A.5).")
    _content_dirs(validate)
    validate.add_argument("--gold", action="store_true", help="Also replay every gold path and run the audits.")
    validate.add_argument("--write-lock", action="store_true", help="Write tasks/lock.json (implies --gold).")
    validate.add_argument(
        "--fuzz-examples",
        type=int,
        default=50,  # release.fuzz.EXAMPLES_PER_TOOL (not imported: --help stays fast)
        metavar="N",
        help="With --gold: call every tool with N schema-valid argument sets; none may crash (0: no fuzz; default %(default)s).",
    )
    validate.add_argument(
        "--domain",
        action="append",
        default=[],
        metavar="DOMAIN",
        help="Validate only this domain's tasks (repeatable); manifest counts and the lock are then not checked.",
    )
    validate.add_argument(
        "--task",
        action="append",
        default=[],
        metavar="GLOB",
        help="Validate only tasks whose id matches this glob (repeatable), e.g. 'payments_transfer_*'.",
    )
    _cache(
        validate,
        "Remember checks that passed (each task's gold stage, each domain's tool fuzz) by a hash of their"
        " inputs, so nothing unchanged is checked again (default: %(default)s).",
        "Run every check, remembering nothing.",
    )
    _jobs(validate, "the gold replays, audits and fuzz")
    validate.set_defaults(handler=_validate)

    audit = commands.add_parser(
        "audit",
        help="Write the capability-exposure audit (spec A.7) and, with --mutations, the contract mutation audit.",
    )
    _content_dirs(audit)
    audit.add_argument("--out", type=Path, default=AUDIT_OUT, help=f"Output JSON file (default: {AUDIT_OUT}).")
    audit.add_argument(
        "--mutations",
        action="store_true",
        help="Also run the contract mutation audit: derived wrong paths must fail, right paths must pass.",
    )
    audit.add_argument(
        "--mutations-out",
        type=Path,
        default=MUTATIONS_OUT,
        help=f"Output JSON file of the mutation audit (default: {MUTATIONS_OUT}).",
    )
    _cache(
        audit,
        "With --mutations: reuse the mutation audit of each task whose gold stage `crmbench validate --gold`"
        " remembered here on the same inputs (default: %(default)s).",
        "With --mutations: audit every task again.",
    )
    _jobs(audit, "the mutation audit")
    audit.set_defaults(handler=_audit)

    inventory = commands.add_parser("inventory", help="Print the task-set figures against the release targets.")
    _content_dirs(inventory, envs=False)
    inventory.add_argument("--json", action="store_true", help="Print JSON instead of Markdown.")
    inventory.add_argument(
        "--readme", metavar="DOMAIN", default=None, help="Print the figures block of envs/DOMAIN/README.md."
    )
    inventory.add_argument("--out", type=Path, default=None, help="Write to this file instead of stdout.")
    inventory.set_defaults(handler=_inventory)


def _cache(parser: argparse.ArgumentParser, use: str, off: str) -> None:
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(".crmbench-cache"),  # release.passed.DEFAULT_DIR (not imported: --help stays fast)
        metavar="DIR",
        help=use,
    )
    parser.add_argument("--no-cache", action="store_true", help=off)


def _jobs(parser: argparse.ArgumentParser, work: str) -> None:
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="N",
        help=f"Processes for {work} (default: one per core; 1: in this process).",
    )
