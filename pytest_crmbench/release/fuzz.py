"""The tool fuzz of ``crmbench validate --gold``: no tool crashes on schema-valid arguments (issue 9 §3).

A tool that raises on arguments its own schema allows is a bug in the domain; in an episode it
ends the task as an unscored harness error, so a release must not have any. Every tool of every
domain is called with arguments generated (by hypothesis, derandomised: the same examples on every
run) from the JSON schema the model sees, sent as the JSON text a model would send, on a fresh
environment. Strings are drawn from the ids and values of the domain's default state as well as
at random, so calls reach past the first lookup; numbers and numeric strings include the extremes
a model can produce. Only a crash counts: a structured rejection or argument error is an answer.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_crmbench.core.errors import SpecError
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.release.forked import forked_map
from pytest_crmbench.release.lock import environment_files
from pytest_crmbench.release.passed import Passes

EXAMPLES_PER_TOOL = 50
EXTREME_NUMBERS = (1e27, 1e30, -1e30, 1e-30, 10**28, 10**40, 2**63, 1e308, 0.30000000000000004, -0.0)
"""Within the bounds every call accepts (100 digits, exponent 100), still past a 28-digit context."""
HOSTILE_NUMBER_TEXT = ("1E30", "9" * 29, "10" * 30, "1e308", "1E+999999", "-1e-400", "1_0", "\u0663", "NaN", " 12.50 ")


class ToolCrashed(Exception):
    def __init__(self, arguments: str, error: Mapping[str, Any]) -> None:
        self.arguments, self.error = arguments, error
        super().__init__(error.get("message"))


def fuzz_problems(
    environments: Mapping[str, type[ToolEnvironment]],
    examples: int = EXAMPLES_PER_TOOL,
    passes: Passes | None = None,
    *,
    jobs: int = 1,
) -> list[SpecError]:
    """One problem per tool that crashed, with the smallest arguments hypothesis found.

    ``passes``: a domain whose fuzz passed on exactly these inputs (its folder's files, crmbench's
    source, hypothesis's version, ``examples``) is not fuzzed again. ``jobs``: processes, one tool
    at a time each (derandomised: the same examples in any process).
    """
    try:
        import hypothesis  # a test dependency: imported only when a release is validated
    except ImportError:
        return [SpecError("the tool fuzz needs hypothesis: pip install 'crmbench[release]'", field="tools")]
    passes = passes or Passes(None)
    keys = {
        domain: _fuzz_key(environments[domain], examples, hypothesis.__version__) for domain in sorted(environments)
    }
    due = [domain for domain, key in keys.items() if key is None or not passes.known(key, f"fuzz {domain}")]
    tools = [(domain, name) for domain in due for name in environments[domain].tools]
    crashes = dict(zip(tools, forked_map(_tool_problem, (environments, examples), tools, jobs), strict=True))
    problems = []
    for domain in due:
        found = [crash for name in environments[domain].tools if (crash := crashes[domain, name]) is not None]
        key = keys[domain]
        if not found and key is not None:
            passes.remember(key, f"fuzz {domain}")
        problems.extend(found)
    return problems


def _tool_problem(shared: tuple[Mapping[str, type[ToolEnvironment]], int], tool: tuple[str, str]) -> SpecError | None:
    environments, examples = shared
    environment, name = environments[tool[0]], tool[1]
    crash = _crash(environment, name, examples)
    if crash is None:
        return None
    return SpecError(
        f"tool {name} crashes on schema-valid arguments {crash.arguments}: {crash.error.get('message')}",
        file=_source(environment),
        field=name,
    )


def _fuzz_key(environment: type[ToolEnvironment], examples: int, library: str) -> str | None:
    try:
        folder = Path(inspect.getfile(environment)).parent
    except (TypeError, OSError):
        return None  # an environment defined in code has no files to key it by: always fuzzed
    if not (folder / "environment.py").is_file():
        return None  # not a domain folder (envs/<domain>/environment.py): nothing that keys it safely
    return Passes.key("fuzz", files=environment_files(folder), examples=examples, hypothesis=library)


def _crash(environment: type[ToolEnvironment], name: str, examples: int) -> ToolCrashed | None:
    from hypothesis import HealthCheck, Phase, given, settings

    schema = environment.tools[name].json_schema()["function"]["parameters"]
    strategy = arguments(schema, known_strings(environment.cached_default_state()))

    @settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
    )
    @given(strategy)
    def call(generated: dict[str, Any]) -> None:
        text = json.dumps(generated, ensure_ascii=False)
        result = environment(seed=0).call(name, text)
        if result.status == "error" and (result.error or {}).get("type") == "internal_error":
            raise ToolCrashed(text, result.error or {})

    try:
        call()
    except ToolCrashed as crash:
        return crash
    return None


def known_strings(state: Any, limit: int = 200) -> list[str]:
    """Keys and string values of a state tree (ids, statuses, names): what a model would send."""
    found: dict[str, None] = {}
    stack = [state]
    while stack and len(found) < limit:
        node = stack.pop()
        if isinstance(node, Mapping):
            found.update((str(k), None) for k in node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            found[node] = None
    return sorted(found)[:limit]


def arguments(schema: Mapping[str, Any], strings: list[str]) -> Any:
    """A hypothesis strategy for JSON values valid under ``schema`` (the subset pydantic emits)."""
    from hypothesis import strategies as st

    definitions = schema.get("$defs", {})

    def build(node: Mapping[str, Any]) -> Any:
        if "$ref" in node:
            return build(definitions[str(node["$ref"]).rsplit("/", 1)[-1]])
        if "enum" in node:
            return st.sampled_from(list(node["enum"]))
        if "const" in node:
            return st.just(node["const"])
        if "anyOf" in node or "oneOf" in node:
            return st.one_of(*(build(option) for option in node.get("anyOf", node.get("oneOf", []))))
        kind = node.get("type")
        if kind == "object":
            properties = node.get("properties", {})
            required = set(node.get("required", []))
            return st.fixed_dictionaries(
                {k: build(v) for k, v in properties.items() if k in required},
                optional={k: build(v) for k, v in properties.items() if k not in required},
            )
        if kind == "array":
            return st.lists(build(node.get("items", {})), max_size=4)
        return _scalar(kind, strings)

    return build(schema)


def _scalar(kind: Any, strings: list[str]) -> Any:
    from hypothesis import strategies as st

    numbers = st.one_of(
        st.integers(-(10**6), 10**6),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(EXTREME_NUMBERS),
    )
    text = st.one_of(
        st.sampled_from(strings) if strings else st.nothing(),
        st.text(max_size=24),
        st.sampled_from(HOSTILE_NUMBER_TEXT),
        st.decimals(allow_nan=False, allow_infinity=False).map(str),
    )
    scalars = {
        "string": text,
        "integer": st.one_of(st.integers(-(10**6), 10**6), st.integers()),
        "number": numbers,
        "boolean": st.booleans(),
        "null": st.none(),
    }
    return scalars.get(kind, st.one_of(*scalars.values()))


def _source(environment: type[ToolEnvironment]) -> str:
    try:
        path = Path(inspect.getfile(environment))
    except (TypeError, OSError):
        return environment.__name__
    return path.as_posix()
