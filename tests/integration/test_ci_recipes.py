"""docs/ci.md's two CI recipes run as written (issue 32 item 3).

Each recipe's own shell lines run in bash, in a workspace laid out as its CI service lays it out,
with ``.venv/bin/pytest`` a stand-in that records its arguments; those arguments then run for real
(in-process, on the mini domain: the null agent instead of ``--crm-suite --crm-model``), and the
run directory they write is kept and restored as the recipe's artifact rules do. Two pipelines
each: the first has no baseline yet, the second compares with the first's run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.helpers import CrmProject

REPO = Path(__file__).resolve().parents[2]
CI_MD = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")

RECORD_ARGS = '#!/bin/sh\nprintf "%s\\n" "$@" > "$ARGS_FILE"\n'
"""The stand-in ``.venv/bin/pytest``: the arguments the recipe's shell passes, one a line."""


def recipe(heading: str) -> dict[str, Any]:
    start = CI_MD.index(f"## {heading}\n")
    (block,) = re.findall(r"^```yaml\n(.*?)^```", CI_MD[start : CI_MD.find("\n## ", start + 1)], re.DOTALL | re.M)
    loaded: dict[str, Any] = yaml.safe_load(block)
    return loaded


def benchmark_args(documented: list[str]) -> list[str]:
    """The recorded arguments, made to run here: the model run becomes a null-agent run of the mini
    domain with a gate it passes. Anything else the recipe passes runs as written."""
    assert {"--crm-suite", "--crm-model=openai/gpt-5", "--crm-concurrency=16"} <= set(documented)
    kept = [a for a in documented if a != "--crm-suite" and not a.startswith(("--crm-model=", "--crm-concurrency="))]
    return ["--crm-agent=null", *("--crm-fail-under=0" if a.startswith("--crm-fail-under=") else a for a in kept)]


