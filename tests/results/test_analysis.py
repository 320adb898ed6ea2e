"""pytest_crmbench.results.analysis: saved runs as pandas DataFrames (issue 32, the report)."""

from __future__ import annotations

import builtins
from pathlib import Path

import pytest

from pytest_crmbench.core.spec import Task
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.results.analysis import PandasMissing, results_df, runs_df
from pytest_crmbench.results.leaderboard import RunInput, build
from pytest_crmbench.results.rundir import load_run
from pytest_crmbench.run.baselines import GoldAgent, NullAgent
from tests.report_runs import quoting_judge, write_run


@pytest.fixture(scope="module")
def runs(
    tmp_path_factory: pytest.TempPathFactory, mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> Path:
    folder = tmp_path_factory.mktemp("crm-runs")
    tasks = list(mini_tasks.values())
    write_run(folder / "gold", tasks, mini_env_class, GoldAgent, system="gold", judge=quoting_judge)
    write_run(folder / "null", tasks, mini_env_class, lambda task: NullAgent(), system="null", trials=2)
    return folder


def test_one_row_per_result_with_task_metadata_and_verdicts(runs: Path) -> None:
    df = results_df(runs)  # a folder of run directories
    assert len(df) == 6 + 12
    assert set(df.run) == {"gold", "null"}
    null = df[df.system == "null"]
    assert sorted(null["round"].unique()) == [1, 2] and sorted(null.trial.unique()) == [0, 1]
    row = df[(df.run == "gold") & (df.task_id == "mini_checkout_chain_01")].iloc[0]
    assert (row.domain, row.difficulty, row.outcome, row.success) == ("mini", "hard", "success", True)
    assert row.capabilities and all(isinstance(c, str) for c in row.capabilities)
    assert row.verdict_action == "passed" and row.verdict_reply == "passed"
    assert row.verdict_conduct is None  # the mini domain declares no conduct rules
    failed = df[(df.run == "null") & (df.outcome == "failure")]
    assert (failed.checks_failed > 0).all() and set(failed.primary_label.dropna()) <= {"action", "state", "param"}
    unjudged = df[(df.run == "null") & (df.outcome == "not_judged")]
    assert set(unjudged.verdict_reply) == {"not_judged"}
    assert (df.agent_cost_usd == 0.0).all()  # no model calls: zero, not unknown


def test_the_frame_agrees_with_the_leaderboard(runs: Path) -> None:
    df = results_df([runs / "gold", runs / "null"])
    saved = [load_run(runs / name) for name in ("gold", "null")]
    board = build([RunInput(r.path.name, r.system, r.created_at, r.records) for r in saved])
    for system in board.systems:
        first = df[(df.system == system.system) & (df["round"] == 1) & df.scored]
        assert first.success.mean() == pytest.approx(float(system.first.accuracy or 0))
        by_domain = first.groupby("domain", observed=True).success.mean().to_dict()
        assert by_domain == {d: pytest.approx(float(c.rate or 0)) for d, c in system.first.by_domain.items()}


def test_one_row_per_run(runs: Path) -> None:
    df = runs_df(runs)
    assert list(df.run) == ["gold", "null"]
    assert list(df.results) == [6, 12] and list(df.system) == ["gold", "null"]
    assert df.task_set.notna().all()


def test_a_folder_without_runs_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="neither a crmbench run directory nor a folder of them"):
        results_df(tmp_path)


def test_without_pandas_the_error_says_what_to_install(runs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_pandas(name: str, *args: object, **kwargs: object) -> object:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    for load in (results_df, runs_df):
        with pytest.raises(PandasMissing, match=r"pip install 'crmbench\[analysis\]'"):
            load(runs)


def test_the_documented_example_runs(runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (Path(__file__).parents[2] / "docs" / "reports.md").read_text(encoding="utf-8")
    section = text[text.index("## Analysis in pandas") :]
    example = section[section.index("```python\n") + len("```python\n") : section.index("\n```", 20)]
    (tmp_path / "crm-runs").symlink_to(runs)
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "docs/reports.md", "exec"), {})
