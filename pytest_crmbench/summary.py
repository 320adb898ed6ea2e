"""The controller's tally of task outcomes, written as one ``crmbench`` terminal section.

Per-task data travels on each item's ``user_properties`` (JSON-only values), so it reaches the
xdist controller on the report itself; a crashed worker loses only its in-flight task.
"""

from __future__ import annotations

from collections import Counter

import pytest

OUTCOME_PROPERTY = "crm_outcome"
NOT_JUDGED_PROPERTY = "crm_not_judged"
OUTCOMES = ("success", "failure", "not_judged", "infra")


class RunSummary:
    """Registered on the controller only (never on xdist workers)."""

    def __init__(self) -> None:
        self.outcomes: Counter[str] = Counter()
        self.not_judged_criteria = 0
        self.tasks_with_unjudged_criteria = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" or isinstance(report, pytest.SubtestReport):
            return
        properties = dict(report.user_properties)
        outcome = properties.get(OUTCOME_PROPERTY)
        if isinstance(outcome, str):
            self.outcomes[outcome] += 1
            not_judged = properties.get(NOT_JUDGED_PROPERTY, 0)
            if isinstance(not_judged, int) and not_judged > 0:
                self.not_judged_criteria += not_judged
                self.tasks_with_unjudged_criteria += 1

    def lines(self) -> list[str]:
        total = sum(self.outcomes.values())
        if not total:
            return []
        counts = ", ".join(f"{self.outcomes[o]} {o.replace('_', ' ')}" for o in OUTCOMES)
        lines = [f"{total} task(s): {counts}"]
        if self.not_judged_criteria:
            lines.append(
                f"{self.not_judged_criteria} reply criteria in {self.tasks_with_unjudged_criteria} task(s) were not "
                f"judged (no judge model configured); {self.outcomes['not_judged']} of those tasks passed every other "
                "check but are not counted as successes."
            )
        return lines

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        lines = self.lines()
        if lines and terminalreporter.config.get_verbosity() >= 0:
            terminalreporter.write_sep("-", "crmbench")
            for line in lines:
                terminalreporter.write_line(line)
