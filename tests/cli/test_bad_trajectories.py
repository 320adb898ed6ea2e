"""Trajectories crmbench cannot read end in one line naming the file, never "internal error" (issue 30 part 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_crmbench.cli.main import main
from pytest_crmbench.core.exitcodes import ExitCode
from pytest_crmbench.results.rundir import read_traces

DATA = Path(__file__).parents[1] / "data"
FOLDERS = ["--tasks", str(DATA / "tasks"), "--envs", str(DATA / "envs")]
UNKNOWN = {"task_id": "nope", "agent": "a", "termination": {"reason": "user_stop"}}
BAD = {
    "deep.json": ("[" * 100_000 + "]" * 100_000, "not a trajectory: nested too deeply"),
    "bigint.json": ('{"task_id": "x", "seed": ' + "9" * 10_000 + "}", "not a trajectory: Exceeds the limit"),
    "empty.json": ("[]", "no trajectory in it"),
    "unknown.json": (json.dumps(UNKNOWN), "task 'nope' is not in the current task set"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_grade_refuses_a_bad_trajectory_naming_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    text, message = BAD[name]
    (tmp_path / name).write_text(text, encoding="utf-8")
    assert main(["grade", str(tmp_path / name), *FOLDERS]) == ExitCode.BAD_INPUT
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1
    assert error.startswith(f"crmbench: error: {tmp_path / name}: {message}")


@pytest.mark.parametrize("line", ["[" * 100_000 + "]" * 100_000, '{"seed": ' + "9" * 10_000 + "}"])
def test_a_run_directorys_unreadable_trace_names_its_file_and_line(tmp_path: Path, line: str) -> None:
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "mini.jsonl").write_text(line + "\n{}\n", encoding="utf-8")
    with pytest.raises(Exception, match=r"traces/mini.jsonl:1: unreadable trace entry") as caught:
        list(read_traces(tmp_path))
    assert type(caught.value).__name__ == "RunDirError"
