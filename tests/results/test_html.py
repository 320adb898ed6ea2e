"""The HTML report as a file: self-contained, complete, safe with hostile agent text, deterministic."""

from __future__ import annotations

import base64
import gzip
import json
import re
import shutil
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pytest_crmbench.cli.main import main
from pytest_crmbench.core.evidence import Message
from pytest_crmbench.core.exitcodes import ExitCode
from pytest_crmbench.core.spec import Task
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.results import figures
from pytest_crmbench.results.html import TaskPages, read_report_run, render, sources_for
from pytest_crmbench.results.sources import Sources
from pytest_crmbench.run.baselines import GoldAgent, NullAgent
from pytest_crmbench.run.episode import ToolBox
from tests.conftest import DATA
from tests.report_runs import quoting_judge, write_run

GENERATED = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
HOSTILE = "</script><script>alert(1)</script><!-- <b>bold</b>"


class HostileAgent:
    """Replies with text that would end the page's script element if it were pasted raw."""

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        return HOSTILE


@pytest.fixture(scope="module")
def runs(
    tmp_path_factory: pytest.TempPathFactory, mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> list[Path]:
    folder = tmp_path_factory.mktemp("runs")
    tasks = list(mini_tasks.values())
    gold = write_run(folder / "gold", tasks, mini_env_class, GoldAgent, system="gold", judge=quoting_judge)
    null = write_run(
        folder / "null", tasks, mini_env_class, lambda task: NullAgent(), system="null", trials=2, judge=quoting_judge
    )
    return [gold, null]


@pytest.fixture(scope="module")
def full(runs: list[Path]) -> str:
    """The page of both runs (drawn once: figures take a second)."""
    return page(runs)


def page(paths: Sequence[Path], sources: Sources | None = None) -> str:
    sources = sources or sources_for(DATA / "tasks")
    pages = TaskPages()
    return render([read_report_run(p, sources, pages) for p in paths], sources, pages, GENERATED)


def embedded(text: str, name: str) -> Any:
    """The page's index (JSON) or task details (gzipped JSON in base64), decoded."""
    match = re.search(rf'<script type="application/([a-z+0-9]+)" id="crm-{name}">(.*?)</script>', text, re.S)
    assert match is not None
    kind, body = match.groups()
    if kind == "gzip+base64":
        body = gzip.decompress(base64.b64decode(body)).decode("utf-8")
    return json.loads(body)


def test_the_page_loads_nothing_from_anywhere(full: str) -> None:
    text = full
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?!#|data:)""", text), "an attribute points outside the page"
    assert "<link" not in text and "@import" not in text
    assert not re.search(r"url\((?!#|data:)", text)
    assert text.count("<svg") == len(figures.FIGURES)
    assert 'xlink:href="#' in text or "<use" not in text  # SVG references stay inside the page


def test_leaderboard_intervals_and_words(full: str) -> None:
    text = full
    board = text[text.index('<section id="leaderboard">') : text.index('<section id="figures">')]
    assert board.index(">gold</th>") < board.index(">null</th>")
    assert "[61.0-100.0]" in board  # gold: 6 of 6 with a judge passing every quoted reply
    assert "gold is ahead of null beyond the 95 % intervals (61.0-100.0 % vs 3.0-56.4 %)." in board
    assert "Repeated rounds" in board and "Flip rate" in board  # null ran two trials


def test_two_runs_get_the_paired_comparison_and_one_does_not(runs: list[Path], full: str) -> None:
    text = full
    section = text[text.index('<section id="comparison">') : text.index('<section id="tasks">')]
    assert "null against gold" in section
    assert "paired bootstrap" in section  # the null run has two trials per task
    assert "data-task='mini_checkout_chain_01'" in section  # a flipped task, linked to its page
    assert '<section id="comparison">' not in page(runs[:1])


def test_every_result_has_a_row_and_a_task_page(full: str) -> None:
    text = full
    index, details = embedded(text, "index"), embedded(text, "details")
    assert len(index["rows"]) == 6 + 12 == len(details)
    column = {name: i for i, name in enumerate(index["columns"])}
    row = next(r for r in index["rows"] if r[column["task"]] == "mini_checkout_chain_01" and r[column["run"]] == 0)
    detail = details[row[column["detail"]]]
    assert detail["task"]["file"].endswith("tasks/mini.yaml") and detail["task"]["brief"]["opening"].startswith(
        "I'd like to pay"
    )
    assert [t["name"] for t in detail["trajectory"]["tools"]] == ["pay_order", "award_points", "log_note"]
    assert all(c["line"] and c["line"] > detail["task"]["line"] for c in detail["checks"])
    state = {s["path"]: s for s in detail["state"]}
    assert (
        state["accounts.ACC-1.loyalty_points"]["changed"] and state["accounts.ACC-1.loyalty_points"]["final"] == "155"
    )
    assert state["accounts.ACC-3"]["kind"] == "protected" and not state["accounts.ACC-3"]["changed"]
    (verdict,) = detail["judge"]
    assert verdict["quote"] and verdict["quote"] in detail["trajectory"]["messages"][-1]["content"]


def test_hostile_agent_text_stays_data(
    tmp_path: Path, mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    task = mini_tasks["mini_balance_only_01"]
    run = write_run(tmp_path / "evil", [task], mini_env_class, lambda t: HostileAgent(), system="evil<b>")
    text = page([run])
    assert "<script>alert" not in text and "<b>bold" not in text and "evil<b>" not in text
    (detail,) = embedded(text, "details")
    assert detail["trajectory"]["messages"][1]["content"] == HOSTILE  # intact once parsed


def test_same_runs_same_page(runs: list[Path], full: str) -> None:
    assert page(runs) == full


def test_without_matplotlib_the_report_is_written_without_figures(
    runs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing() -> None:
        raise figures.MatplotlibMissing("figures need matplotlib: pip install 'crmbench[report]'")

    monkeypatch.setattr(figures, "_matplotlib", missing)
    text = page(runs)
    assert "<svg" not in text and "pip install &#x27;crmbench[report]&#x27;" in text
    assert '<section id="leaderboard">' in text


def test_missing_task_files_are_noted_and_pages_still_render(runs: list[Path], tmp_path: Path) -> None:
    text = page(runs, sources_for(tmp_path / "nowhere"))
    assert "no task files found" in text
    assert all(d["task"] is None and d["state"] == [] for d in embedded(text, "details"))


def test_crmbench_report_command(runs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out" / "report.html"
    folders = ["--tasks", str(DATA / "tasks"), "--envs", str(DATA / "envs")]
    assert main(["report", *map(str, runs), "-o", str(out), *folders]) == 0
    assert capsys.readouterr().out == f"report written: {out}\n"
    assert "<h1>crmbench report</h1>" in out.read_text(encoding="utf-8")
    assert (
        main(["report", str(tmp_path), "-o", str(out), *folders]) == ExitCode.BAD_INPUT
    )  # not a run directory: unreadable input, not a failed check
    assert "not a crmbench run directory" in capsys.readouterr().err


def test_crmbench_report_refuses_a_run_whose_results_were_edited(
    runs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edited = tmp_path / "null"
    shutil.copytree(runs[1], edited)
    results = edited / "results.jsonl"
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    results.write_text("".join(json.dumps({**line, "outcome": "success"}) + "\n" for line in lines))
    folders = ["--tasks", str(DATA / "tasks"), "--envs", str(DATA / "envs")]
    assert main(["report", str(edited), "-o", str(tmp_path / "r.html"), *folders]) == ExitCode.BAD_INPUT
    assert "refused, its results do not match its trajectories" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_a_resumed_result_shows_its_later_attempt(
    tmp_path: Path, mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> None:
    """A resumed run appends a second record and trajectory for a result; the row is the later one
    and so is the page it opens, the only one packed (the earlier attempt's page is not kept)."""
    task = mini_tasks["mini_balance_only_01"]
    first = write_run(
        tmp_path / "first", [task], mini_env_class, lambda t: NullAgent(), system="s", judge=quoting_judge
    )
    later = write_run(tmp_path / "later", [task], mini_env_class, GoldAgent, system="s", judge=quoting_judge)
    for name in ("results.jsonl", *(f"traces/{f.name}" for f in (later / "traces").iterdir())):
        with (first / name).open("a", encoding="utf-8") as handle:
            handle.write((later / name).read_text(encoding="utf-8"))
    text = page([first])
    index, details = embedded(text, "index"), embedded(text, "details")
    column = {name: i for i, name in enumerate(index["columns"])}
    (row,) = index["rows"]
    assert row[column["outcome"]] == "success"
    assert details[row[column["detail"]]]["record"]["outcome"] == "success"
    assert [d["record"]["outcome"] for d in details] == ["success"]


def test_table_9_is_ordered_by_the_round_mean_with_spearman_and_measure_ranks() -> None:
    """Spec table 9: systems by their three-round mean (the HTML once used the first round, the
    markdown the mean); the pairwise Spearman correlations and figure 16's ranks come with it."""
    from pytest_crmbench.results import html as report_html
    from pytest_crmbench.results import tables
    from pytest_crmbench.results.leaderboard import RunInput, build
    from tests.results.test_leaderboard import rec

    def run(name: str, passes: list[int]) -> RunInput:
        records = [
            rec(f"t{i}", "success" if i < passed else "failure", trial=trial, label=None if i < passed else "action")
            for trial, passed in enumerate(passes)
            for i in range(4)
        ]
        return RunInput(name, name, "2026-11-30", records)

    # First round: early 3/4 ahead of late 2/4; mean over rounds: late 75 % ahead of early 50 %.
    board = build([run("early", [3, 1]), run("late", [2, 4])])
    assert [s.system for s in board.systems] == ["early", "late"]  # table 6: the first round
    section = report_html._leaderboard(board)
    rounds = section[section.index("Repeated rounds (table 9)") :]
    assert rounds.index(">late</th>") < rounds.index(">early</th>")
    markdown = tables.markdown(board)
    assert markdown.index("| late ") < markdown.index("| early ", markdown.index("table 9"))
    assert "Spearman rank correlation, rounds 1-2: -1.000 over 2 systems (average ranks for ties)" in rounds
    ranks = rounds[rounds.index("Rank on each measure (figure 16)") :]
    assert "<th>accuracy</th>" in ranks and "<th>macro</th>" in ranks and "<th>easy</th>" in ranks
    assert "(1/4)" in rounds and "(4/4)" in rounds  # each round's count, as the spec's table gives it
