"""Gold stages remembered by their inputs and run in parallel: the same report as a cold serial gate."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from pytest_crmbench.release.forked import forked_map
from pytest_crmbench.release.goldstage import CHECK
from pytest_crmbench.release.mutation.sweep import run_mutation_audit
from pytest_crmbench.release.passed import Passes
from pytest_crmbench.release.validate import ValidationReport, validate
from tests.release.conftest import AGENTS, ENVS, MakeTasks, content_args


def _gate(tasks: Path, cache: Path | None) -> ValidationReport:
    return validate(tasks, ENVS, AGENTS, gold=True, fuzz_examples=0, passes=Passes(cache))


def _shown(report: ValidationReport) -> list[str]:
    """The report without its timing and its line about what was reused."""
    return [line.rsplit(" in ", 1)[0] for line in report.lines() if not line.startswith("not run again")]


def test_an_unchanged_task_is_not_replayed_again_and_reports_the_same(make_tasks: MakeTasks, tmp_path: Path) -> None:
    tasks = make_tasks("audit_under_specified.yaml", mini=True)  # survivors and a failing score: a full report
    cold = _gate(tasks, None)
    first = _gate(tasks, tmp_path / "cache")
    again = _gate(tasks, tmp_path / "cache")
    assert first.reused == []
    assert again.reused.count(CHECK) == cold.tasks == 7
    assert _shown(again) == _shown(first) == _shown(cold)
    assert any("survives" in line for line in _shown(again))  # survivors of a remembered stage are shown
    assert "gold stage of 7 task(s)" in "\n".join(again.lines())


def test_a_changed_task_alone_runs_again(make_tasks: MakeTasks, tmp_path: Path) -> None:
    tasks = make_tasks(mini=True)
    _gate(tasks, tmp_path / "cache")
    mini = tasks / "mini.yaml"
    mini.write_text(mini.read_text().replace("brisk.", "brisk and busy.", 1))
    edited = _gate(tasks, tmp_path / "cache")
    assert [p.render() for p in edited.problems if "no lock" not in p.message] == []
    assert edited.reused.count(CHECK) == edited.tasks - 1


def test_a_remembered_result_points_at_where_the_task_is_now(make_tasks: MakeTasks, tmp_path: Path) -> None:
    tasks = make_tasks("audit_under_specified.yaml")
    before = _gate(tasks, tmp_path / "cache")
    survivor = next(s for s in before.survivors if s.task_id == "mini_audit_under_01")
    # Lines above the task move it down; the task itself is unchanged, so its stage is reused.
    path = tasks / "audit_under_specified.yaml"
    path.write_text("# one\n# two\n# three\n" + path.read_text())
    after = _gate(tasks, tmp_path / "cache")
    assert after.reused.count(CHECK) == 1
    moved = next(s for s in after.survivors if s.message == survivor.message)
    assert survivor.line is not None and moved.line == survivor.line + 3
    assert _shown(after) == _shown(_gate(tasks, None))


def test_the_mutation_audit_reuses_what_the_gate_remembered(make_tasks: MakeTasks, tmp_path: Path) -> None:
    # `crmbench audit --mutations` after `crmbench validate --gold`: the same evidence file, with
    # only the tasks changed since then audited again.
    tasks = make_tasks("audit_under_specified.yaml", mini=True)  # survivors and a failing score: a full report

    def evidence(name: str, passes: Passes) -> str:
        run_mutation_audit(tasks, ENVS, AGENTS, tmp_path / name, passes=passes)
        return (tmp_path / name).read_text()

    cold = evidence("cold.json", Passes(None))
    _gate(tasks, tmp_path / "cache")
    remembered = Passes(tmp_path / "cache")
    assert evidence("warm.json", remembered) == cold
    assert remembered.reused.count(CHECK) == 7
    mini = tasks / "mini.yaml"
    mini.write_text(mini.read_text().replace("brisk.", "brisk and busy.", 1))
    remembered = Passes(tmp_path / "cache")
    assert evidence("edited.json", remembered) == evidence("edited-cold.json", Passes(None)) != cold
    assert remembered.reused.count(CHECK) == 6


def test_lines_added_inside_a_task_run_it_again(make_tasks: MakeTasks, tmp_path: Path) -> None:
    tasks = make_tasks("audit_under_specified.yaml")
    _gate(tasks, tmp_path / "cache")
    path = tasks / "audit_under_specified.yaml"
    path.write_text(path.read_text().replace("  contract:\n", "  # a comment inside the record\n  contract:\n", 1))
    assert _gate(tasks, tmp_path / "cache").reused == []  # the lines inside moved: the remembered ones would lie


def test_a_failing_stage_is_never_remembered(make_tasks: MakeTasks, tmp_path: Path) -> None:
    tasks = make_tasks("gold_fails_contract.yaml")
    first = _gate(tasks, tmp_path / "cache")
    again = _gate(tasks, tmp_path / "cache")
    assert not first.ok and again.reused == []
    assert [p.render() for p in again.problems] == [p.render() for p in first.problems]


def test_a_damaged_entry_is_recomputed_not_trusted(make_tasks: MakeTasks, tmp_path: Path) -> None:
    tasks = make_tasks(mini=True)
    cold = _gate(tasks, tmp_path / "cache")
    for entry in (tmp_path / "cache" / "results").rglob("*"):
        if entry.is_file():
            entry.write_bytes(b"not a pickle")
    damaged = _gate(tasks, tmp_path / "cache")
    assert damaged.reused == []
    assert _shown(damaged) == _shown(cold)
    assert _gate(tasks, tmp_path / "cache").reused.count(CHECK) == cold.tasks  # rewritten whole


def test_parallel_processes_give_the_serial_report(make_tasks: MakeTasks) -> None:
    # In its own process: forking is refused where another thread runs, as in an xdist worker.
    tasks = make_tasks("audit_under_specified.yaml", "null_passes.yaml", mini=True)
    outputs = []
    command = [
        sys.executable,
        "-m",
        "pytest_crmbench.cli.main",
        "validate",
        "--gold",
        "--no-cache",
        "--fuzz-examples=2",
    ]
    for jobs in ("1", "2"):
        done = subprocess.run(
            [*command, "-j", jobs, *content_args(tasks)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1, done.stderr  # the fixtures' survivors and the mini domain's broken tool
        assert f"in {jobs} process(es)" in done.stderr
        outputs.append([line.rsplit(" in ", 1)[0] for line in done.stdout.splitlines()])
    assert outputs[0] == outputs[1]
    assert any("broken_tool crashes" in line for line in outputs[1])


def _pid(_: None, item: int) -> tuple[int, int]:
    return item * item, os.getpid()


def test_no_fork_where_another_thread_runs() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        results = list(forked_map(_pid, None, [1, 2, 3], jobs=2))
    finally:
        stop.set()
        other.join()
    assert [square for square, _ in results] == [1, 4, 9]
    assert {pid for _, pid in results} == {os.getpid()}


@pytest.mark.skipif(sys.platform != "linux", reason="children are forked on Linux only")
def test_forked_children_do_the_work_in_order() -> None:
    script = (
        "import os\n"
        "from tests.release.test_goldstage import _pid\n"
        "from pytest_crmbench.release.forked import forked_map\n"
        "results = list(forked_map(_pid, None, list(range(8)), jobs=2))\n"
        "assert [s for s, _ in results] == [i * i for i in range(8)], results\n"
        "assert os.getpid() not in {p for _, p in results}, results\n"
        "print('ok')\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=root)
    assert done.stdout.strip() == "ok", done.stderr
