"""The README stays true (issue 12): its set-up commands, every option it names, its agent code."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pytest_crmbench.plugin.optiontable import OPTIONS
from tests.integration.helpers import CrmProject

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
DOCS = {path.name: path.read_text(encoding="utf-8") for path in sorted((REPO / "docs").glob("*.md"))}


def section(text: str, heading: str) -> str:
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else None]


def same_but_numbers(documented: str, printed: str) -> bool:
    """The same line up to its numbers: the wording and order stay true while tasks are added."""
    pattern = "".join(r"\d+" if part.isdigit() else re.escape(part) for part in re.split(r"(\d+)", documented))
    return re.fullmatch(pattern, printed) is not None


def code_blocks(text: str, language: str = "") -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.DOTALL | re.MULTILINE)


def test_exactly_two_set_up_commands_the_main_job_and_the_tests() -> None:
    blocks = code_blocks(section(README, "## Set up"))
    assert len(blocks) == 2
    run, tests = (block.strip() for block in blocks)
    assert run.endswith("pip install -q -e . && pytest tasks/")
    command = "crmbench validate --gold && pytest -n auto --dist worksteal"
    assert tests.endswith(f'pip install -q -e ".[test]" && {command}')
    assert (REPO / ".ci" / "run").read_text(encoding="utf-8").rstrip().endswith(command)


@pytest.mark.parametrize("name", ["README.md", *DOCS])
def test_every_option_named_in_the_docs_exists(name: str) -> None:
    text = README if name == "README.md" else DOCS[name]
    flags = {o.flag_name for o in OPTIONS if o.flag}
    named = set(re.findall(r"--crm-[a-z-]+[a-z]", text))
    assert named <= flags, f"{name} names options that do not exist: {sorted(named - flags)}"


def test_readme_and_agents_doc_agree_on_tool_call_results() -> None:
    """``call.result`` is the tool's return value, ``call.output()`` what a model is shown."""
    for text in (README, DOCS["agents.md"]):
        (snippet,) = [block for block in code_blocks(text, "python") if "def make(" in block]
        assert "call.result[" in snippet and "call.output()" in snippet


@pytest.fixture
def payments(crm_project: CrmProject) -> CrmProject:
    shutil.copytree(REPO / "envs" / "payments", crm_project.path / "envs" / "payments")
    crm_project.add("payments.yaml", REPO / "tasks" / "payments.yaml")
    crm_project.pytester.syspathinsert()
    return crm_project


@pytest.mark.parametrize("doc", ["README.md", "agents.md"])
def test_the_documented_agent_runs(payments: CrmProject, doc: str) -> None:
    text = README if doc == "README.md" else DOCS["agents.md"]
    (snippet,) = [block for block in code_blocks(text, "python") if "def make(" in block]
    module = f"documented_agent_{doc.split('.')[0].lower()}"
    (payments.path / f"{module}.py").write_text(snippet, encoding="utf-8")
    result = payments.run(f"--crm-agent={module}:make", "-k", "payments_balance_check_01", "--crm-run-dir=run")
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors", 0) == 0 and "Traceback" not in result.stdout.str(), result.stdout.str()
    trace = (payments.path / "run" / "traces" / "payments.jsonl").read_text(encoding="utf-8")
    assert "Your balance is $" in trace or "Your balance is " in trace, trace[:2000]


def test_the_readme_failure_example_is_what_a_run_prints(payments: CrmProject) -> None:
    (example,) = [block for block in code_blocks(README) if "FAILED" in block and "expected" in block]
    result = payments.run("--crm-agent=null", "-k", "payments_transfer_insufficient_then_retry_01")
    out = result.stdout.lines
    for line in example.strip().splitlines()[1:]:
        assert any(same_but_numbers(line, printed) for printed in out), line


def test_the_readme_end_of_run_example_is_what_a_run_prints(payments: CrmProject) -> None:
    (example,) = [block for block in code_blocks(README) if "crmbench gate FAILED" in block]
    result = payments.run("--crm-agent=null", "--crm-fail-under=0.80", "-q", "-p", "no:randomly")
    printed = [line for line in result.stdout.lines if line.strip()]
    assert same_but_numbers(example.strip().splitlines()[-1], printed[-1])  # the verdict is the last line
    for line in example.strip().splitlines():
        if line == "..." or line.startswith(("run directory: ", "report: ", "| Rank ")):
            continue
        assert any(same_but_numbers(line, p) for p in printed), line


def test_the_progress_letters_explained_in_reports_md_are_what_a_run_prints(mini_project: CrmProject) -> None:
    # Issue 32: pytest's `u` marks for subtests (failed checks) were explained nowhere.
    documented = section(DOCS["reports.md"], "## Terminal summary")
    (line,) = [line for line in documented.splitlines() if line.startswith("tasks/mini.yaml ")]
    assert "one `u` per check" in documented
    printed = [text for text in mini_project.run("--crm-agent=null").outlines if text.startswith("tasks/mini.yaml ")]
    assert [line.split()] == [text.split() for text in printed]


def test_readme_commands_that_need_an_extra_say_which() -> None:
    """Issue 32's walkthrough: after the README's `pip install -e .`, `crmbench validate --gold`
    exited 1 with "the tool fuzz needs hypothesis" as one of its problems; the README did not say."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    use = [line for line in text.splitlines() if line.startswith("crmbench validate")]
    assert use
    assert all('".[release]"' in line for line in use), use
