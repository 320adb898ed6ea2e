"""The mutation audit as a release gate: ``crmbench validate --gold`` and ``crmbench audit --mutations``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_crmbench.cli.main import main
from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.release.mutation.conduct_operators import CONDUCT_OPERATORS
from pytest_crmbench.release.mutation.scoring import THRESHOLD
from pytest_crmbench.release.mutation.sweep import run_mutation_audit
from pytest_crmbench.release.passed import DEFAULT_DIR, Passes
from tests.release.conftest import MakeTasks, content_args, run_validate

REPO = Path(__file__).parents[3]


def audit(tasks: Path, out: Path) -> int:
    return main(
        [
            "audit",
            "--mutations",
            "--no-cache",  # never the checkout's remembered audits
            *content_args(tasks),
            "--out",
            str(out.parent / "exposure.json"),
            "--mutations-out",
            str(out),
        ]
    )


def test_the_mini_task_set_passes_the_gate(make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_validate(make_tasks(mini=True), "--gold", "--write-lock") == 0
    out = capsys.readouterr().out
    assert "mutation audit mini: 24/24 wrong paths killed (score 1.000, gate 0.90), 6/6 right paths spared" in out


def test_an_under_specified_task_lets_its_mutants_survive_and_fails_the_gate(
    make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_validate(make_tasks("audit_under_specified.yaml"), "--gold", "--write-lock") == 1
    out = capsys.readouterr().out
    for mutant, what in [
        ("change:1:execute_transfer.amount=49.99", "execute_transfer.amount = 49.99 instead of 50"),
        ("change:1:execute_transfer.amount=60", "execute_transfer.amount = 60 instead of 50"),
        ("duplicate:1:execute_transfer", "execute_transfer made twice"),
    ]:
        assert (
            f"audit_under_specified.yaml:20: task 'mini_audit_under_01': field 'gold.path[1]': mutant '{mutant}' survives: "
            f"it passes every programmatic check ({what})"
        ) in out
    assert (
        "audit_under_specified.yaml: domain 'mini': mutation score 0.600 is below 0.90 (6 of 10 wrong paths killed"
        in out
    )
    assert "lock not written" in out


def test_an_over_specified_task_fails_its_right_paths(
    make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_validate(make_tasks("audit_over_specified.yaml"), "--gold", "--write-lock") == 1
    out = capsys.readouterr().out
    assert (
        "audit_over_specified.yaml:21: task 'mini_audit_over_01': field 'gold.path[0]': right path 'reread:0:get_balance' "
        "fails order[0] get_balance -> validate_transfer (exact) (get_balance read again): the contract is over-specified"
    ) in out
    assert "right path 'swap:0:get_balance<>1:validate_transfer' fails" in out
    assert "0/3 right paths spared" in out


def test_waivers_are_counted_and_an_unused_one_fails(make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_validate(make_tasks("audit_waivers.yaml"), "--gold", "--write-lock") == 1
    out = capsys.readouterr().out
    assert "survives" not in out
    assert (
        "2/2 wrong paths killed (score 1.000, gate 0.90), 0/0 right paths spared, 1 equivalent skipped, 3 survivor(s) and 0 right path(s) waived"
        in out
    )
    assert (
        "audit_waivers.yaml:28: task 'mini_audit_waived_01': field 'mutation_waivers[3].mutation': "
        "unused waiver 'drop:0:pay_order': the mutant is killed; remove it"
    ) in out


def test_hand_written_paths_that_misbehave_fail(make_tasks: MakeTasks, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_validate(make_tasks("audit_paths.yaml"), "--gold", "--write-lock") == 1
    out = capsys.readouterr().out
    assert "mini_audit_paths_01" not in out  # its alternative passes and its counterexample fails
    assert (
        "audit_paths.yaml:52: task 'mini_audit_paths_02': field 'alternatives[0]': alternative fails the contract "
        "(param[0] get_balance (first)): the contract rejects a right path"
    ) in out
    assert "field 'alternatives[1].path[0]': get_balance: expected rejected, got ok: it succeeded" in out
    assert (
        "field 'counterexamples[0]': counterexample passes every programmatic check: the contract accepts a wrong path"
    ) in out
    assert "3/5 hand-written paths as declared" in out


def test_audit_command_writes_per_task_figures_and_every_mutant(
    make_tasks: MakeTasks, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "evidence" / "mutation_audit.json"
    assert audit(make_tasks("audit_under_specified.yaml", "audit_waivers.yaml"), out) == 1
    printed = capsys.readouterr().out
    assert "mini_audit_under_01: killed 6/10 (0.600), spared 2/2, equivalent 0, waived 0" in printed
    assert f"wrote {out}" in printed
    report = json.loads(out.read_text())
    assert report["audit"] == "contract_mutation" and report["threshold"] == THRESHOLD
    mini = report["domains"]["mini"]
    assert mini["wrong_paths"] == {"generated": 12, "killed": 8, "survived": 4, "equivalent": 1, "waived": 3}
    assert mini["score"] == pytest.approx(8 / 12) and mini["passes_gate"] is False
    under = next(t for t in report["tasks"] if t["task_id"] == "mini_audit_under_01")
    assert under["score"] == pytest.approx(0.6)
    duplicate = next(m for m in under["mutants"] if m["id"] == "duplicate:1:execute_transfer")
    assert duplicate == {
        "id": "duplicate:1:execute_transfer",
        "operator": "duplicate",
        "kind": "wrong",
        "outcome": "survived",
        "description": "execute_transfer made twice",
        "failed_checks": [],
    }
    waived = next(t for t in report["tasks"] if t["task_id"] == "mini_audit_waived_01")
    assert {m["waiver"] for m in waived["mutants"] if m["outcome"] == "waived"} == {
        "The note's account is informational in this fixture.",
        "A second note changes nothing that matters in this fixture.",
    }
    assert len(report["survivors"]) == 4 and any("unused waiver" in p for p in report["problems"])
    assert report["not_audited"] == []
    assert all(h.startswith("sha256:") for h in report["input_hashes"].values())


def test_audit_command_keeps_the_evidence_of_a_task_set_that_does_not_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mutation_audit.json"
    out.write_text('{"previous": true}\n')
    assert audit(tmp_path / "no_such_tasks", out) == 1
    assert out.read_text() == '{"previous": true}\n'
    assert "nothing written" in capsys.readouterr().out


def test_the_payments_release_passes_the_gate(tmp_path: Path) -> None:
    # Payments alone (with the manifest's free-text declarations): the whole set's audit runs in
    # .ci/run's `crmbench validate --gold`, just before the tests. Its remembered audits are read
    # here (never written): each one is keyed by everything it depends on, crmbench's own source
    # included, so a reused audit is the one this code computes; without the gate it runs (20 s).
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    for name in ("payments.yaml", "manifest.yaml"):
        shutil.copy(REPO / "tasks" / name, tasks / name)
    gate = Passes(REPO / DEFAULT_DIR)
    result = run_mutation_audit(tasks, REPO / "envs", REPO / "agents", tmp_path / "audit.json", passes=gate)
    assert result.ok, "\n".join(result.lines())
    report = json.loads((tmp_path / "audit.json").read_text())
    payments = report["domains"]["payments"]
    assert payments["tasks"] == len(load_task_file(tasks / "payments.yaml")) and payments["passes_gate"]
    assert payments["score"] >= THRESHOLD
    assert payments["right_paths"]["false_failures"] == 0 and payments["right_paths"]["generated"] > 200
    records = result.run.task_set.records
    declared_waivers = sum(len(r.task.mutation_waivers) for r in records if r.task.domain == "payments")
    assert payments["wrong_paths"]["waived"] + payments["right_paths"]["waived"] == declared_waivers
    assert (
        payments["hand_written"]["alternatives"]["declared"]
        == payments["hand_written"]["alternatives"]["as_declared"]
        > 0
    )
    # Audit v2 on the pilot domain: every conduct operator derives wrong paths and its conduct
    # rules kill at least 98 % of each (none pending: payments declares its rules).
    # Every payments read names its account: no read is a search, so `unfiltered` derives nothing.
    for operator in CONDUCT_OPERATORS - {"unfiltered"}:
        counts = payments["operators"][operator]
        scored = counts.get("killed", 0) + counts.get("survived", 0)
        assert scored > 0 and counts.get("killed", 0) >= 0.98 * scored, (operator, counts)
        assert not any(outcome.startswith("pending") for outcome in counts), (operator, counts)
    assert "unfiltered" not in payments["operators"]
    spots = payments["blind_spots"]
    assert spots["identity_tool"] == "verify_identity"


def prose_tasks() -> str:
    """Twelve payments tasks whose gold path writes prose (a memo, a reason): what the manifest
    once decided about (twelve of the 42, to keep the test short)."""
    import yaml

    from pytest_crmbench.env.registry import discover

    prose = discover([REPO / "envs"])["payments"].prose_arguments()
    records = yaml.safe_load((REPO / "tasks" / "payments.yaml").read_text(encoding="utf-8"))
    chosen = [
        r
        for r in records
        if any(set(step["args"]) & prose.get(step["tool"], set()) for step in r["gold"].get("path", []))
    ]
    assert len(chosen) >= 12
    chosen = chosen[:12]
    return yaml.safe_dump(chosen, sort_keys=False, allow_unicode=True)


def test_the_audit_figures_do_not_depend_on_the_manifest(tmp_path: Path) -> None:
    # Prose arguments are the tools' own declaration: without a manifest the same mutants are
    # derived (once customer_support fell from 1.000 to 0.865 when its prose fields got mutated).
    figures = []
    for with_manifest in (True, False):
        tasks = tmp_path / f"tasks{int(with_manifest)}"
        tasks.mkdir()
        (tasks / "payments.yaml").write_text(prose_tasks(), encoding="utf-8")
        if with_manifest:
            shutil.copy(REPO / "tasks" / "manifest.yaml", tasks / "manifest.yaml")
        result = run_mutation_audit(tasks, REPO / "envs", REPO / "agents", tmp_path / f"audit{int(with_manifest)}.json")
        report = json.loads((tmp_path / f"audit{int(with_manifest)}.json").read_text())
        figures.append((report["domains"]["payments"]["wrong_paths"], report["domains"]["payments"]["operators"]))
        assert result.run.audit.tasks
    assert figures[0] == figures[1]


def test_a_task_whose_gold_path_is_broken_is_not_audited_and_fails(
    make_tasks: MakeTasks, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mutation_audit.json"
    assert audit(make_tasks("gold_fails_contract.yaml", mini=True), out) == 1
    printed = capsys.readouterr().out
    assert (
        "gold_fails_contract.yaml:15: task 'mini_gold_fails_01': field 'gold': not audited: "
        "run `crmbench validate --gold` for its problems"
    ) in printed
    assert "6 task(s) audited, 1 not audited" in printed
    report = json.loads(out.read_text())
    assert [line.split(": ", 1)[1] for line in report["not_audited"]] == [
        "task 'mini_gold_fails_01': field 'gold': not audited: run `crmbench validate --gold` for its problems"
    ]


def test_the_audit_in_two_processes_writes_the_serial_evidence(make_tasks: MakeTasks, tmp_path: Path) -> None:
    # In its own process: no fork where another thread runs (an xdist worker).
    tasks = make_tasks("audit_under_specified.yaml", "gold_fails_contract.yaml", mini=True)
    evidence = []
    for jobs in ("1", "2"):
        out = tmp_path / f"mutations-{jobs}.json"
        command = [sys.executable, "-m", "pytest_crmbench.cli.main", "audit", "--mutations", "-j", jobs]
        command += [*content_args(tasks), "--out", str(tmp_path / "exposure.json"), "--mutations-out", str(out)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert done.returncode == 1, done.stderr  # the under-specified fixture's survivors fail the gate
        evidence.append(json.loads(out.read_text(encoding="utf-8")))
    assert evidence[0] == evidence[1]
    assert evidence[1]["tasks"] and evidence[1]["survivors"] and evidence[1]["not_audited"]
