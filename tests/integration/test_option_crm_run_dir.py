"""--crm-run-dir: what a run writes, when it writes it, and `crmbench leaderboard` over saved runs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_crmbench import __version__
from pytest_crmbench.cli.main import main
from pytest_crmbench.core.exitcodes import ExitCode
from pytest_crmbench.results import tables
from pytest_crmbench.results.rundir import RunDir, load_run, read_traces
from tests.integration.helpers import MINI_IDS, CrmProject, mini_text, replace_once

SECRET = "fake-key-test-0123456789abcdef"


def test_a_gold_run_writes_nothing_by_default(mini_project: CrmProject) -> None:
    result = mini_project.run()
    result.assert_outcomes(passed=6)
    assert not (mini_project.path / "crm-runs").exists()
    assert "run directory" not in result.stdout.str()


def test_a_non_gold_agent_writes_a_timestamped_run(mini_project: CrmProject) -> None:
    result = mini_project.run("--crm-agent=null")
    (run,) = (mini_project.path / "crm-runs").iterdir()
    assert run.name.endswith("Z-null")
    result.stdout.fnmatch_lines([f"run directory: crm-runs/{run.name}"])


def test_the_run_directory_is_printed_relative_to_where_pytest_started(
    mini_project: CrmProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 32: from a subdirectory it was printed relative to the rootdir, a path that is not
    # there from where the user typed the command.
    elsewhere = mini_project.path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = mini_project.run("../tasks", "--crm-agent=null", "--crm-run-dir=out", "--crm-html=yes")
    assert (elsewhere / "out" / "manifest.json").is_file()  # a folder on the command line: from here
    result.stdout.fnmatch_lines(["run directory: out", "report: out/report.html"])
    outside = mini_project.path.parent / f"{mini_project.path.name}-outside"
    result = mini_project.run("../tasks", "--crm-agent=null", f"--crm-run-dir={outside}")
    result.stdout.fnmatch_lines([f"run directory: {outside}"])  # not below here: in full


def test_run_directory_contents(mini_project: CrmProject, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    # A key pasted into an argument (here a -k expression that deselects nothing) is redacted.
    result = mini_project.run("--crm-run-dir=out/gold", "--crm-seed=3", "-k", f"not {SECRET}")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["run directory: out/gold"])
    run = mini_project.path / "out" / "gold"
    assert sorted(p.name for p in run.iterdir()) == [
        "leaderboard.json",
        "leaderboard.md",
        "manifest.json",
        "results.jsonl",
        "traces",
    ]
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["benchmark_version"] == __version__
    assert manifest["task_set"]["files"] == ["tasks/mini.yaml"]
    assert manifest["task_set"]["hash"].startswith("sha256:")
    assert (manifest["agent"], manifest["system"], manifest["settings"]["base_seed"]) == ("gold", "gold", 3)
    assert manifest["settings"]["limits"]["max_user_turns"] == 30
    assert {"--crm-run-dir=out/gold", "--crm-seed=3", "not <redacted>"} <= set(manifest["pytest"]["args"])
    # Never a secret, wherever it might have come from.
    for file in run.rglob("*"):
        if file.is_file():
            assert SECRET not in file.read_text(), file
    lines = (run / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["task_id"] for line in lines] == MINI_IDS
    records = load_run(run).records
    assert {r.outcome for r in records} == {"success", "not_judged"}
    assert all(r.latency_s is not None and r.latency_s >= 0 for r in records)
    traces = list(read_traces(run))
    assert [t["task_id"] for t in traces] == MINI_IDS
    assert traces[0]["evidence"]["seed"] == records[0].seed
    leaderboard = json.loads((run / "leaderboard.json").read_text())
    assert leaderboard["systems"][0]["successes"] == 2
    assert "## Strict accuracy (spec table 6)" in (run / "leaderboard.md").read_text()


def test_quiet_runs_end_with_the_crmbench_section_and_the_run_directory(mini_project: CrmProject) -> None:
    result = mini_project.run("-q", "--crm-run-dir=run")
    assert [line for line in result.stdout.lines if line.strip()][-1] == "run directory: run"
    assert (mini_project.path / "run" / "results.jsonl").is_file()
    assert "crmbench" not in mini_project.run("-qq", "--crm-run-dir=run2").stdout.str()


def test_collect_only_writes_no_run(mini_project: CrmProject) -> None:
    mini_project.run("--co", "--crm-agent=null")
    assert not (mini_project.path / "crm-runs").exists()


def test_leaderboard_over_a_gold_and_a_null_run(mini_project: CrmProject, capsys: pytest.CaptureFixture[str]) -> None:
    mini_project.run("--crm-run-dir=runs/gold").assert_outcomes(passed=6)
    mini_project.run("--crm-run-dir=runs/null", "--crm-agent=null")
    capsys.readouterr()
    runs = [str(mini_project.path / "runs" / name) for name in ("null", "gold")]
    assert main(["leaderboard", *runs]) == 0
    out = capsys.readouterr().out
    for title, _ in tables.SECTIONS:
        assert f"## {title}" in out
    assert "| 1    | gold   | 33.33%      | [9.7-70.0] | 2/6      |" in out
    assert "| 2    | null   | 0.00%       | [0.0-39.0] | 0/6      |" in out
    assert "* gold and null: the 95 % intervals overlap (9.7-70.0 % vs 0.0-39.0 %)" in out
    assert main(["leaderboard", "--json", *runs]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(s["system"], s["rank"]) for s in data["systems"]] == [("gold", 1), ("null", 2)]
    assert main(["leaderboard", str(mini_project.path)]) == ExitCode.BAD_INPUT
    assert "not a crmbench run directory" in capsys.readouterr().err


def test_crmbench_grade_replays_a_saved_run(mini_project: CrmProject, capsys: pytest.CaptureFixture[str]) -> None:
    mini_project.run("--crm-run-dir=run").assert_outcomes(passed=6)
    capsys.readouterr()
    run = mini_project.path / "run"
    folders = ["--tasks", str(mini_project.tasks), "--envs", str(mini_project.path / "envs")]
    assert main(["grade", str(run), *folders]) == 0
    out = capsys.readouterr().out
    assert out.startswith("re-graded trajectories: 6\n")
    assert "| 1    | re-graded | 33.33%      | [9.7-70.0] | 2/6      |" in out
    # A recorded final state the replay does not reproduce is non-determinism (exit 1).
    trace = run / "traces" / "mini.jsonl"
    lines = trace.read_text().splitlines()
    entry = json.loads(lines[0])
    entry["evidence"]["final_state"]["accounts"]["ACC-2"]["balance"] = "0.00"
    trace.write_text("\n".join([json.dumps(entry), *lines[1:]]) + "\n")
    assert main(["grade", str(run), *folders]) == 1
    assert (
        "NON-DETERMINISM mini_transfer_retry_01[t1]: replayed final state differs at accounts.ACC-2.balance"
        in capsys.readouterr().out
    )
    assert main(["grade", str(run), "--json", *folders]) == 1
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["task_id"] == "mini_transfer_retry_01" and first["nondeterminism"]


# -- a run directory belongs to one run (issue 11 items 7 and 16) -------------------------------


def test_a_used_run_directory_is_refused_unless_the_run_is_resumed(mini_project: CrmProject) -> None:
    mini_project.run("--crm-run-dir=run", "-k", "override").assert_outcomes(passed=1, deselected=5)
    # Once silently appended another run, even of another agent, and overwrote the manifest.
    result = mini_project.run("--crm-run-dir=run", "--crm-agent=null")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: --crm-run-dir: */run is not empty (it holds an earlier run): continue that run with --crm-resume=*/run*"
        ]
    )
    assert len((mini_project.path / "run" / "results.jsonl").read_text().splitlines()) == 1
    mini_project.run("--crm-resume=run").assert_outcomes(passed=5, deselected=1)
    assert not (mini_project.path / "run" / ".lock").exists()  # released when the run ends


@pytest.mark.parametrize("agent", ["nul", "foo:bar", "mypackage.agents:make"])
def test_a_run_refused_at_a_usage_error_leaves_no_directory(
    mini_project: CrmProject, agent: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 32 item 1: the empty folder it left broke `crmbench leaderboard crm-runs/*`."""
    mini_project.run("--crm-run-dir=crm-runs/null", "--crm-agent=null")
    assert mini_project.run(f"--crm-agent={agent}").ret == pytest.ExitCode.USAGE_ERROR
    assert mini_project.run(f"--crm-agent={agent}", "--crm-run-dir=nested/run").ret == pytest.ExitCode.USAGE_ERROR
    assert [p.name for p in (mini_project.path / "crm-runs").iterdir()] == ["null"]
    assert not (mini_project.path / "nested").exists()  # nor the folders created to hold it
    capsys.readouterr()
    runs = [str(p) for p in (mini_project.path / "crm-runs").iterdir()]
    folders = ["--tasks", str(mini_project.tasks), "--envs", str(mini_project.path / "envs")]
    assert main(["leaderboard", *runs, *folders]) == ExitCode.OK


