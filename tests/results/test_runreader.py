"""The live report reads only what a run appended since its last rewrite, and draws the page a
from-scratch read draws (issue 32: each rewrite re-read the whole run, seconds for a release run)."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from pytest_crmbench.core.spec import Task
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.results.html import sources_for, write_report
from pytest_crmbench.results.reportstatus import running
from pytest_crmbench.results.rundir import RESULTS, TRACES, RunDirError
from pytest_crmbench.results.runreader import RunReader
from pytest_crmbench.run.baselines import GoldAgent, NullAgent
from tests.conftest import DATA
from tests.report_runs import quoting_judge, write_run

STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC")


@pytest.fixture(scope="module")
def finished(
    tmp_path_factory: pytest.TempPathFactory, mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]
) -> Path:
    """A run of two trials, then a resumed re-run of one result appended (a later record and trace)."""
    folder = tmp_path_factory.mktemp("growing")
    tasks = list(mini_tasks.values())
    run = write_run(
        folder / "run", tasks, mini_env_class, lambda t: NullAgent(), system="s", trials=2, judge=quoting_judge
    )
    again = write_run(folder / "again", tasks[:1], mini_env_class, GoldAgent, system="s", judge=quoting_judge)
    for name in (RESULTS, *(f"{TRACES}/{f.name}" for f in (again / TRACES).iterdir())):
        with (run / name).open("a", encoding="utf-8") as handle:
            handle.write((again / name).read_text(encoding="utf-8"))
    return run


def lines_of(run: Path) -> dict[str, list[str]]:
    files = [run / RESULTS, *sorted((run / TRACES).iterdir())]
    return {str(f.relative_to(run)): f.read_text(encoding="utf-8").splitlines(keepends=True) for f in files}


def grow(source: Path, target: Path, results: int, cut: bool = False) -> None:
    """``target`` as ``source`` was when it had ``results`` result lines: each result line, then its
    trajectory in its domain's file, as the recorder appends them; with ``cut``, half of the next
    result line too, as a file being appended to at that moment."""
    target.mkdir(exist_ok=True)
    (target / TRACES).mkdir(exist_ok=True)
    shutil.copyfile(source / "manifest.json", target / "manifest.json")
    lines = lines_of(source)
    kept = lines[RESULTS][:results]
    per_domain = Counter(json.loads(line)["domain"] for line in kept)
    for name, all_lines in lines.items():
        count = results if name == RESULTS else per_domain[Path(name).stem]
        text = "".join(all_lines[:count])
        if cut and name == RESULTS and count < len(all_lines):
            text += all_lines[count][: len(all_lines[count]) // 2]
        (target / name).write_text(text, encoding="utf-8")


def page_of(paths: list[Path], output: Path, readers: list[RunReader] | None = None) -> str:
    sources = readers[0].sources if readers else sources_for(DATA / "tasks")
    write_report(paths, output, sources, running(1, 12), readers=readers)
    return STAMP.sub("<stamp>", output.read_text(encoding="utf-8"))


def test_a_growing_run_s_rewrites_are_the_from_scratch_page(finished: Path, tmp_path: Path) -> None:
    growing = tmp_path / "run"
    reader = RunReader(growing, sources_for(DATA / "tasks"))
    for step, results in enumerate((2, 5, 5, 9, 12, 13)):
        grow(finished, growing, results, cut=step % 2 == 0)
        live = page_of([growing], tmp_path / "live.html", [reader])
        cut_off = tmp_path / f"scratch-{step}"
        grow(finished, cut_off, results)  # what the live reader has read: the complete lines
        scratch = page_of([cut_off], tmp_path / "scratch.html")
        assert live == scratch.replace(cut_off.name, growing.name), f"step {step}: {results} results"
    assert len(reader.records) == 12  # 6 tasks x 2 trials; the re-run replaced one result


def test_only_the_new_lines_are_read(finished: Path, tmp_path: Path) -> None:
    growing = tmp_path / "run"
    grow(finished, growing, 6)
    reader = RunReader(growing, sources_for(DATA / "tasks"))
    reader.update()
    read_before = reader._results.offset
    assert read_before == (growing / RESULTS).stat().st_size
    grow(finished, growing, 13)
    (growing / RESULTS).write_bytes(b"X" * read_before + (growing / RESULTS).read_bytes()[read_before:])
    reader.update()  # the first half, overwritten, is not read again: it would not parse
    assert len(reader.records) == 12


def test_a_bad_line_in_the_middle_names_its_file_and_line(finished: Path, tmp_path: Path) -> None:
    growing = tmp_path / "run"
    grow(finished, growing, 13)
    lines = (growing / RESULTS).read_text(encoding="utf-8").splitlines(keepends=True)
    (growing / RESULTS).write_text("".join([lines[0], "not json\n", *lines[1:]]), encoding="utf-8")
    with pytest.raises(RunDirError, match=r"results.jsonl:2: not a result record"):
        RunReader(growing, sources_for(DATA / "tasks")).update()
