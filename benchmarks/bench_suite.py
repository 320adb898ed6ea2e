"""The project's own test suite, timed as ``.ci/run`` runs it, at one or more revisions back to back.

Each revision is checked out into a temporary clone of this repository and its suite run there
with this interpreter (the clone first on ``PYTHONPATH``, so its own ``pytest_crmbench`` is the one
imported; the venv must hold every revision's test dependencies), Python's bytecode cache on as in
``.ci/run``. One round is one run of each revision in turn; the report gives, per revision, the
median wall and CPU (user + sys of the run's processes) and the tests pytest counted, and each
revision's wall as a ratio of the first's, so the machine's load cancels as far as it can.

Usage: ``python benchmarks/bench_suite.py [--rev REV[=COMMAND]]... [--rounds 1] [--keep DIR]``; ``--keep``
writes each run's whole output to ``DIR/<rev>-<round>.log`` (to see why a run failed); the default is
the working tree's HEAD with ``.ci/run``'s pytest command plus ``-q``; ``--no-bytecode`` runs every revision with
``PYTHONDONTWRITEBYTECODE=1`` (what ``.ci/run`` ran under before it unset it). ``REV=COMMAND`` runs another command at that
revision (issue 25's baseline ran serially, as CI then did: ``--rev 1217e56='pytest -q'``). See
docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COUNTED = re.compile(r"(\d+) passed")


def ci_test_command() -> str:
    """The pytest command ``.ci/run`` ends with (after the gate's ``&&``), quiet: the default timed."""
    last = (REPO / ".ci" / "run").read_text(encoding="utf-8").rstrip().splitlines()[-1]
    return last.rpartition("&& ")[2] + " -q"


def checkout(rev: str, into: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(REPO), str(into)], check=True)
    subprocess.run(["git", "checkout", "-q", rev], cwd=into, check=True)
    return into


def timed_run(clone: Path, command: str, *, bytecode: bool = True) -> dict[str, float | int | str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONPATH"] = str(clone)
    env.setdefault("CI", "true")
    argv = shlex.split(command)
    if argv[0] == "pytest":
        argv = [sys.executable, "-m", "pytest", *argv[1:]]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=clone, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = [line for line in done.stdout.splitlines() if " passed" in line and " in " in line]
    passed = COUNTED.search(summary[-1]) if summary else None
    return {
        "wall": wall,
        "cpu": cpu,
        "tests": int(passed.group(1)) if passed else 0,
        "rc": done.returncode,
        "summary": summary[-1].strip("= ") if summary else done.stdout[-300:],
        "output": done.stdout + done.stderr,
    }


def kept(folder: Path, rev: str, round_number: int, output: str) -> Path:
    """Where a run's whole output is kept: ``<folder>/<rev>-<round>.log`` (a rev's slashes made safe)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{re.sub(r'[^A-Za-z0-9._-]', '_', rev)}-{round_number}.log"
    path.write_text(output, encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", action="append", default=[], metavar="REV[=COMMAND]")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="write each run's whole output to DIR/<rev>-<round>.log"
    )
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="run with PYTHONDONTWRITEBYTECODE=1 (every process compiles from source, as this machine's default)",
    )
    args = parser.parse_args()
    wanted = [(r.partition("=")[0], r.partition("=")[2] or ci_test_command()) for r in args.rev or ["HEAD"]]
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-suite-") as tmp:
        clones = [checkout(rev, Path(tmp) / f"rev{i}") for i, (rev, _) in enumerate(wanted)]
        runs: list[list[dict[str, float | int | str]]] = [[] for _ in wanted]
        for round_number in range(1, args.rounds + 1):
            for i, ((rev, command), clone) in enumerate(zip(wanted, clones, strict=True)):
                result = timed_run(clone, command, bytecode=not args.no_bytecode)
                runs[i].append(result)
                where = f" (output: {kept(args.keep, rev, round_number, str(result['output']))})" if args.keep else ""
                print(
                    f"  {rev} `{command}`: {result['wall']:.1f} s wall, {result['cpu']:.1f} s CPU, "
                    f"rc {result['rc']}: {result['summary']}{where}",
                    flush=True,
                )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    first = statistics.median(float(r["wall"]) for r in runs[0])
    for (rev, command), results in zip(wanted, runs, strict=True):
        wall = statistics.median(float(r["wall"]) for r in results)
        cpu = statistics.median(float(r["cpu"]) for r in results)
        print(
            f"{rev} `{command}`: median {wall:.1f} s wall ({wall / first:.2f} of the first), {cpu:.1f} s CPU, "
            f"{results[-1]['tests']} tests"
        )


if __name__ == "__main__":
    main()