def test_an_existing_empty_run_directory_is_kept_when_the_run_is_refused(mini_project: CrmProject) -> None:
    (mini_project.path / "mine").mkdir()
    assert mini_project.run("--crm-agent=nul", "--crm-run-dir=mine").ret == pytest.ExitCode.USAGE_ERROR
    assert (mini_project.path / "mine").is_dir()  # the user's folder, not ours to remove


def test_a_run_directory_being_written_is_locked(mini_project: CrmProject) -> None:
    mini_project.run("--crm-run-dir=run", "-k", "override").assert_outcomes(passed=1, deselected=5)
    writer = RunDir(mini_project.path / "run")
    writer.open_for_writing(resume=True)  # another run, still writing
    try:
        result = mini_project.run("--crm-resume=run")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(["ERROR: --crm-run-dir: */run is being written by another run right now*"])
        assert mini_project.run("--crm-resume=run", "--co").ret == pytest.ExitCode.OK  # --co writes nothing
    finally:
        writer.close()
    mini_project.run("--crm-resume=run").assert_outcomes(passed=5, deselected=1)


def test_an_unwritable_run_directory_is_one_line_not_a_traceback(mini_project: CrmProject) -> None:
    (mini_project.path / "file.txt").write_text("not a folder")
    result = mini_project.run("--crm-run-dir=file.txt/run")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --crm-run-dir: cannot write */file.txt/run: Not a directory (errno 20)"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


