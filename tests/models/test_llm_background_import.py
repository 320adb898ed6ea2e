"""litellm imported on a thread of its own at session start (issue 14 goal 3): one import, whoever
asks first, and a failed import still fails the first real call with today's error."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import pytest

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.models import llm
from pytest_crmbench.models.llm import MISSING_LITELLM, Transport


def test_callers_arriving_during_the_background_import_wait_for_it_and_none_imports_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    imports: list[str] = []
    started = threading.Event()
    stand_in = types.ModuleType("litellm")

    def slow_import(name: str) -> types.ModuleType:
        imports.append(name)
        started.set()
        time.sleep(0.3)  # long enough that every caller below arrives mid-import
        return stand_in

    monkeypatch.setattr(llm.importlib, "import_module", slow_import)
    transport = Transport()
    transport.import_in_background()
    assert started.wait(5)
    got: list[object] = []
    callers = [threading.Thread(target=lambda: got.append(transport.litellm())) for _ in range(8)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join(10)
    transport.import_in_background()  # a second start is a no-op once imported
    transport.close()
    assert imports == ["litellm"]
    assert got == [stand_in] * 8


def test_a_failed_background_import_fails_the_first_call_with_todays_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "litellm", None)  # importing it raises ImportError
    transport = Transport()
    transport.import_in_background()
    transport.close()  # waits for the background thread
    with pytest.raises(CrmbenchError) as raised:
        transport.litellm()
    assert str(raised.value) == MISSING_LITELLM


def test_a_background_import_that_raises_otherwise_is_raised_again_by_the_first_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []

    def broken(name: str) -> types.ModuleType:
        calls.append(name)
        raise RuntimeError("litellm is broken")

    monkeypatch.setattr(llm.importlib, "import_module", broken)
    transport = Transport()
    transport.import_in_background()
    transport.close()
    with pytest.raises(RuntimeError, match="litellm is broken"):
        transport.litellm()
    assert calls == ["litellm", "litellm"]  # tried in the background, then again by the caller


IMPORT_PROBE = """
import gc, sys, time
sys.path.insert(0, sys.argv[1])
from pytest_crmbench.models.llm import import_for_good

class Node:
    def __init__(self): self.me = self
for _ in range(1000):
    Node()  # cyclic garbage made before the import: collected, never frozen
if sys.argv[2] == "disabled":
    gc.disable()
before = gc.get_freeze_count()
module = import_for_good("probe_module")
frozen = gc.get_freeze_count() - before
enabled = gc.isenabled()
again = gc.get_freeze_count()
import_for_good("probe_module")
unchanged = gc.get_freeze_count() == again
gc.disable()
gc.unfreeze()  # frozen objects are invisible to get_objects: bring them back to count the garbage
garbage = sum(type(o).__name__ == "Node" for o in gc.get_objects())
print(enabled, frozen >= len(module.KEPT), garbage, module.no_collection_during_import, unchanged)
"""

PROBE_MODULE = """
import gc
KEPT = [[i] for i in range(5000)]
no_collection_during_import = gc.get_count()[0] >= 5000  # each list is tracked: gen 0 only filled
"""


@pytest.mark.parametrize("state", ["enabled", "disabled"])
def test_a_first_import_pauses_the_collector_then_freezes_what_it_left_alive(tmp_path: Path, state: str) -> None:
    # Run in a child: freezing is process-wide, and only a first import pays for it.
    (tmp_path / "probe_module.py").write_text(PROBE_MODULE)
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", IMPORT_PROBE, str(root), state],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == [str(state == "enabled"), "True", "0", "True", "True"]
