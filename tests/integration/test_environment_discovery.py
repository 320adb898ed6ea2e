"""Environments are found per session: nothing one in-process run loads or registers reaches the next."""

from __future__ import annotations

from tests.integration.helpers import CrmProject, replace_once

REGISTERING_CONFTEST = """
from pytest_crmbench import ToolEnvironment, tool


class Extra(ToolEnvironment):
    domain = "extra"

    def default_state(self):
        return {"n": 1}

    @tool(kind="read")
    def ping(self) -> dict:
        \"\"\"Answer pong.\"\"\"
        return {"pong": True}


def pytest_crmbench_update_environments(environments):
    environments.append(Extra)
"""

EXTRA_TASK = """\
- id: extra_ping_01
  domain: extra
  capabilities: [ping]
  difficulty: easy
  user: {persona: p, goal: g, stop: s}
  contract: {expected_actions: [ping]}
  gold: {path: [{tool: ping}], reply: pong}
"""


def test_an_environment_added_by_a_hook_exists_only_in_its_session(crm_project: CrmProject) -> None:
    crm_project.write("extra.yaml", EXTRA_TASK)
    conftest = crm_project.pytester.makeconftest(REGISTERING_CONFTEST)
    crm_project.run().assert_outcomes(passed=1)
    conftest.unlink()
    # Once a module-level registry: the second in-process run still knew the first run's domain.
    result = crm_project.run()
    result.stdout.fnmatch_lines(["*field 'domain': no environment for domain 'extra' (known: mini)"])


def test_a_changed_domain_folder_is_seen_by_the_next_in_process_run(mini_project: CrmProject) -> None:
    mini_project.run("-k", "mini_transfer_retry_01").assert_outcomes(passed=1)
    environment = mini_project.path / "envs" / "mini" / "environment.py"
    environment.write_text(replace_once(environment.read_text(), '"balance": "2450.75"', '"balance": "1.00"'))
    # Once a per-process cache of env dirs kept the first run's classes: the edit went unseen.
    result = mini_project.run("-k", "mini_transfer_retry_01", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)  # the state check and the item
