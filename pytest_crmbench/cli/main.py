"""``crmbench``: a thin command line over the same engine functions the pytest plugin uses.

Exit codes are :class:`~pytest_crmbench.core.exitcodes.ExitCode` (shared with pytest runs): a
found problem is 1, unreadable input 2, a bug in crmbench 3, a wrong command line 4. Output
survives a closed pipe (``crmbench leaderboard ... | head``): the rest is dropped, the exit code kept.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any, NoReturn

from pytest_crmbench.cli import release
from pytest_crmbench.cli import runs as runs_cli
from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.exitcodes import ExitCode


class Parser(argparse.ArgumentParser):
    """argparse with pytest's exit code for a usage error (4) instead of argparse's 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(ExitCode.USAGE_ERROR, f"{self.prog}: error: {message}\n")


class PipeSafe(io.TextIOBase):
    """stdout that stops writing, silently, once the reader has gone (BrokenPipeError)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.gone = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                self.stream.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._drop()

    def _drop(self) -> None:
        self.gone = True
        # The interpreter flushes sys.__stdout__ at exit: point its descriptor at /dev/null so
        # that flush cannot raise again (Python docs, "Note on SIGPIPE").
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ else 1)
            os.close(devnull)


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
    parser = Parser(
        prog="crmbench",
        description="CRM agent benchmark tools. Run the benchmark itself with pytest.",
        epilog="Exit codes: 0 ok, 1 a gate or check failed, 2 unreadable input, 3 internal error, 4 usage error"
        " (a pytest run uses the same codes, and 5 when it collected nothing).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    schema = commands.add_parser("schema", help="Print the JSON Schema of task files (or of trajectories).")
    schema.add_argument(
        "--kind", choices=("task", "trajectory"), default="task", help="Which schema to print (default: task)."
    )
    schema.set_defaults(handler=_schema)
    release.add_commands(commands)
    runs_cli.add_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    stdout = PipeSafe(sys.stdout)
    with contextlib.redirect_stdout(stdout):
        try:
            args = build_parser().parse_args(argv)
            return int(args.handler(args))
        except SystemExit as exc:  # argparse: --help (0) or a usage error (4)
            return exc.code if isinstance(exc.code, int) else ExitCode.USAGE_ERROR
        except CrmbenchError as exc:
            print(f"crmbench: error: {exc}", file=sys.stderr)
            return ExitCode.BAD_INPUT
        except Exception:
            traceback.print_exc()
            print("crmbench: internal error (a bug in crmbench; please report the traceback above)", file=sys.stderr)
            return ExitCode.INTERNAL_ERROR
        finally:
            stdout.flush()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
