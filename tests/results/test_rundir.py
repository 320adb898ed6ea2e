"""The run directory: append-only results, latest record wins, secrets never written."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from pytest_crmbench.results.records import ResultRecord, encode_record
from pytest_crmbench.results.rundir import (
    RunDir,
    RunDirError,
    default_run_dir,
    load_run,
    read_traces,
    resume_mismatches,
)


def rec(task: str, outcome: str = "success", trial: int = 0) -> ResultRecord:
    return ResultRecord(task_id=task, trial=trial, outcome=outcome)  # type: ignore[arg-type]


def test_default_run_dir_is_timestamped_and_path_safe(tmp_path: Path) -> None:
    now = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    assert (
        default_run_dir(tmp_path, "openai/gpt-4o mini", now)
        == tmp_path / "crm-runs" / "20260304T050607Z-openai-gpt-4o-mini"
    )


def test_results_round_trip_latest_wins_and_truncated_tail_is_ignored(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run")
    run.write_manifest({"system": "m", "created_at": "t"})
    for record in (rec("a", "error"), rec("b"), rec("a", "failure"), rec("a", trial=1)):
        run.append_result(encode_record(record))
    with (run.path / "results.jsonl").open("a") as handle:
        handle.write('{"task_id": "c", "outc')  # killed mid-line
    saved = load_run(run.path)
    assert saved.system == "m"
    assert [(r.task_id, r.trial, r.outcome) for r in saved.records] == [
        ("b", 0, "success"),
        ("a", 0, "failure"),
        ("a", 1, "success"),
    ]


def test_a_corrupt_line_in_the_middle_is_an_error(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    run.write_manifest({})
    run.append_result("not json")
    run.append_result(encode_record(rec("a")))
    with pytest.raises(RunDirError, match=r"results.jsonl:1: not a result record"):
        load_run(tmp_path)


def test_missing_manifest_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="not a crmbench run directory"):
        load_run(tmp_path)


def test_traces_are_json_lines_per_domain(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    run.append_trace("mini", '{"task_id": "a"}')
    run.append_trace("mini", '{"task_id": "b"}')
    run.append_trace("pay/ments", '{"task_id": "c"}')
    assert sorted(p.name for p in (tmp_path / "traces").iterdir()) == ["mini.jsonl", "pay_ments.jsonl"]
    assert [e["task_id"] for e in read_traces(tmp_path)] == ["a", "b", "c"]


def test_resume_compares_hash_agent_models_and_settings() -> None:
    saved = {
        "task_set": {"hash": "h1", "files": ["a"]},
        "agent": "x",
        "models": {},
        "sampling": None,
        "settings": {"trials": 1},
    }
    assert resume_mismatches(saved, {**saved, "created_at": "later", "pytest": {"args": ["-n", "2"]}}) == []
    changed = {**saved, "task_set": {"hash": "h2", "files": ["a"]}, "settings": {"trials": 2}}
    assert resume_mismatches(saved, changed) == [
        "task_set: run has 'h1', now 'h2'",
        "settings: run has {'trials': 1}, now {'trials': 2}",
    ]


def test_appending_after_a_kill_mid_line_starts_a_clean_line(tmp_path: Path) -> None:
    """The resume case: a killed run's half-written last line must not swallow the next record."""
    run = RunDir(tmp_path)
    run.write_manifest({})
    run.append_result(encode_record(rec("a")))
    run.append_trace("mini", '{"task_id": "a"}')
    with (run.path / "results.jsonl").open("a") as handle:
        handle.write('{"task_id": "b", "outc')  # killed mid-line
    with (run.path / "traces" / "mini.jsonl").open("a") as handle:
        handle.write('{"task_id": "b", "evid')
    run.append_result(encode_record(rec("c")))
    run.append_trace("mini", '{"task_id": "c"}')
    assert [r.task_id for r in load_run(tmp_path).records] == ["a", "c"]
    assert [e["task_id"] for e in read_traces(tmp_path)] == ["a", "c"]
    run.append_result(encode_record(rec("d")))  # and the file stays readable after more appends
    assert [r.task_id for r in load_run(tmp_path).records] == ["a", "c", "d"]


def test_a_line_cut_inside_a_character_is_a_truncated_tail_not_a_crash(tmp_path: Path) -> None:
    run = RunDir(tmp_path)
    run.write_manifest({})
    run.append_result(encode_record(rec("a")))
    with (run.path / "results.jsonl").open("ab") as handle:
        handle.write('{"task_id": "b", "error": "dash \u2014'.encode()[:-1])  # cut inside the em dash
    assert [r.task_id for r in load_run(tmp_path).records] == ["a"]
    (run.path / "results.jsonl").write_bytes(b'{"bad": "\xe2\x80"}\n' + encode_record(rec("a")).encode() + b"\n")
    with pytest.raises(RunDirError, match=r"results.jsonl:1: not a result record: not UTF-8"):
        load_run(tmp_path)


def test_resume_ignores_how_calls_are_made() -> None:
    base = {"task_set": {"hash": "h"}, "agent": "graph", "models": {}, "sampling": {"temperature": 0}, "settings": {}}
    lowered = {**base, "execution": {"concurrency": 2, "retries": 8}}
    assert resume_mismatches({**base, "execution": {"concurrency": 16, "retries": 4}}, lowered) == []
    assert resume_mismatches(base, {**base, "sampling": {"temperature": 1}}) != []


def test_every_line_written_is_redacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One choke point: whatever a record, a trace or a manifest carries, no key reaches the disk.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-run-dir-SECRET-0001")
    run = RunDir(tmp_path)
    run.write_manifest({"args": ["--crm-api-base=https://u:sk-run-dir-SECRET-0001@host/v1"]})
    run.append_result(encode_record(rec("a").model_copy(update={"error": "bad key sk-run-dir-SECRET-0001"})))
    run.append_trace("mini", '{"note": "sk-run-dir-SECRET-0001"}')
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert b"SECRET-0001" not in written
    assert b"<redacted>" in written


def test_a_truncated_tail_followed_by_blank_lines_is_still_the_tail(tmp_path: Path) -> None:
    """Lines are read one at a time; "the last line" is the last one that is not blank."""
    run = RunDir(tmp_path)
    run.write_manifest({})
    run.append_result(encode_record(rec("a")))
    with (run.path / "results.jsonl").open("a") as handle:
        handle.write('{"task_id": "b", "outc\n\n   \n')
    assert [r.task_id for r in load_run(tmp_path).records] == ["a"]
    run.append_result(encode_record(rec("c")))  # now the cut line is in the middle: an error
    with pytest.raises(RunDirError, match=r"results.jsonl:2: not a result record"):
        load_run(tmp_path)


def test_closing_a_run_that_wrote_nothing_removes_the_folders_it_created(tmp_path: Path) -> None:
    unused = RunDir(tmp_path / "crm-runs" / "refused")
    unused.open_for_writing(resume=False)
    assert (unused.path / ".lock").is_file()
    unused.close()
    assert list(tmp_path.iterdir()) == []  # crm-runs/ too: this run created it
    used = RunDir(tmp_path / "crm-runs" / "ran")
    used.open_for_writing(resume=False)
    used.write_manifest({"system": "m"})
    used.close()
    assert [p.name for p in used.path.iterdir()] == ["manifest.json"]
