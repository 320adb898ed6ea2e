"""``crmbench``: a thin command line over the same engine functions the pytest plugin uses."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from enum import IntEnum
from typing import Any

from pytest_crmbench.cli import release
from pytest_crmbench.cli import report as report_cli
from pytest_crmbench.core.errors import CrmbenchError


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1
    USAGE = 2


def _schema(args: argparse.Namespace) -> int:
    from pytest_crmbench.core.evidence import Evidence
    from pytest_crmbench.core.spec import task_json_schema

    schemas: dict[str, Callable[[], dict[str, Any]]] = {
        "task": task_json_schema,
        "trajectory": Evidence.model_json_schema,
    }
    print(json.dumps(schemas[args.kind](), indent=2, sort_keys=True))
    return ExitCode.OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crmbench", description="CRM agent benchmark tools. Run the benchmark itself with pytest."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    schema = commands.add_parser("schema", help="Print the JSON Schema of task files (or of trajectories).")
    schema.add_argument(
        "--kind", choices=("task", "trajectory"), default="task", help="Which schema to print (default: task)."
    )
    schema.set_defaults(handler=_schema)
    release.add_commands(commands)
    report_cli.add_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except CrmbenchError as exc:
        print(f"crmbench: error: {exc}", file=sys.stderr)
        return ExitCode.ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
