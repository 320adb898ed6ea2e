"""What an agent prints during its episode is kept on a failing item's report: once, as pytest keeps
a test's output, and never repeated in the sub-report of each check."""

from __future__ import annotations

import re

import pytest
from _pytest.capture import FDCapture

from tests.integration.helpers import CrmProject

AGENTS = """
import sys

from pytest_crmbench import NullAgent


class Chatty(NullAgent):
    def respond(self, conversation, tools):
        print("chatty agent on stdout")
        print("chatty agent on stderr", file=sys.stderr)
        return super().respond(conversation, tools)


def pytest_crmbench_make_agent(name, context):
    return Chatty() if name == "chatty" else None
"""


def test_what_a_failing_agent_prints_is_on_its_report_once(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(AGENTS)
    result = mini_project.run("--crm-agent=chatty")
    out = result.stdout.str()
    failed = sum(line.startswith("FAILED tasks/") for line in result.stdout.lines)
    assert failed >= 1, out
    # One section per failing item, none per failing check (a check's sub-report captures nothing).
    assert out.count("Captured stdout call") == failed, out
    assert out.count("Captured stderr call") == failed, out
    assert out.count("chatty agent on stdout") == failed and out.count("chatty agent on stderr") == failed, out
    assert "chatty agent" not in result.stderr.str()


def test_the_checks_of_an_item_start_no_capture_of_their_own(
    mini_project: CrmProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pytest's subtests capture each sub-assertion's output (two temporary files and four dup2s
    # with --capture=fd, about 0.2 ms a check) unless the item holds capsys; a check prints nothing.
    started: list[object] = []
    original = FDCapture.__init__

    def counting(self: FDCapture, targetfd: int) -> None:
        started.append(targetfd)
        original(self, targetfd)

    monkeypatch.setattr(FDCapture, "__init__", counting)
    result = mini_project.run("--capture=fd", "-rN")
    checks = sum(int(n) for n in re.findall(r"and (\d+) check\(s\)", result.stdout.str()))
    assert checks > 20
    # The session's own capture and one per item phase at most; never one per check.
    assert len(started) < checks, (len(started), checks)
