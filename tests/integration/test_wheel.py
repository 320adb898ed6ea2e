"""``pip install crmbench`` alone runs the shipped benchmark in an empty directory (issue 12 item 13).

The wheel is built from this checkout, installed into a fresh venv (no checkout on its path), and
the gold self-test runs there with ``pytest --crm-suite -n 2`` (xdist is a base dependency, item 5),
every shipped task collected and a stratified sample of them played;
then a run of one domain is re-gated, re-graded, ranked and reported there (issue 32 item 2).
Built wheels and downloaded dependency wheels are cached under pytest's cache, keyed by the hash
of what goes into them, so a second run only creates the venv. Marked ``wheel``: CI runs it,
``-m "not wheel"`` skips it locally.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.core.taskfiles import TaskFiles
from tests.integration.test_ci_recipes import documented_wheel

REPO = Path(__file__).resolve().parents[2]
SOURCES = (
    "pyproject.toml",
    "setup.py",
    "MANIFEST.in",
    "README.md",
    "LICENSE",
    "pytest_crmbench",
    "tasks",
    "envs",
    "agents",
)

pytestmark = pytest.mark.wheel


def source_hash() -> str:
    digest = hashlib.sha256()
    for name in SOURCES:
        root = REPO / name
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            if "__pycache__" in path.parts or path.suffix == ".pyc":
                continue
            digest.update(path.relative_to(REPO).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def run(command: list[str], cwd: Path, timeout: float = 300, expect: int = 0) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_ADDOPTS")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == expect, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="session")
def cache_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = getattr(request.config, "cache", None)
    return Path(cache.mkdir("crmbench-wheel")) if cache is not None else tmp_path_factory.mktemp("wheel-cache")


STALE_TASK_FILE = "pytest_crmbench/suite/tasks/deleted_since_the_last_build.yaml"
"""Left in the build tree by an earlier build; a wheel must not ship it."""


def build_tree(into: Path) -> Path:
    """A copy of what the wheel is built from, with an earlier build's leftover in ``build/lib``:
    setuptools builds in the source tree and reuses its ``build/`` (the checkout stays clean)."""
    for name in SOURCES:
        source = REPO / name
        if source.is_file():
            shutil.copy2(source, into / name)
        else:
            shutil.copytree(source, into / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    leftover = into / "build" / "lib" / STALE_TASK_FILE
    leftover.parent.mkdir(parents=True)
    leftover.write_text("- {id: gone}\n", encoding="utf-8")
    return into


@pytest.fixture(scope="session")
def wheel(cache_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = cache_dir / source_hash()
    for stale in cache_dir.iterdir():  # wheels of earlier sources: keep one, not one per edit
        if stale.is_dir() and stale != out and not stale.name.startswith("deps-"):
            shutil.rmtree(stale)
    built = sorted(out.glob("crmbench-*.whl"))
    if not built:
        tree = build_tree(tmp_path_factory.mktemp("wheel-source"))
        run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(tree)], tree)
        built = sorted(out.glob("crmbench-*.whl"))
    assert len(built) == 1
    return built[0]


@pytest.fixture(scope="session")
def dependencies(cache_dir: Path, wheel: Path) -> Path:
    """The wheel's dependencies as wheels (downloaded once per dependency list)."""
    key = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()[:16]
    out = cache_dir / f"deps-{key}"
    if not (out / "done").is_file():
        run([sys.executable, "-m", "pip", "download", "-q", "-d", str(out), str(wheel)], REPO)
        (out / "done").write_text("")
    return out


