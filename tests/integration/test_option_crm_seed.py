"""--crm-seed / crm_seed: per-task seeds and generated ids are reproducible and depend on the base seed."""

from __future__ import annotations

import re

import pytest

from tests.integration.helpers import CrmProject, mini_text, replace_once

# A failing variant of the retry task, so its transcript (seed and transfer id) is printed.
WRONG_STATE = replace_once(mini_text(), "accounts.ACC-1.balance: 130.00", "accounts.ACC-1.balance: 100.00")


def seed_and_transfer_id(result: pytest.RunResult) -> tuple[str, str]:
    out = result.stdout.str()
    seeds = re.findall(r"^agent=gold seed=(\d+) termination=user_stop$", out, re.M)
    ids = re.findall(r'"transfer_id": "(XFER-[A-Z0-9]{6})"', out)
    assert len(seeds) == 1 and len(ids) == 1, out
    return seeds[0], ids[0]


@pytest.fixture
def project(crm_project: CrmProject) -> CrmProject:
    crm_project.write("mini.yaml", WRONG_STATE)
    return crm_project


def test_same_seed_same_ids_other_seed_other_ids(project: CrmProject) -> None:
    first = seed_and_transfer_id(project.run("--crm-seed=3", "-k", "retry"))
    second = seed_and_transfer_id(project.run("--crm-seed=3", "-k", "retry"))
    other = seed_and_transfer_id(project.run("--crm-seed=4", "-k", "retry"))
    assert first == second
    assert other[0] != first[0]
    assert other[1] != first[1]


def test_seed_does_not_depend_on_selection(project: CrmProject) -> None:
    # A task's seed derives from (base seed, task id, trial), not from which tasks run before it.
    alone = seed_and_transfer_id(project.run("--crm-seed=3", "-k", "retry"))
    everything = seed_and_transfer_id(project.run("--crm-seed=3"))
    assert alone == everything


def test_default_seed_is_zero_and_ini_twin(project: CrmProject) -> None:
    default = seed_and_transfer_id(project.run("-k", "retry"))
    assert seed_and_transfer_id(project.run("--crm-seed=0", "-k", "retry")) == default
    project.write_config('crm_seed = "3"\n')
    from_ini = seed_and_transfer_id(project.run("-k", "retry"))
    assert from_ini == seed_and_transfer_id(project.run("--crm-seed=3", "-k", "retry"))
    assert from_ini != default
    # The command line wins over the ini value.
    assert seed_and_transfer_id(project.run("--crm-seed=0", "-k", "retry")) == default


def test_invalid_seeds_are_usage_errors(project: CrmProject) -> None:
    result = project.run("--crm-seed=abc")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*argument --crm-seed: 'abc' is not a whole number"])
    project.write_config('crm_seed = "abc"\n')
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ini option crm_seed = 'abc': 'abc' is not a whole number"])
    assert "Traceback" not in result.stderr.str()
