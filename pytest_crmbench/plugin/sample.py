"""``--crm-sample=N``: run a seeded, stratified subset of the selected tasks (issue 32).

After ``-k``/``-m`` (``trylast``), the task items are narrowed to N tasks drawn by
:func:`pytest_crmbench.core.subset.stratified_sample` with the run's ``--crm-seed``; every trial of
a chosen task runs. The controller records the sample in the manifest (``sample``: N, the seed and
the chosen task ids), so a resumed run runs the same tasks (it reads them from the manifest:
``--crm-sample`` need not be repeated, and a different N is refused) and the report says the run
is a sample. Under xdist every worker draws the same sample from the same collection; a resumed
run's recorded tasks are sent to the workers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from pytest_crmbench.core.subset import Candidate, describe, stratified_sample
from pytest_crmbench.plugin.nodeids import is_task_nodeid, split_nodeid
from pytest_crmbench.plugin.recorder import RunRecorder

SAMPLE_INPUT = "crm_sample_tasks"
"""``workerinput`` key: the task ids a resumed sampled run is restricted to."""


class TaskSample:
    """Registered as ``crmbench-sample`` wherever items are collected, and on the controller."""

    def __init__(self, n: int, seed: int, fixed: list[str] | None = None, recorder: RunRecorder | None = None) -> None:
        self.n = n
        self.seed = seed
        self.fixed = fixed
        """A resumed run's recorded sample: these tasks, whatever N would draw now."""
        self.recorder = recorder
        self.chosen: list[str] | None = None
        self.selected = 0

    @pytest.hookimpl(trylast=True)  # after -k/-m: the sample is drawn from what they selected
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        tasks = {item.record.task.id: item.record.task for item in items if getattr(item, "record", None)}  # type: ignore[attr-defined]
        self.selected = len(tasks)
        if self.fixed is not None:
            chosen = set(self.fixed)
        else:
            candidates = [Candidate(t.id, t.domain, t.difficulty) for t in tasks.values()]
            chosen = set(stratified_sample(candidates, self.n, self.seed))
        dropped = [item for item in items if getattr(item, "record", None) and item.record.task.id not in chosen]  # type: ignore[attr-defined]
        if dropped:
            items[:] = [item for item in items if item not in dropped]
            config.hook.pytest_deselected(items=dropped)
        self.chosen = sorted(chosen & set(tasks))

    def pytest_report_collectionfinish(self, config: pytest.Config) -> list[str]:
        if self.chosen is None or config.get_verbosity() < 0:
            return []
        return [f"crmbench: {describe(self.chosen, self.selected, self.n, self.seed)}"]

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self.chosen is not None:
            self._record(self.chosen)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self._record(sorted({split_nodeid(nodeid)[0] for nodeid in ids if is_task_nodeid(nodeid)}))

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self.fixed is not None:
            node.workerinput[SAMPLE_INPUT] = self.fixed

    def _record(self, tasks: list[str]) -> None:
        """The sample in the manifest, before it is first written (a resumed run keeps its own)."""
        if self.recorder is not None and self.fixed is None:
            self.recorder.add_to_manifest({"sample": {"n": self.n, "seed": self.seed, "tasks": tasks}})


def saved_sample(manifest: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    sample = manifest.get("sample") if manifest else None
    return sample if isinstance(sample, Mapping) else None


def configure(config: pytest.Config, n: int | None, seed: int, recorder: RunRecorder | None) -> None:
    """From ``pytest_configure``: the sample of a fresh run, the recorded one of a resumed run."""
    if recorder is None:  # an xdist worker
        fixed = getattr(config, "workerinput", {}).get(SAMPLE_INPUT)
        if n or fixed is not None:
            config.pluginmanager.register(TaskSample(n or 0, seed, fixed), "crmbench-sample")
        return
    if recorder.options.resume is not None:
        saved = saved_sample(recorder.manifest)  # the resumed run's manifest, continued
        if saved is None and n:
            raise pytest.UsageError("--crm-sample: the run to resume was not a sample; drop --crm-sample")
        if saved is not None and n and n != saved.get("n"):
            raise pytest.UsageError(
                f"--crm-sample={n}: the run to resume is a sample of {saved.get('n')} tasks; drop --crm-sample"
                " (a resumed run keeps its own sample)"
            )
        if saved is not None:
            tasks = [str(t) for t in saved.get("tasks") or []]
            config.pluginmanager.register(
                TaskSample(int(saved.get("n") or len(tasks)), int(saved.get("seed") or seed), tasks, recorder),
                "crmbench-sample",
            )
        return
    if n:
        config.pluginmanager.register(TaskSample(n, seed, None, recorder), "crmbench-sample")