def test_the_wheel_is_ready_to_publish(wheel: Path) -> None:
    """Its metadata says what the package is, under which license, for which Pythons (issue 32 item 5),
    and ``twine check`` (what PyPI's upload validates, the README's rendering included) passes."""
    assert wheel.name == documented_wheel()  # the name README.md and docs/ci.md install
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        assert STALE_TASK_FILE not in names  # an earlier build's leftover does not ship
        info = next(n.rsplit("/", 1)[0] for n in names if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(f"{info}/METADATA").decode("utf-8"))
        license_text = archive.read(f"{info}/licenses/LICENSE").decode("utf-8")
    assert metadata["Name"] == "crmbench"
    assert metadata["Summary"].startswith("A pytest-native benchmark for LLM agents")
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["License-Expression"] == "Apache-2.0" and metadata["License-File"] == "LICENSE"
    assert "Apache License" in license_text and "Version 2.0" in license_text
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert metadata.get_payload().lstrip().startswith("# crmbench")  # the README is the long description
    assert {"benchmark", "llm", "pytest"} <= set(metadata["Keywords"].split(","))
    classifiers = metadata.get_all("Classifier") or []
    assert "Framework :: Pytest" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: the expression says it
    extras = set(metadata.get_all("Provides-Extra") or [])
    assert {"models", "report", "release", "test"} <= extras
    twine = shutil.which("twine", path=str(Path(sys.executable).parent))
    assert twine is not None, "twine is not installed in this venv: pip install -e '.[test]'"
    done = run([twine, "check", "--strict", str(wheel)], REPO)
    assert "PASSED" in done.stdout


def test_the_wheel_alone_runs_the_shipped_suite_from_an_empty_directory(
    tmp_path: Path, wheel: Path, dependencies: Path
) -> None:
    venv = tmp_path / "venv"
    # Without its own pip (ensurepip costs 7 s here): this interpreter's pip installs into it.
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path)
    bin_dir = venv / "bin"
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(bin_dir / "python"),
            "install",
            "-q",
            "--no-compile",
            "--no-index",
            "--find-links",
            str(dependencies),
            str(wheel),
        ],
        tmp_path,
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    # Every shipped task is collected from the wheel, which builds and checks each task's world
    # from the packaged domain files; a stratified sample of them is played (the checkout's own
    # suite plays all of them: the wheel adds only what packaging could lose).
    tasks = sum(len(load_task_file(path)) for path in TaskFiles().find(REPO))
    assert tasks >= 73
    sample = 27
    suite = [str(bin_dir / "pytest"), "--crm-suite", "-p", "no:cacheprovider"]
    out = run([*suite, "-q", "-n", "2", f"--crm-sample={sample}"], empty).stdout
    assert f"{sample} passed" in out, out[-3000:]
    assert f"gold self-test: {sample} task result(s), each task's gold path replayed" in out
    assert f"held on {sample}/{sample} task(s)" in out
    assert list(empty.iterdir()) == []  # a gold self-test leaves nothing behind
    # `-qq --collect-only` prints one "file: count" line per task file.
    collected = run([*suite, "-qq", "--collect-only"], empty).stdout
    assert sum(int(line.rsplit(": ", 1)[1]) for line in collected.splitlines() if ": " in line) == tasks, collected
    # The installed package is the wheel's, not this checkout.
    where = run([str(bin_dir / "python"), "-c", "import pytest_crmbench; print(pytest_crmbench.__file__)"], empty)
    assert str(venv) in where.stdout and str(REPO) not in where.stdout
    run([str(bin_dir / "crmbench"), "--help"], empty)
    # The CLI reads the runs --crm-suite writes right there, with no checkout (issue 32 item 2).
    crmbench = str(bin_dir / "crmbench")
    pytest_null = [str(bin_dir / "pytest"), "--crm-suite", "-q", "-p", "no:cacheprovider", "--crm-agent=null"]
    run([*pytest_null, "--crm-run-dir=crm-run", "--crm-html=no", "-k", "payments"], empty, expect=1)
    assert "crmbench gate passed" in run([crmbench, "gate", "crm-run", "--max-infra=0"], empty).stdout
    assert run([crmbench, "grade", "crm-run"], empty).stdout.startswith("re-graded trajectories: ")
    assert "| 1    | null" in run([crmbench, "leaderboard", "crm-run"], empty).stdout
    run([crmbench, "report", "crm-run"], empty)
    assert sorted(p.name for p in empty.iterdir()) == ["crm-run", "report.html"]
    refused = run([crmbench, "inventory"], empty, expect=2)
    assert "no such tasks directory: tasks" in refused.stderr
