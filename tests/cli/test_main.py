"""``crmbench``'s exit codes and its output into a closed pipe (issue 12 items 6 and 12, issue 9 §1)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_crmbench.cli import main as cli
from pytest_crmbench.core.exitcodes import ExitCode

REPO = Path(__file__).resolve().parents[2]


def test_exit_codes_agree_with_pytest_where_both_have_the_meaning() -> None:
    assert ExitCode.OK == pytest.ExitCode.OK
    assert ExitCode.GATE_FAILED == pytest.ExitCode.TESTS_FAILED
    assert ExitCode.INTERNAL_ERROR == pytest.ExitCode.INTERNAL_ERROR
    assert ExitCode.USAGE_ERROR == pytest.ExitCode.USAGE_ERROR
    assert ExitCode.NO_TESTS == pytest.ExitCode.NO_TESTS_COLLECTED
    # A task file pytest cannot collect interrupts the session: the same 2 as crmbench's bad input.
    assert ExitCode.BAD_INPUT == pytest.ExitCode.INTERRUPTED
    assert len({int(code) for code in ExitCode}) == len(ExitCode)


def test_a_wrong_command_line_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["leaderboard"]) == ExitCode.USAGE_ERROR
    assert "the following arguments are required: RUN_DIR" in capsys.readouterr().err
    assert cli.main(["gate", "somewhere", "--fail-under", "80"]) == ExitCode.USAGE_ERROR
    assert "fail-under takes a fraction between 0 and 1" in capsys.readouterr().err
    assert cli.main(["no-such-command"]) == ExitCode.USAGE_ERROR
    assert cli.main(["--help"]) == ExitCode.OK


def test_unreadable_input_is_bad_input_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["gate", str(tmp_path / "missing"), "--fail-under", "0.5"]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("crmbench: error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_a_bug_is_an_internal_error_with_its_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(args: argparse.Namespace) -> int:
        raise KeyError("oops")

    monkeypatch.setattr(cli, "_schema", broken)
    assert cli.main(["schema"]) == ExitCode.INTERNAL_ERROR
    err = capsys.readouterr().err
    assert "Traceback" in err and "KeyError: 'oops'" in err and "internal error" in err


@pytest.mark.parametrize("command", [["schema"], ["schema", "--kind", "trajectory"]])
def test_a_closed_pipe_is_not_a_traceback(command: list[str]) -> None:
    """``crmbench schema | head -1``: the reader leaves after one line; no BrokenPipeError traceback."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest_crmbench.cli.main", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline() == b"{\n"
    process.stdout.close()  # like `head -1` exiting
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=60) == ExitCode.OK
    assert "BrokenPipeError" not in err and "Traceback" not in err, err


def test_the_exit_code_survives_a_closed_pipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class ClosedPipe:
        def write(self, text: str) -> int:
            raise BrokenPipeError

        def flush(self) -> None:
            raise BrokenPipeError

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    monkeypatch.setattr(cli.os, "dup2", lambda fd, fd2: None)  # keep pytest's own stdout intact
    assert cli.main(["gate", str(tmp_path / "missing")]) == ExitCode.BAD_INPUT
    assert cli.main(["schema"]) == ExitCode.OK


def test_help_lists_every_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == ExitCode.OK
    text = " ".join(capsys.readouterr().out.split())
    for code in ExitCode:
        assert f"{int(code)} " in text.split("Exit codes:", 1)[1], code
