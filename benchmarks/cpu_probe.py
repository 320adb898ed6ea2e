"""A pytest plugin for the benchmarks: at the end of a run, the CPU of the main thread and of the process.

``python -m pytest -p cpu_probe`` with this folder on ``PYTHONPATH`` and ``CRM_CPU_PROBE`` naming a
file: it receives ``{"main": s, "process": s}``. pytest's loop and every hook run on the main
thread; under ``--crm-concurrency`` the episodes run on pool threads, so the difference is theirs.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

PROBE = "CRM_CPU_PROBE"


def pytest_unconfigure() -> None:
    target = os.environ.get(PROBE)
    if target:
        cpu = {"main": time.thread_time(), "process": time.process_time()}
        Path(target).write_text(json.dumps(cpu), encoding="utf-8")
