"""--crm-sample=N: a seeded subset of the selected tasks, stratified by domain and difficulty,
recorded in the manifest, kept by --crm-resume, the same under xdist (issue 32, the report)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pytest_crmbench.core.loader import load_task_file
from tests.integration.helpers import CrmProject
from tests.integration.test_models import payments  # noqa: F401  (fixture)


def manifest(run: Path) -> dict[str, Any]:
    return dict(json.loads((run / "manifest.json").read_text()))


def results(run: Path) -> list[tuple[str, int]]:
    return sorted((r["task_id"], r["trial"]) for r in map(json.loads, (run / "results.jsonl").read_text().splitlines()))


def difficulties(project: CrmProject) -> dict[str, str]:
    return {r.task.id: r.task.difficulty for r in load_task_file(project.tasks / "payments.yaml")}


def test_a_stratified_seeded_sample_recorded_in_the_manifest(payments: CrmProject) -> None:  # noqa: F811
    result = payments.run("--crm-agent=null", "--crm-run-dir=run", "--crm-sample=6")
    result.stdout.fnmatch_lines(
        ["crmbench: --crm-sample=6: 6 of 73 selected task(s), stratified by domain and difficulty (seed 0)"]
    )
    sample = manifest(payments.path / "run")["sample"]
    assert (sample["n"], sample["seed"], len(sample["tasks"])) == (6, 0, 6)
    assert [task for task, _ in results(payments.path / "run")] == sample["tasks"]
    levels = difficulties(payments)
    drawn = Counter(levels[t] for t in sample["tasks"])
    assert set(drawn) == {"easy", "medium", "hard"}  # every stratum when N allows
    whole = Counter(levels.values())
    assert drawn.most_common(1)[0][0] == whole.most_common(1)[0][0]  # in proportion: the largest gets most
    again = payments.run("--crm-agent=null", "--crm-run-dir=again", "--crm-sample=6")
    assert again.ret == result.ret and manifest(payments.path / "again")["sample"]["tasks"] == sample["tasks"]
    payments.run("--crm-agent=null", "--crm-run-dir=other", "--crm-sample=6", "--crm-seed=1")
    assert manifest(payments.path / "other")["sample"]["tasks"] != sample["tasks"]


def test_the_sample_is_drawn_after_k_and_covers_every_trial(payments: CrmProject) -> None:  # noqa: F811
    payments.run("--crm-agent=null", "--crm-run-dir=run", "--crm-sample=3", "--crm-trials=2", "-k", "transfer")
    got = results(payments.path / "run")
    assert len(got) == 6 and all("transfer" in task for task, _ in got)
    assert Counter(task for task, _ in got) == {task: 2 for task, _ in got}


def test_resume_keeps_the_sample_and_refuses_another(payments: CrmProject) -> None:  # noqa: F811
    payments.run("--crm-agent=null", "--crm-run-dir=run", "--crm-sample=5", "-x")
    assert len(results(payments.path / "run")) == 1
    sample = manifest(payments.path / "run")["sample"]["tasks"]
    refused = payments.run("--crm-agent=null", "--crm-resume=run", "--crm-sample=4")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*--crm-sample=4: the run to resume is a sample of 5 tasks; drop --crm-sample*"])
    payments.run("--crm-agent=null", "--crm-resume=run")  # --crm-sample read from the manifest
    assert [task for task, _ in results(payments.path / "run")] == sample


def test_a_sampled_run_resumed_without_a_sample_recorded_is_refused(payments: CrmProject) -> None:  # noqa: F811
    payments.run("--crm-agent=null", "--crm-run-dir=run", "-k", "transfer", "-x")
    refused = payments.run("--crm-agent=null", "--crm-resume=run", "--crm-sample=4")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*--crm-sample: the run to resume was not a sample; drop --crm-sample"])


def test_xdist_workers_draw_the_same_sample(payments: CrmProject) -> None:  # noqa: F811
    payments.run("--crm-agent=null", "--crm-run-dir=one", "--crm-sample=7")
    payments.run_subprocess("--crm-agent=null", "--crm-run-dir=two", "--crm-sample=7", "-n", "2")
    assert results(payments.path / "two") == results(payments.path / "one")
    assert manifest(payments.path / "two")["sample"]["tasks"] == manifest(payments.path / "one")["sample"]["tasks"]


def test_the_report_says_the_run_is_a_sample(payments: CrmProject) -> None:  # noqa: F811
    payments.run("--crm-agent=null", "--crm-run-dir=run", "--crm-sample=2", "--crm-html=yes")
    page = (payments.path / "run" / "report.html").read_text()
    assert "run is a sample: 2 task(s) drawn with --crm-sample=2 (seed 0), stratified by domain and difficulty." in page