class Workspace:
    """A CI job's working directory: the mini project, a stand-in venv, and the recipe's shell."""

    def __init__(self, project: CrmProject) -> None:
        self.project = project
        self.path = project.path
        bin_dir = self.path / ".venv" / "bin"
        bin_dir.mkdir(parents=True)
        for tool, text in (("pytest", RECORD_ARGS), ("pip", "#!/bin/sh\n")):
            (bin_dir / tool).write_text(text, encoding="utf-8")
            (bin_dir / tool).chmod(0o755)
        self.args_file = self.path.parent / "args.txt"

    def shell(self, script: str, env: dict[str, str], fake_bin: Path | None = None) -> list[str]:
        """Run the recipe's lines as its runner does (bash, stop at the first failure); the
        arguments its pytest got."""
        self.args_file.unlink(missing_ok=True)
        path = f"{fake_bin}:{os.environ['PATH']}" if fake_bin else os.environ["PATH"]
        full = {**os.environ, **env, "PATH": path, "ARGS_FILE": str(self.args_file)}
        done = subprocess.run(
            ["bash", "-eo", "pipefail", "-c", script], cwd=self.path, env=full, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return self.args_file.read_text(encoding="utf-8").splitlines()

    def benchmark(self, args: list[str]) -> pytest.RunResult:
        result = self.project.run(*benchmark_args(args))
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()
        return result

    def next_pipeline(self) -> None:
        """A fresh job: only the cached venv survives (and the project standing in for the suite)."""
        for child in self.path.iterdir():
            if child.name not in (".venv", "tasks", "envs", "pyproject.toml"):
                shutil.rmtree(child) if child.is_dir() else child.unlink()


def uploaded(paths: list[str], root: Path) -> dict[str, bytes]:
    """The files of an ``actions/upload-artifact`` artifact, by their path inside it: one folder
    is the artifact's root; several paths are rooted at their least common ancestor."""
    found = [root / p.rstrip("/") for p in paths]
    if len(found) == 1:
        base = found[0] if found[0].is_dir() else found[0].parent
    else:
        base = Path(os.path.commonpath([p if p.is_dir() else p.parent for p in found]))
    files = [f for p in found for f in ([p] if p.is_file() else sorted(p.rglob("*"))) if f.is_file()]
    return {f.relative_to(base).as_posix(): f.read_bytes() for f in files}


def downloaded(artifact: dict[str, bytes], target: Path) -> None:
    for name, data in artifact.items():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_bytes(data)


def documented_wheel() -> str:
    """The wheel a build of this checkout makes (tests/integration/test_wheel.py checks the name)."""
    version = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    return f"crmbench-{version}-py3-none-any.whl"


def test_both_recipes_install_the_wheel_a_checkout_builds() -> None:
    # crmbench is not on PyPI yet (issue 32 item 5): `pip install crmbench` would find nothing.
    github = recipe("GitHub Actions")["jobs"]["crmbench"]["steps"]
    install = next(step["run"] for step in github if step.get("name") == "Install")
    assert any(str(step.get("uses", "")).startswith("actions/checkout@") for step in github)  # wheels/ is there
    gitlab = "\n".join(recipe("GitLab CI")["crmbench"]["script"])
    for script in (install, gitlab):
        commands = [line.strip() for line in script.splitlines() if line.strip().startswith(".venv/bin/pip install")]
        assert commands == [f'.venv/bin/pip install -q "./wheels/{documented_wheel()}[models]"']
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f'pip install "./dist/{documented_wheel()}[models]"' in readme
    assert "pip wheel --no-deps -w dist ." in readme


def test_the_github_actions_recipe(mini_project: CrmProject) -> None:
    job = recipe("GitHub Actions")["jobs"]["crmbench"]
    steps = {step.get("name", step.get("uses")): step for step in job["steps"]}
    fetch, run = steps["Fetch the baseline run"], steps["Run the benchmark with the release gates"]
    uploads = {s["with"]["name"]: s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/upload-")}
    assert fetch["with"]["name"] in uploads, "the baseline is downloaded under a name no step uploads"
    assert fetch["if"] == "vars.CRMBENCH_BASELINE_RUN_ID != ''"  # the first pipeline skips it
    upload = uploads[fetch["with"]["name"]]
    assert upload["if"] == "always()"
    workspace = Workspace(mini_project)

    # Pipeline 1: the variable is unset, so nothing is downloaded and nothing compared.
    first = workspace.shell(run["run"], job["env"])
    assert not any(a.startswith("--crm-compare") for a in first)
    workspace.benchmark(first)
    artifact = uploaded(upload["with"]["path"].split(), workspace.path)

    # Pipeline 2: the first run, downloaded as the recipe downloads it, is the baseline.
    workspace.next_pipeline()
    downloaded(artifact, workspace.path / fetch["with"]["path"])
    second = workspace.shell(run["run"], job["env"])
    assert "--crm-compare=baseline" in second
    result = workspace.benchmark(second)
    result.stdout.fnmatch_lines(["compared with the baseline: +0.00 pp*", "crmbench gate passed: *"])


def test_the_gitlab_ci_recipe(mini_project: CrmProject) -> None:
    job = recipe("GitLab CI")["crmbench"]
    script = "\n".join(job["script"])
    workspace = Workspace(mini_project)
    fake_bin = workspace.path.parent / "fake-bin"
    fake_bin.mkdir()
    served = workspace.path.parent / "served.zip"
    # curl against the artifacts API: the last successful job's zip, or HTTP 404 (exit 22) when
    # there is none yet.
    curl = (
        '#!/bin/sh\nout=""\nwhile [ $# -gt 0 ]; do [ "$1" = "-o" ] && out="$2"; shift; done\n'
        f'[ -f {shlex.quote(str(served))} ] || exit 22\ncp {shlex.quote(str(served))} "$out"\n'
    )
    (fake_bin / "curl").write_text(curl, encoding="utf-8")
    (fake_bin / "curl").chmod(0o755)
    env = {
        **job["variables"],
        "CI_JOB_NAME": "crmbench",
        "CI_JOB_TOKEN": "t",
        "CI_API_V4_URL": "http://gitlab",
        "CI_PROJECT_ID": "1",
    }
    env["PIP_CACHE_DIR"] = str(workspace.path / ".cache" / "pip")

    first = workspace.shell(script, env, fake_bin)
    assert not any(a.startswith("--crm-compare") for a in first)
    workspace.benchmark(first)
    with zipfile.ZipFile(served, "w") as archive:  # GitLab keeps each artifact path as it is
        for name in job["artifacts"]["paths"]:
            found = workspace.path / name.rstrip("/")
            for file in [found] if found.is_file() else sorted(found.rglob("*")):
                if file.is_file():
                    archive.write(file, file.relative_to(workspace.path).as_posix())

    workspace.next_pipeline()
    second = workspace.shell(script, env, fake_bin)
    assert "--crm-compare=baseline" in second
    result = workspace.benchmark(second)
    result.stdout.fnmatch_lines(["compared with the baseline: +0.00 pp*", "crmbench gate passed: *"])
