"""Task files become items: node ids, order, which YAML files are collected."""

from __future__ import annotations

import pytest

from tests.integration.helpers import MINI_IDS, CrmProject

NODEIDS = [f"tasks/mini.yaml::{task_id}" for task_id in MINI_IDS]


def collected_ids(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::" in line]


def test_collect_only_lists_every_task_in_file_order(mini_project: CrmProject) -> None:
    result = mini_project.run("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert collected_ids(result) == NODEIDS
    result.stdout.fnmatch_lines(["6 tests collected in *"])


def test_collection_order_is_deterministic(mini_project: CrmProject) -> None:
    first = collected_ids(mini_project.run("--collect-only", "-q"))
    second = collected_ids(mini_project.run("--collect-only", "-q"))
    assert first == second == NODEIDS


def test_manifest_and_yaml_outside_tasks_are_not_collected(mini_project: CrmProject) -> None:
    # A manifest (excluded by default) and YAML files elsewhere would be collection errors
    # if they were treated as task files: none of them is a list of task records.
    mini_project.write("manifest.yaml", "domains: [mini]\ncount: 6\n")
    (mini_project.path / "config.yaml").write_text("not: a task file\n", encoding="utf-8")
    other = mini_project.path / "data"
    other.mkdir()
    (other / "mini.yaml").write_text((mini_project.tasks / "mini.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    result = mini_project.run("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert collected_ids(result) == NODEIDS
    assert "manifest" not in result.stdout.str()
    assert "data/mini.yaml" not in result.stdout.str()


def test_yml_suffix_is_collected_when_the_glob_allows_it(mini_project: CrmProject) -> None:
    (mini_project.tasks / "mini.yaml").rename(mini_project.tasks / "mini.yml")
    mini_project.write_config('crm_task_files = ["tasks/*.yml"]\n')
    result = mini_project.run("--collect-only", "-q")
    assert collected_ids(result) == [n.replace(".yaml", ".yml") for n in NODEIDS]


def test_crm_task_files_and_exclude_ini(crm_project: CrmProject) -> None:
    suite = crm_project.path / "suite"
    suite.mkdir()
    crm_project.add("mini.yaml")
    (crm_project.tasks / "mini.yaml").rename(suite / "mini.yaml")
    (suite / "index.yaml").write_text("just: metadata\n", encoding="utf-8")
    crm_project.write_config('crm_task_files = ["suite/*.yaml"]\ncrm_task_exclude = ["suite/index.yaml"]\n')
    result = crm_project.run("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert collected_ids(result) == [n.replace("tasks/", "suite/") for n in NODEIDS]


def test_crm_env_dirs_ini_accepts_another_folder(crm_project: CrmProject) -> None:
    crm_project.add("mini.yaml")
    (crm_project.path / "envs").rename(crm_project.path / "domains")
    crm_project.write_config('crm_env_dirs = ["domains"]\n')
    result = crm_project.run()
    result.assert_outcomes(passed=6)


def test_verbose_shows_each_item(mini_project: CrmProject) -> None:
    result = mini_project.run("-v", "-k", "balance_only")
    result.stdout.fnmatch_lines(
        [
            "*collected 6 items / 5 deselected / 1 selected",
            "*",
            "tasks/mini.yaml::mini_balance_only_01 SUBPASSED[[]action[[]0] get_balance x1]*",
            "*",
            "tasks/mini.yaml::mini_balance_only_01 PASSED*",
        ]
    )
    # -v also reports subtests: the not-judged reply criterion counts as skipped.
    result.assert_outcomes(passed=1, skipped=1, deselected=5)


def test_a_file_with_no_records_is_a_collection_error(crm_project: CrmProject) -> None:
    crm_project.write("empty.yaml", "# nothing yet\n")
    result = crm_project.run("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["tasks/empty.yaml:1: a task file holds no tasks*"])


def test_crm_env_dirs_accepts_an_absolute_path(crm_project: CrmProject) -> None:
    crm_project.add("mini.yaml")
    elsewhere = crm_project.path / "vendor" / "crm_domains"
    elsewhere.parent.mkdir()
    (crm_project.path / "envs").rename(elsewhere)
    crm_project.write_config(f'crm_env_dirs = ["{elsewhere.as_posix()}"]\n')
    crm_project.run().assert_outcomes(passed=6)


def test_missing_env_dir_means_no_known_domain(crm_project: CrmProject) -> None:
    crm_project.add("mini.yaml")
    crm_project.write_config('crm_env_dirs = ["nowhere"]\n')
    result = crm_project.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    # All six records are reported at once.
    result.stdout.fnmatch_lines(
        [
            "tasks/mini.yaml:*: task 'mini_transfer_retry_01': field 'domain': no environment for domain 'mini' (known: none)"
        ]
    )
    assert sum("no environment for domain 'mini'" in line for line in result.outlines) == 6


def test_a_single_task_can_be_run_by_node_id(mini_project: CrmProject) -> None:
    result = mini_project.run("tasks/mini.yaml::mini_override_01", "-v")
    result.stdout.fnmatch_lines(["*collected 1 item", "*", "tasks/mini.yaml::mini_override_01 PASSED*"])
    result.assert_outcomes(passed=1)


def test_default_glob_does_not_descend_into_subfolders(mini_project: CrmProject) -> None:
    archive = mini_project.tasks / "archive"
    archive.mkdir()
    (archive / "notes.yaml").write_text("notes: not a task file\n", encoding="utf-8")
    result = mini_project.run("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK
    assert collected_ids(result) == NODEIDS


def test_item_location_is_the_record_line(mini_project: CrmProject) -> None:
    mini_project.pytester.makeconftest(
        """
def pytest_itemcollected(item):
    path, line, domain = item.location
    with open(item.config.rootpath / "locations.txt", "a") as f:
        f.write(f"{path}:{line + 1}: {domain}\\n")
"""
    )
    mini_project.run("--collect-only", "-q")
    lines = (mini_project.path / "locations.txt").read_text().splitlines()
    # Line numbers of each record's first key ("- id: ...") in tests/data/tasks/mini.yaml.
    assert lines == [
        "tasks/mini.yaml:2: task mini_transfer_retry_01",
        "tasks/mini.yaml:34: task mini_checkout_chain_01",
        "tasks/mini.yaml:66: task mini_balance_only_01",
        "tasks/mini.yaml:85: task mini_transfer_frozen_01",
        "tasks/mini.yaml:106: task mini_refusal_close_01",
        "tasks/mini.yaml:124: task mini_override_01",
    ]
