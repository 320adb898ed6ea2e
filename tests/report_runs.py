"""Run directories made from real episodes on the mini domain, for the report's tests.

Each result is a real episode (environment, agent, scripted user) graded by the real grader and
written through :class:`~pytest_crmbench.results.rundir.RunDir`, as the plugin would write it.
``judge`` adds reply verdicts that quote the agent's reply, as an LLM judge's would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import ScriptedUser
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.grading import CheckVerdict, grade
from pytest_crmbench.results.records import ResultRecord, build_record, encode_record, encode_trajectory, trajectory
from pytest_crmbench.results.rundir import FORMAT, RunDir
from pytest_crmbench.results.verify import Contracts
from pytest_crmbench.run.episode import Agent, run_episode

Judge = Callable[[Task, list[str]], list[CheckVerdict]]
DATA = Path(__file__).parent / "data"


def quoting_judge(task: Task, said: list[str]) -> list[CheckVerdict]:
    """Passes every criterion on the agent's last reply, quoting its first words verbatim."""
    reply = said[-1] if said else ""
    quote = " ".join(reply.split()[:5])
    status = "passed" if quote else "failed"
    return [
        CheckVerdict(family="reply", name=f"reply[{i}]", status=status, expected=c, actual=quote)
        for i, c in enumerate(task.contract.reply_criteria)
    ]


def write_run(
    path: Path,
    tasks: Sequence[Task],
    env_class: type[ToolEnvironment],
    agent: Callable[[Task], Agent],
    *,
    system: str,
    trials: int = 1,
    created_at: str = "2026-11-30T12:00:00+00:00",
    judge: Judge | None = None,
) -> Path:
    run = RunDir(path)
    # The real hash of the mini task set: `crmbench report` checks runs against their trajectories.
    task_set = {"hash": Contracts.load(DATA / "tasks", DATA / "envs").hash}
    run.write_manifest(
        {"format": FORMAT, "system": system, "agent": system, "created_at": created_at, "task_set": task_set}
    )
    for trial in range(trials):
        for task in tasks:
            evidence = run_episode(
                task,
                env_class(task.initial_state, seed=100 + trial),
                agent(task),
                ScriptedUser(task),
                agent_name=system,
                trial=trial,
            )
            reply_judge = None if judge is None else (lambda t, e: judge(t, e.assistant_messages()))
            verdict = grade(task, evidence, reply_judge) if reply_judge else grade(task, evidence)
            record = build_record(task, evidence, verdict, model=None, latency_s=0.01)
            run.append_result(encode_record(record))
            text = encode_trajectory(trajectory(evidence, verdict, record))
            assert text is not None
            run.append_trace(task.domain, text)
    return path


# -- a demanding page for the layout checks ------------------------------------------------------

LONG_SYSTEMS = (
    "graph/openrouter/meta-llama/llama-3.3-70b-instruct",
    "flat/anthropic/claude-sonnet-4-5-20250929",
    "graph/openai/gpt-5-mini",
    "mypackage.agents:make/openai/gpt-4.1-nano",
    "null",
)
SYNTHETIC_DOMAINS = (
    "payments",
    "retail",
    "travel",
    "itsm",
    "customer_support",
    "field_service",
    "insurance",
    "healthcare",
    "telecom",
)
SYNTHETIC_LABELS = ("action", "forbidden", "state", "param", "reply", "order", "collateral", "conduct", "execution")


def synthetic_records(system_index: int, rounds: int, tasks: int = 60) -> list[ResultRecord]:
    """Results of one system, hand-made to fill every figure: every domain and difficulty, every
    failure label in several counts, prices, and rounds whose order changes between systems."""
    from pytest_crmbench.results.records import CheckRecord, ResultRecord, UsageRecord

    records = []
    for trial in range(rounds):
        for i in range(tasks):
            domain = SYNTHETIC_DOMAINS[i % len(SYNTHETIC_DOMAINS)]
            success = (i * 7 + system_index * 5 + trial * 3) % 10 < 8 - 2 * system_index
            label = None if success else SYNTHETIC_LABELS[(i + system_index) % len(SYNTHETIC_LABELS)]
            families = ["action", "param", "state", "forbidden", "collateral", "reply"][: 2 + i % 5]
            checks = [
                CheckRecord(
                    family=family,  # type: ignore[arg-type]
                    name=f"{'forbidden.action' if family == 'forbidden' else family}[0]",
                    status="failed" if family == label else "passed",
                )
                for family in families
            ]
            cost = None if system_index == len(LONG_SYSTEMS) - 1 else f"0.0{system_index + 1}"
            records.append(
                ResultRecord(
                    task_id=f"{domain}_capability_with_a_long_descriptive_variant_name_{i:02d}",
                    trial=trial,
                    domain=domain,
                    difficulty=("easy", "medium", "hard")[i % 3],
                    capabilities=["transfer", "verify_identity"],
                    outcome="success" if success else "failure",
                    primary_label=label,
                    checks=checks,
                    usage={"agent": UsageRecord(calls=3, prompt_tokens=900, completion_tokens=90, cost_usd=cost)},
                    turns=3,
                )
            )
    return records


def synthetic_report(output: Path, systems: Sequence[str] = LONG_SYSTEMS, rounds: int = 3) -> Path:
    """A report page of hand-made runs (no trajectories): long system names, nine domains, every
    failure label, several rounds. Written as ``crmbench report`` writes one."""
    from pytest_crmbench.results.html import ReportRun, TaskPages, render
    from pytest_crmbench.results.rundir import SavedRun
    from pytest_crmbench.results.sources import Sources
    from pytest_crmbench.results.taskview import task_detail

    pages = TaskPages()
    runs = []
    for index, system in enumerate(systems):
        records = synthetic_records(index, rounds)
        numbers = {record.key: pages.add(task_detail(record, None, None)) for record in records}
        manifest = {"format": FORMAT, "system": system, "agent": system.split("/")[0], "created_at": "2026-11-30"}
        runs.append(ReportRun(SavedRun(output.parent / f"run-{index}", manifest, records), numbers))
    output.write_text(render(runs, Sources({}, []), pages), encoding="utf-8")
    return output
