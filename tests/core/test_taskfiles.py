"""The one rule for which files are task files (issue 9 §1: there were three)."""

from __future__ import annotations

from pathlib import Path

from pytest_crmbench.core.taskfiles import TaskFiles, glob_match


def test_the_default_rule_takes_every_yaml_of_tasks_but_the_manifest(tmp_path: Path) -> None:
    for name in ("tasks/a.yaml", "tasks/b.yaml", "tasks/manifest.yaml", "tasks/notes.txt", "tasks/sub/c.yaml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("[]\n")
    found = [p.relative_to(tmp_path).as_posix() for p in TaskFiles().find(tmp_path)]
    assert found == ["tasks/a.yaml", "tasks/b.yaml"]
    # crmbench --tasks DIR applies the same rule inside the folder.
    inside = [p.name for p in TaskFiles.folder().find(tmp_path / "tasks")]
    assert inside == ["a.yaml", "b.yaml"]


def test_globs_stay_in_their_folder_unless_double_starred() -> None:
    assert glob_match("tasks/a.yaml", "tasks/*.yaml")
    assert not glob_match("tasks/sub/a.yaml", "tasks/*.yaml")
    assert glob_match("tasks/sub/a.yaml", "tasks/**/*.yaml")
    assert glob_match("tasks/a.yaml", "tasks/**/*.yaml")
    rule = TaskFiles(("suite/**/*.yaml",), ("suite/**/index.yaml",))
    assert rule.matches("suite/x/t.yaml") and not rule.matches("suite/x/index.yaml")
