"""``crmbench audit`` on the mini fixture, against hand-counted numbers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pytest_crmbench.cli.main import main
from pytest_crmbench.release.audit import run_audit, source_revision
from tests.release.conftest import AGENTS, MakeTasks

# Hand count of tests/data/tasks/mini.yaml, forbidden.actions lists and the nodes of
# tests/data/agents/mini.yaml exposing each tool:
#   mini_checkout_chain_01  [close_account]                -> admin
#   mini_balance_only_01    [pay_order, execute_transfer]  -> checkout; transfer
#   mini_transfer_frozen_01 [execute_transfer]             -> transfer
#   mini_refusal_close_01   [close_account]                -> admin
# 4 of the 6 tasks declare forbidden actions: 5 declarations, all matched.
EXPECTED_MATCHES = {
    "mini_checkout_chain_01": [{"tool": "close_account", "matched_nodes": ["admin"]}],
    "mini_balance_only_01": [
        {"tool": "pay_order", "matched_nodes": ["checkout"]},
        {"tool": "execute_transfer", "matched_nodes": ["transfer"]},
    ],
    "mini_transfer_frozen_01": [{"tool": "execute_transfer", "matched_nodes": ["transfer"]}],
    "mini_refusal_close_01": [{"tool": "close_account", "matched_nodes": ["admin"]}],
}


def audit_args(tasks: Path, out: Path) -> list[str]:
    return ["audit", "--tasks", str(tasks), "--agents", str(AGENTS), "--out", str(out)]


def test_mini_audit_matches_the_hand_count(
    make_tasks: MakeTasks, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "evidence" / "capability_exposure_audit.json"
    assert main(audit_args(make_tasks(mini=True), out)) == 0
    report = json.loads(out.read_text())
    assert report["totals"] == {"task_set": 6, "tasks": 4, "declarations": 5, "unmatched": 0}
    assert {t["task_id"]: t["declarations"] for t in report["tasks"]} == EXPECTED_MATCHES
    assert sorted(Path(p).name for p in report["input_hashes"]) == ["mini.yaml", "mini.yaml"]  # tasks + graph
    assert all(h.startswith("sha256:") for h in report["input_hashes"].values())
    assert "5 forbidden-action declaration(s) on 4 task(s), 0 unmatched" in capsys.readouterr().out


def test_an_unexposed_forbidden_tool_is_unmatched_and_fails(
    make_tasks: MakeTasks, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "audit.json"
    assert main(audit_args(make_tasks("forbids_unexposed.yaml", mini=True), out)) == 1
    report = json.loads(out.read_text())
    assert report["unmatched"] == [{"task_id": "mini_forbids_unexposed_01", "tool": "broken_tool"}]
    assert report["totals"]["declarations"] == 6
    assert "task 'mini_forbids_unexposed_01' forbids 'broken_tool'" in capsys.readouterr().out


def test_source_revision_is_the_git_head_or_none_outside_git(tmp_path: Path) -> None:
    repo = Path(__file__).parents[2]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=False)
    assert source_revision(repo) == (head.stdout.strip() if head.returncode == 0 else None)
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    (outside / ".git").write_text("gitdir: /nonexistent\n")  # make sure no enclosing repository is found
    assert source_revision(outside) is None


def test_audit_of_the_payments_release_matches_every_declaration(tmp_path: Path) -> None:
    root = Path(__file__).parents[2]
    result = run_audit(root / "tasks", root / "agents", tmp_path / "audit.json")
    assert result.ok, result.lines()
    assert result.report["totals"]["declarations"] > 0


def test_a_task_set_that_does_not_load_leaves_the_evidence_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "evidence" / "capability_exposure_audit.json"
    out.parent.mkdir()
    out.write_text('{"previous": true}\n')
    assert main(audit_args(tmp_path / "no_such_tasks", out)) == 1
    assert out.read_text() == '{"previous": true}\n'
    assert "nothing written" in capsys.readouterr().out


def test_the_default_output_is_under_the_ignored_run_folder(
    tmp_path: Path, make_tasks: MakeTasks, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 12 item 12: ``crmbench audit`` left an untracked evidence/ in the working tree."""
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "--tasks", str(make_tasks(mini=True)), "--agents", str(AGENTS)]) == 0
    assert (tmp_path / "crm-runs" / "evidence" / "capability_exposure_audit.json").is_file()
    assert not (tmp_path / "evidence").exists()
    ignored = (Path(__file__).resolve().parents[2] / ".gitignore").read_text(encoding="utf-8").split()
    assert "crm-runs/" in ignored
