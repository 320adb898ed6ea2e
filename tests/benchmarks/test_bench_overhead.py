"""benchmarks/bench_overhead.py's parts: pytest's floor runs what it says, the probe splits CPU by thread."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.benchmarks.scripts import BENCHMARKS, load_script

bench = load_script("bench_overhead")


def pytest_in(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-q", *bench.QUIET_PLUGINS, *args]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, env=env, check=False)


def test_the_floor_is_an_item_per_task_and_a_passing_subtest_per_check(tmp_path: Path) -> None:
    assert bench.floor_cpu(tmp_path, 3, 4) > 0
    run = pytest_in(tmp_path, "-p", "no:crmbench", "test_floor.py")
    assert run.returncode == 0, run.stdout
    assert "3 passed, 12 subtests passed" in run.stdout, run.stdout
    assert "crmbench" not in run.stdout


def test_checks_per_task_is_the_mean_over_the_run_directory(tmp_path: Path) -> None:
    results = tmp_path / "crm-runs" / "20261203T000000Z-x" / "results.jsonl"
    results.parent.mkdir(parents=True)
    results.write_text("\n".join(json.dumps({"checks": [{}] * n}) for n in (3, 5, 7)) + "\n", encoding="utf-8")
    assert bench.checks_per_task(tmp_path) == 5


def test_the_probe_writes_the_main_threads_cpu_within_the_process(tmp_path: Path) -> None:
    (tmp_path / "test_spin.py").write_text(
        "import threading\n\n"
        "def spin():\n    sum(i * i for i in range(3_000_000))\n\n"
        "def test_spin():\n    worker = threading.Thread(target=spin)\n    worker.start()\n    worker.join()\n",
        encoding="utf-8",
    )
    out = tmp_path / "probe.json"
    env = bench.probe_env(out)
    run = pytest_in(tmp_path, "-p", "no:crmbench", "-p", "process_probe", "test_spin.py", env=env)
    assert run.returncode == 0, run.stdout
    cpu = json.loads(out.read_text(encoding="utf-8"))
    # The spinning thread's CPU is the process's, not the main thread's.
    assert 0 < cpu["main"] < cpu["process"] - 0.05, cpu
    assert cpu["litellm"] == 0 and cpu["rss_kib"] > 10_000


def test_an_xdist_worker_writes_its_own_probe_file(tmp_path: Path) -> None:
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    out = tmp_path / "probe.json"
    env = bench.probe_env(out)
    run = pytest_in(tmp_path, "-p", "no:crmbench", "-p", "process_probe", "-n", "1", "test_one.py", env=env)
    assert run.returncode == 0, run.stdout
    controller, worker = (json.loads(f.read_text(encoding="utf-8")) for f in (out, tmp_path / "probe.json.gw0"))
    assert controller.keys() == worker.keys() >= {"main", "process", "rss_kib"}


def test_the_time_inside_a_wrapped_completion_is_counted_by_thread_kind() -> None:
    import process_probe

    def completion(n: int) -> int:
        return sum(i * i for i in range(n))

    before = dict(process_probe._inside_litellm)
    timed = process_probe._timed(completion)
    worker = threading.Thread(target=timed, args=(2_000_000,))
    worker.start()
    worker.join()
    assert timed(10) == completion(10)
    spent = {k: process_probe._inside_litellm[k] - before[k] for k in before}
    assert spent["pool"] > 0.01 and 0 <= spent["main"] < spent["pool"], spent


def test_a_probed_run_inherits_no_worker_id_and_no_empty_path_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw7")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    env = bench.probe_env(Path("probe.json"), litellm=True)
    assert "PYTEST_XDIST_WORKER" not in env
    assert env["PYTHONPATH"] == str(BENCHMARKS)  # an empty entry would put the cwd on the path
    assert env["CRM_PROBE"] == "probe.json" and env["CRM_PROBE_LITELLM"] == "1"