FULL_DISK_CONFTEST = """
import errno
import pathlib

written = []
_open = pathlib.Path.open


def open_until_full(self, mode="r", *args, **kwargs):
    if self.name == "results.jsonl" and "a" in mode:
        written.append(self)
        if len(written) > 3:
            raise OSError(errno.ENOSPC, "No space left on device")
    return _open(self, mode, *args, **kwargs)


pathlib.Path.open = open_until_full


def pytest_unconfigure():
    pathlib.Path.open = _open
"""


def test_a_full_disk_is_said_in_one_line_and_keeps_what_was_written(mini_project: CrmProject) -> None:
    # Once an INTERNALERROR, with the lost results reported as "lost with its worker?".
    mini_project.pytester.makeconftest(FULL_DISK_CONFTEST)
    result = mini_project.run("--crm-run-dir=run")
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out and "lost with its worker" not in out
    result.stdout.fnmatch_lines(
        ["crmbench: cannot write */run/results.jsonl: No space left on device (errno 28); 3 result(s) were not saved"]
    )
    result.stdout.fnmatch_lines(["gold self-test: 6 task result(s)*"])  # all in the summary
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    lines = (mini_project.path / "run" / "results.jsonl").read_text().splitlines()
    assert [json.loads(line)["task_id"] for line in lines] == MINI_IDS[:3]
    manifest = json.loads((mini_project.path / "run" / "manifest.json").read_text())
    assert manifest["finished"] is None  # incomplete, like a killed run: no leaderboard counts it as a round


# -- leaderboard and gate believe trajectories, not summaries (issue 11 items 9 and 10) ---------


def contracts(project: CrmProject) -> list[str]:
    return ["--tasks", str(project.tasks), "--envs", str(project.path / "envs")]


def edit_results(run: Path, change: Callable[[dict[str, object]], dict[str, object] | None]) -> None:
    file = run / "results.jsonl"
    edited = [change(json.loads(line)) for line in file.read_text().splitlines()]
    file.write_text("".join(json.dumps(line) + "\n" for line in edited if line is not None))


