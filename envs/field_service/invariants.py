"""World rules every state of the field service world keeps (checked on the seed, on every task's
initial state and after every operation of the property tests)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

from pytest_crmbench import ToolEnvironment, Violation, invariant

from .data_model import OPEN_APPOINTMENT
from .tools import instant


class WorldInvariants(ToolEnvironment):
    @invariant
    def appointments_match_their_work_order(self) -> Iterator[Violation]:
        for sa_id, sa in self.state["appointments"].items():
            wo = self.state["work_orders"].get(sa["work_order_id"])  # None: reported by its Ref
            if wo is not None and wo["account_id"] != sa["account_id"]:
                yield Violation(f"appointments.{sa_id}.account_id", "differs from its work order's account")

    @invariant
    def scheduled_visits_are_complete(self) -> Iterator[Violation]:
        half = timedelta(minutes=int(self.state["settings"]["arrival_window_minutes"]))
        for sa_id, sa in self.state["appointments"].items():
            if sa["status"] == "None":
                continue
            times = ("sched_start", "sched_end", "arrival_window_start", "arrival_window_end")
            if sa["technician_id"] is None or any(sa[t] is None for t in times):
                yield Violation(f"appointments.{sa_id}.sched_start", "a scheduled visit has a technician and times")
                continue
            start = instant(sa["sched_start"])
            if instant(sa["sched_end"]) <= start:
                yield Violation(f"appointments.{sa_id}.sched_end", "ends after it starts")
            window = (instant(sa["arrival_window_start"]), instant(sa["arrival_window_end"]))
            if window != (start - half, start + half):
                yield Violation(
                    f"appointments.{sa_id}.arrival_window_start", "spans the arrival window around the start"
                )

    @invariant
    def no_double_booking(self) -> Iterator[Violation]:
        open_visits = sorted(
            (
                sa
                for sa in self.state["appointments"].values()
                if sa["status"] in OPEN_APPOINTMENT and sa["sched_start"]
            ),
            key=lambda sa: sa["appointment_id"],
        )
        for i, first in enumerate(open_visits):
            for second in open_visits[i + 1 :]:
                same = first["technician_id"] == second["technician_id"]
                overlap = instant(first["sched_start"]) < instant(second["sched_end"]) and instant(
                    second["sched_start"]
                ) < instant(first["sched_end"])
                if same and overlap:
                    yield Violation(
                        f"appointments.{second['appointment_id']}.sched_start", f"overlaps {first['appointment_id']}"
                    )

    @invariant
    def parts_are_conserved(self) -> Iterator[Violation]:
        for part_id, part in self.state["parts"].items():
            on_vans = sum(int(sr["van_stock"].get(part_id, 0)) for sr in self.state["technicians"].values())
            reserved = sum(
                int(line["quantity"])
                for wo in self.state["work_orders"].values()
                for line in wo["line_items"]
                if line["kind"] == "part" and line["part_id"] == part_id
            )
            if on_vans + reserved != int(part["total_units"]):
                yield Violation(
                    f"parts.{part_id}.total_units",
                    f"is {part['total_units']}, vans hold {on_vans} and work orders {reserved}",
                )
            for sr_id, sr in self.state["technicians"].items():
                if int(sr["van_stock"].get(part_id, 0)) < 0:
                    yield Violation(f"technicians.{sr_id}.van_stock.{part_id}", "is negative")
