"""``--crm-concurrency`` with ``-n``/``--tx``: each xdist worker plays its own episodes in a thread pool.

xdist's default ``--dist load`` hands items to workers in chunks as they finish, so a worker
cannot know which episodes to play ahead. Under ``--crm-concurrency`` the controller schedules
statically instead: item ``i`` of the (identical) collection goes to worker ``gw{i % N}``, all at
once, and each worker plays exactly those items ahead, N per host spread however the ``--tx``
specs say. A worker that xdist restarts after a crash gets a new id beyond N and plays what it
is sent inline; items lost with a crashed worker become ``error`` rows as with any xdist run.
"""

from __future__ import annotations

from typing import Any

import pytest

WORKER_ID = "gw"


def worker_index(config: pytest.Config) -> tuple[int, int] | None:
    """(this worker's index, the number of workers) on an xdist worker, else None."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return None
    return int(str(workerinput["workerid"]).removeprefix(WORKER_ID)), int(workerinput["workercount"])


def plays_here(position: int, worker: tuple[int, int] | None) -> bool:
    """Whether the item at ``position`` of the collection is this process's to play ahead."""
    return worker is None or position % worker[1] == worker[0]


def static_scheduler(config: pytest.Config, log: Any) -> Any:
    """A ``LoadScheduling`` that sends every worker its share (position modulo workers) at once."""
    from xdist.scheduler import LoadScheduling  # type: ignore[import-untyped]

    class StaticScheduling(LoadScheduling):  # type: ignore[misc]
        def schedule(self) -> None:
            if self.collection is not None or not self._check_nodes_have_same_collection():  # type: ignore[has-type]
                super().schedule()
                return
            collection = next(iter(self.node2collection.values()))
            self.collection = collection
            nodes = self.nodes
            by_index = {int(str(node.gateway.id).removeprefix(WORKER_ID)): node for node in nodes}
            shares: dict[Any, list[int]] = {node: [] for node in nodes}
            for position in range(len(collection)):
                node = by_index.get(position % self.numnodes) or nodes[position % len(nodes)]
                shares[node].append(position)
            for node, share in shares.items():
                if share:
                    self.node2pending[node].extend(share)
                    node.send_runtest_some(share)
                node.shutdown()

    return StaticScheduling(config, log)


class StaticSchedule:
    """Registered on the xdist controller when ``--crm-concurrency`` > 1."""

    @pytest.hookimpl(optionalhook=True, tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        return static_scheduler(config, log)