def test_a_run_whose_results_were_edited_is_refused(
    mini_project: CrmProject, capsys: pytest.CaptureFixture[str]
) -> None:
    mini_project.run("--crm-run-dir=null", "--crm-agent=null")
    run = mini_project.path / "null"
    assert main(["gate", str(run), "--fail-under", "0.5", *contracts(mini_project)]) == ExitCode.GATE_FAILED
    # Once: every outcome edited to success showed 100.00 % 73/73 and passed the gate.
    edit_results(run, lambda r: {**r, "outcome": "success", "primary_label": None})
    capsys.readouterr()
    assert main(["gate", str(run), "--fail-under", "0.5", *contracts(mini_project)]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert f"crmbench: error: {run}: refused, its results do not match its trajectories:" in err
    assert re.search(
        r"  mini_transfer_retry_01\[t1\]: results.jsonl says success \(user_stop; .*\), its trajectory grades failure \(user_stop; failed action\[0\]",
        err,
    )
    assert main(["leaderboard", str(run), *contracts(mini_project)]) == ExitCode.BAD_INPUT
    assert "refused, its results do not match its trajectories" in capsys.readouterr().err


def test_labels_are_read_from_the_trajectories_not_the_summary(
    mini_project: CrmProject, capsys: pytest.CaptureFixture[str]
) -> None:
    # A label changes no score: an old run labelled by an older grader (or an edited label) is
    # ranked with the labels its trajectories grade to now, not refused and not believed.
    mini_project.run("--crm-run-dir=null", "--crm-agent=null")
    run = mini_project.path / "null"
    edit_results(run, lambda r: {**r, "primary_label": "order"} if r["outcome"] == "failure" else r)
    capsys.readouterr()
    assert main(["leaderboard", str(run), "--json", *contracts(mini_project)]) == ExitCode.OK
    labels = json.loads(capsys.readouterr().out)["systems"][0]["failure_labels"]
    assert "order" not in labels
    assert labels.get("action", 0) > 0


def test_a_dropped_failure_is_noticed(mini_project: CrmProject, capsys: pytest.CaptureFixture[str]) -> None:
    mini_project.run("--crm-run-dir=null", "--crm-agent=null")
    run = mini_project.path / "null"
    edit_results(run, lambda r: None if r["task_id"] == "mini_checkout_chain_01" else r)
    capsys.readouterr()
    assert main(["gate", str(run), "--fail-under", "0", *contracts(mini_project)]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert "results.jsonl holds 5 result(s), the run finished with 6" in err
    assert "mini_checkout_chain_01[t1]: a trajectory without a result" in err


def test_an_edited_trajectory_does_not_replay(mini_project: CrmProject, capsys: pytest.CaptureFixture[str]) -> None:
    mini_project.run("--crm-run-dir=null", "--crm-agent=null")
    run = mini_project.path / "null"
    trace = run / "traces" / "mini.jsonl"
    entries = [json.loads(line) for line in trace.read_text().splitlines()]
    entries[2]["evidence"]["final_state"]["accounts"]["ACC-2"]["balance"] = "0.00"
    trace.write_text("".join(json.dumps(e) + "\n" for e in entries))
    capsys.readouterr()
    assert main(["leaderboard", str(run), *contracts(mini_project)]) == ExitCode.BAD_INPUT
    assert (
        "mini_balance_only_01[t1]: its trajectory does not replay: replayed final state differs"
        in capsys.readouterr().err
    )


def test_the_leaderboard_compares_like_with_like(mini_project: CrmProject, capsys: pytest.CaptureFixture[str]) -> None:
    mini_project.run("--crm-run-dir=gold").assert_outcomes(passed=6)
    mini_project.run("--crm-run-dir=one", "--crm-agent=null", "-k", "override")
    paths = [str(mini_project.path / name) for name in ("gold", "one")]
    capsys.readouterr()
    # Once a 1-task run was ranked next to a 73-task run.
    assert main(["leaderboard", *paths, *contracts(mini_project)]) == ExitCode.BAD_INPUT
    assert capsys.readouterr().err.splitlines() == [
        "crmbench: error: these runs cover different tasks and cannot be ranked together (select the same tasks"
        " with -k/-m):",
        "  1 task(s): one",
        "  6 task(s): gold",
    ]


def test_a_killed_run_is_no_round(mini_project: CrmProject, capsys: pytest.CaptureFixture[str]) -> None:
    mini_project.run("--crm-run-dir=gold").assert_outcomes(passed=6)
    mini_project.run("--crm-run-dir=killed").assert_outcomes(passed=6)
    manifest = mini_project.path / "killed" / "manifest.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "finished": None}))  # what a kill leaves
    capsys.readouterr()
    assert (
        main(
            [
                "leaderboard",
                "--json",
                *(str(mini_project.path / n) for n in ("gold", "killed")),
                *contracts(mini_project),
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert json.loads(out)["systems"][0]["k"] == 1  # once two rounds
    assert "crmbench: killed: left out, the run did not finish" in err
    assert main(["gate", str(mini_project.path / "killed"), "--fail-under", "0", *contracts(mini_project)]) == 1


def test_a_run_of_another_task_set_cannot_be_checked(
    mini_project: CrmProject, capsys: pytest.CaptureFixture[str]
) -> None:
    mini_project.run("--crm-run-dir=gold").assert_outcomes(passed=6)
    mini_project.write("mini.yaml", replace_once(mini_text(), "Send $1,000 from ACC-1", "Send $1,001 from ACC-1"))
    capsys.readouterr()
    assert main(["leaderboard", str(mini_project.path / "gold"), *contracts(mini_project)]) == ExitCode.BAD_INPUT
    assert "it was made with another task set (sha256:" in capsys.readouterr().err


def test_progress_lines_while_a_run_goes_on(mini_project: CrmProject) -> None:
    """Issue 12 item 14: with a short interval every finished task prints its line (-v: one line per
    item, so the progress lines break no line of letters); by default none."""
    result = mini_project.run("--crm-agent=null", "--crm-progress=0.000001", "-p", "no:randomly", "-v")
    progress = [line for line in result.stdout.lines if line.startswith("crmbench progress: ")]
    assert progress, result.stdout.str()
    assert progress[-1].startswith("crmbench progress: 6/6 task results, 0.0% success (0/6 scored), 0 infra, $0.00")
    assert "crmbench progress" not in mini_project.run("--crm-agent=null").stdout.str()
    # Never for the gold self-test: seconds long, and a running "success rate" of it would alarm.
    assert "crmbench progress" not in mini_project.run("--crm-progress=0.000001").stdout.str()
