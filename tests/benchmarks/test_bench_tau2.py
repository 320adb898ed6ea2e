"""benchmarks/bench_tau2.py: it refuses what is not tau2-bench, and its fake tau2-bench roles end."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.benchmarks.scripts import load_script

bench = load_script("bench_tau2")


def fake_install(site: Path, summary: str, *, runner: bool) -> dict[str, str]:
    """A ``tau2`` distribution on a PYTHONPATH folder: the metadata and package the script inspects."""
    (site / "tau2").mkdir(parents=True)
    (site / "tau2" / "__init__.py").write_text("")
    if runner:
        (site / "tau2" / "runner").mkdir()
        (site / "tau2" / "runner" / "__init__.py").write_text("")
    info = site / "tau2-9.9.9.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: tau2\nVersion: 9.9.9\nSummary: {summary}\n")
    return {**os.environ, "PYTHONPATH": str(site)}


def data_folder(root: Path) -> Path:
    (root / "tau2" / "domains" / "retail").mkdir(parents=True)
    (root / "tau2" / "domains" / "retail" / "db.json").write_text("{}")
    (root / "tau2" / "user_simulator").mkdir()
    return root


def test_without_an_interpreter_nothing_is_measured(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--tau2-python", "", "--tau2-data", ""]) == 0
    out = capsys.readouterr().out
    assert "skipped: no tau2-bench interpreter given" in out
    assert "| harness |" not in out


@pytest.mark.parametrize(
    ("python", "message"),
    [(None, "no tau2-bench interpreter given"), ("/nonexistent/python", "no such file")],
)
def test_a_missing_interpreter_is_named(python: str | None, message: str) -> None:
    with pytest.raises(bench.Unavailable, match=message):
        bench.identify_tau2(python, "/data")


def test_an_interpreter_without_tau2_is_refused(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    with pytest.raises(bench.Unavailable, match="tau2-bench is not installed"):
        bench.identify_tau2(sys.executable, str(tmp_path), env=env)


def test_the_unrelated_pypi_tau2_is_refused(tmp_path: Path) -> None:
    env = fake_install(tmp_path / "site", "A package for calculating magnetic relaxation rates", runner=False)
    with pytest.raises(bench.Unavailable, match=r"is not tau2-bench .*magnetic relaxation"):
        bench.identify_tau2(sys.executable, str(data_folder(tmp_path / "data")), env=env)


def test_tau2_bench_needs_its_data_folder(tmp_path: Path) -> None:
    env = fake_install(tmp_path / "site", "tau-bench: Benchmarking tool-agent-user interaction", runner=True)
    with pytest.raises(bench.Unavailable, match=r"no tau2/domains/retail/db\.json"):
        bench.identify_tau2(sys.executable, str(tmp_path / "empty"), env=env)
    assert bench.identify_tau2(sys.executable, str(data_folder(tmp_path / "data")), env=env) == "9.9.9"


def body(system: str, *turns: tuple[str, str], tools: Sequence[str] = ()) -> dict[str, Any]:
    messages = [{"role": "system", "content": system}, *({"role": r, "content": c} for r, c in turns)]
    return {"messages": messages, "tools": [{"type": "function", "function": {"name": t}} for t in tools]}


AGENT = "You are a customer service agent that helps the user according to the <policy> provided below."
USER = (
    "# User Simulation Guidelines\nYou are playing the role of a customer contacting a customer service representative."
)
JUDGE = "You will be given a list of expected outcomes ... metExpectation ..."


def message_of(reply: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = reply["choices"][0]["message"]
    return message


def test_roles_are_told_apart_from_crmbench_requests() -> None:
    assert bench.tau2_role(body(AGENT)) == "agent"
    assert bench.tau2_role(body(USER)) == "user"
    assert bench.tau2_role(body(JUDGE)) == "judge"
    crmbench_agent = "You are the service assistant of Northwind Payments. Follow the policy: verify the customer."
    assert bench.tau2_role(body(crmbench_agent, ("user", "hi"))) is None
    assert bench.tau2_role({"messages": [{"role": "user", "content": "ping"}]}) is None


def test_the_simulated_customer_stops_after_four_lines() -> None:
    lines = []
    history: list[tuple[str, str]] = [("user", "Hi! How can I help you today?")]
    for _ in range(10):
        content = message_of(bench.tau2_reply("user", body(USER, *history)))["content"]
        lines.append(content)
        if "###STOP###" in content:
            break
        history += [("assistant", content), ("user", "ok")]
    assert lines[:4] == list(bench.USER_LINES)
    assert lines[4:] == [bench.DONE_LINE]


def test_the_agent_reads_on_the_first_three_user_turns_then_talks() -> None:
    tools = [name for name, _ in bench.READ_CALLS]
    history: list[tuple[str, str]] = []
    calls = []
    for turn in range(5):
        history.append(("user", f"line {turn}"))
        message = message_of(bench.tau2_reply("agent", body(AGENT, *history, tools=tools)))
        calls.append([c["function"]["name"] for c in message.get("tool_calls") or []])
        history.append(("assistant", "..."))
    assert calls == [["get_user_details"], ["get_order_details"], ["get_product_details"], [], []]
    arguments = message_of(bench.tau2_reply("agent", body(AGENT, ("user", "x"), tools=tools)))["tool_calls"][0]
    assert json.loads(arguments["function"]["arguments"]) == {"user_id": "noah_brown_6181"}


def test_the_agent_never_calls_a_tool_it_was_not_offered() -> None:
    message = message_of(bench.tau2_reply("agent", body(AGENT, ("user", "hi"), tools=["get_users"])))
    assert not message.get("tool_calls") and message["content"]


def test_the_judge_gives_no_verdicts() -> None:
    assert json.loads(message_of(bench.tau2_reply("judge", body(JUDGE)))["content"]) == {"results": []}
