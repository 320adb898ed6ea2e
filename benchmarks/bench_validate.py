"""The release gate an author waits on: ``crmbench validate --gold`` cold, in parallel, and after an edit.

On a copy of the shipped tasks (``tasks/`` into a temporary folder; ``envs/`` and ``agents/`` read
in place), each round measures the wall time of:

* ``cold, 1 process``: ``--no-cache -j 1`` (every stage, the tool fuzz included, in one process);
* ``cold, N processes``: ``--no-cache -j N`` (``--jobs``, default one per core);
* ``warm``: with a cache filled by a first run and nothing changed;
* ``one task edited``: the same cache after one task's user brief changed (its stage alone runs).

Each figure is the median over ``--rounds``; the ratios to the cold serial gate are what to read on
a noisy machine. Usage: ``python benchmarks/bench_validate.py [--rounds 3] [--jobs N]``.
See docs/performance.md for figures.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EDITED = "payments_balance_check_01"


def gate(tasks: Path, *flags: str, edited: bool = False) -> float:
    """Wall time of one gate; it must pass (after an edit, every problem must be the lock's: the
    edited task's hash moved, and only the edited task may have run again)."""
    command = [sys.executable, "-m", "pytest_crmbench.cli.main", "validate", "--gold", *flags]
    command += ["--tasks", str(tasks), "--envs", str(REPO / "envs"), "--agents", str(REPO / "agents")]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=tasks.parent)
    took = time.perf_counter() - started
    lines = [line for line in done.stdout.splitlines() if not line.startswith("note: ")]
    problems = [line for line in lines if ": task '" in line or "lock" in line]
    lock_only = edited and all("lock" in line for line in problems) and "of 1 task(s)" in done.stderr
    if done.returncode != 0 and not lock_only:
        sys.exit(f"the gate failed on the shipped tasks:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    return took


def edit_one_task(tasks: Path, round_: int) -> None:
    path = tasks / "payments.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index(f"- id: {EDITED}")
    persona = text.index("persona:", start)
    path.write_text(text[:persona] + f"persona: (round {round_}) " + text[persona + len("persona: ") :], "utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    figures: dict[str, list[float]] = {"cold, 1 process": [], f"cold, {args.jobs} processes": [], "warm": []}
    figures["one task edited"] = []
    with tempfile.TemporaryDirectory() as scratch:
        tasks = Path(scratch) / "tasks"
        shutil.copytree(REPO / "tasks", tasks)
        cache, jobs = Path(scratch) / "cache", str(args.jobs)
        for round_ in range(args.rounds):
            shutil.copy(REPO / "tasks" / "payments.yaml", tasks / "payments.yaml")  # undo the last round's edit
            figures["cold, 1 process"].append(gate(tasks, "--no-cache", "-j", "1"))
            figures[f"cold, {args.jobs} processes"].append(gate(tasks, "--no-cache", "-j", jobs))
            shutil.rmtree(cache, ignore_errors=True)
            gate(tasks, "--cache-dir", str(cache), "-j", jobs)
            figures["warm"].append(gate(tasks, "--cache-dir", str(cache), "-j", jobs))
            edit_one_task(tasks, round_)
            figures["one task edited"].append(gate(tasks, "--cache-dir", str(cache), "-j", jobs, edited=True))
    cold = statistics.median(figures["cold, 1 process"])
    load = os.getloadavg()[0]
    print(f"crmbench validate --gold on the shipped tasks, {args.rounds} round(s), load average {load:.1f}")
    for name, values in figures.items():
        median = statistics.median(values)
        print(
            f"{name:<22}{median:>8.1f} s  {median / cold:>5.2f} of cold serial  ({', '.join(f'{v:.1f}' for v in values)})"
        )


if __name__ == "__main__":
    main()
