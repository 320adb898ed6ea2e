"""--crm-run-dir: what a run writes, when it writes it, and `crmbench leaderboard` over saved runs."""

from __future__ import annotations

import json

import pytest

from pytest_crmbench import __version__
from pytest_crmbench.cli.main import main
from pytest_crmbench.core.exitcodes import ExitCode
from pytest_crmbench.results import tables
from pytest_crmbench.results.rundir import load_run, read_traces
from tests.integration.helpers import MINI_IDS, CrmProject

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


def test_progress_lines_while_a_run_goes_on(mini_project: CrmProject) -> None:
    """Issue 12 item 14: with a short interval every finished task prints its line; by default none."""
    result = mini_project.run("--crm-agent=null", "--crm-progress=0.000001", "-p", "no:randomly")
    progress = [line for line in result.stdout.lines if line.startswith("crmbench progress: ")]
    assert progress, result.stdout.str()
    assert progress[-1].startswith("crmbench progress: 6/6 task results, 0.0% success (0/6 scored), 0 infra, $0.00")
    assert "crmbench progress" not in mini_project.run("--crm-agent=null").stdout.str()
    # Never for the gold self-test: seconds long, and a running "success rate" of it would alarm.
    assert "crmbench progress" not in mini_project.run("--crm-progress=0.000001").stdout.str()
