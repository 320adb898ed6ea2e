"""Read ``tasks/<domain>.yaml`` into validated :class:`~pytest_crmbench.core.spec.Task` records.

A file is a YAML list of task mappings. Every problem in a file is collected and raised together
as :class:`~pytest_crmbench.core.errors.SpecErrors`, each naming file, line, task id and field.
Parsing uses libyaml when available; line numbers come from the composed node tree, so they cost
nothing unless an error needs the line of a nested field.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, TypeAlias

import yaml
from pydantic import ValidationError

from pytest_crmbench.core.errors import SpecError, SpecErrors
from pytest_crmbench.core.spec import Task

MAX_DEPTH = 64
"""Deepest nesting a YAML document may have (task files nest about eight levels)."""
MAX_EXPANSION_FACTOR, EXPANSION_ALLOWANCE = 10, 10_000
"""A document may expand (aliases copied out) to 10x its own nodes plus 10,000: reusing a block
a few times is fine, an alias bomb (each level repeating the last nine times) is not."""
MAX_NUMBER_DIGITS = 100
"""Digits a number may have; Python refuses to convert integers past 4,300 digits."""
MAX_SHOWN_KEY = 60
"""A field name longer than this is cut in messages (the message must stay one readable line)."""
MAX_EXPONENT = 1_000
"""Largest decimal exponent a number may have (``1E+999999`` would crash any arithmetic on it)."""


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml when available; YAML floats become exact Decimals (``130.00`` stays ``130.00``)."""


def _number_error(node: yaml.ScalarNode, problem: str) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(None, None, problem, node.start_mark)


def _construct_decimal(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    text = str(loader.construct_scalar(node)).replace("_", "")
    if sum(c.isdigit() for c in text) > MAX_NUMBER_DIGITS:
        raise _number_error(node, f"a number may have at most {MAX_NUMBER_DIGITS} digits")
    try:
        number = Decimal(text)
    except InvalidOperation:  # .inf / .nan: keep YAML's own meaning
        return loader.construct_yaml_float(node)
    if not number.is_finite():
        return loader.construct_yaml_float(node)
    if abs(number.adjusted()) > MAX_EXPONENT:
        raise _number_error(node, f"a number's exponent must stay within +/-{MAX_EXPONENT}")
    return number


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    if sum(c.isdigit() for c in str(node.value)) > MAX_NUMBER_DIGITS:
        raise _number_error(node, f"a number may have at most {MAX_NUMBER_DIGITS} digits")
    return loader.construct_yaml_int(node)


_Loader.add_constructor("tag:yaml.org,2002:float", _construct_decimal)
_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)


Loc = tuple[int | str, ...]


LineTree: TypeAlias = "tuple[int, dict[str, LineTree] | list[LineTree] | None]"
"""A YAML node tree reduced to its lines: ``(line, children)``, children by key for a mapping, by
position for a sequence, None for a scalar."""


@dataclass(frozen=True)
class TaskRecord:
    """A validated task and where it was written."""

    task: Task
    path: Path
    line: int  # 1-based line of the record's first key
    shown_path: str = ""  # how messages name the file (relative to the rootdir when possible)
    index: int = 0  # position in the file's list
    lines: LineTree | None = field(default=None, compare=False, repr=False)
    """The line of every field of the record (a failing check points at its own line, issue 12);
    None for records built in code."""

    @property
    def location(self) -> str:
        return f"{self.shown_path or self.path}:{self.line}"

    def line_at(self, loc: Loc) -> int:
        """The line of the deepest node along ``loc`` (the record's own line for ``()``)."""
        return line_of(self.lines, loc) if self.lines is not None and loc else self.line

    def location_of(self, loc: Loc) -> str:
        return f"{self.shown_path or self.path}:{self.line_at(loc)}"


def load_task_file(path: Path, *, display_path: str | None = None) -> list[TaskRecord]:
    """Parse and validate one task file. Raises SpecErrors listing every problem found."""
    shown = display_path or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecErrors([SpecError(f"cannot read task file: {exc}", file=shown)]) from None
    return parse_task_text(text, path=path, display_path=shown)


class TaskIds:
    """Where each task id of a task set was first defined. Ids are unique in the whole set, not
    only within a file: results are keyed by id, so a second file's copy would overwrite the first's
    result (issue 11 item 3)."""

    def __init__(self) -> None:
        self.first: dict[str, str] = {}
        """Task id -> ``file:line`` of its first definition."""

    def duplicates(self, records: list[TaskRecord]) -> list[SpecError]:
        """A problem for each record whose id an earlier file took."""
        return [
            SpecError(
                f"duplicate task id (first defined at {self.first[record.task.id]})",
                file=record.shown_path or str(record.path),
                line=record.line_at(("id",)),
                task_id=record.task.id,
                field="id",
            )
            for record in records
            if record.task.id in self.first
        ]

    def add(self, records: list[TaskRecord]) -> None:
        for record in records:
            self.first.setdefault(record.task.id, record.location)


@dataclass
class LoadedTasks:
    """The records of a task set's files, and every problem found loading them."""

    records: list[TaskRecord] = field(default_factory=list)
    problems: list[SpecError] = field(default_factory=list)

    def raise_problems(self) -> None:
        if self.problems:
            raise SpecErrors(self.problems)


def load_task_files(paths: list[Path], display: Callable[[Path], str] = str) -> LoadedTasks:
    """The one loader of a task set: every file is read (a broken file does not hide the next one's
    problems); a record whose id an earlier file took is a problem and is left out.

    ``display`` names a file in messages (relative to the rootdir, say).
    """
    loaded = LoadedTasks()
    ids = TaskIds()
    for path in paths:
        try:
            records = load_task_file(path, display_path=display(path))
        except SpecErrors as exc:
            loaded.problems.extend(exc.errors)
            continue
        duplicates = ids.duplicates(records)
        loaded.problems.extend(duplicates)
        fresh = [record for record in records if record.task.id not in ids.first] if duplicates else records
        ids.add(fresh)
        loaded.records.extend(fresh)
    return loaded


def parse_yaml(text: str, shown: str) -> tuple[Any, yaml.Node | None]:
    """The document and its node tree (for line numbers). Raises SpecErrors on malformed YAML."""
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        if root is not None:
            _check_shape(root, shown)
        data = loader.construct_document(root) if root is not None else None
    except yaml.YAMLError as exc:
        raise SpecErrors([_yaml_error(exc, shown)]) from None
    except RecursionError:  # nesting the composer accepted but Python cannot walk
        raise SpecErrors([SpecError(f"nested deeper than {MAX_DEPTH} levels", file=shown, line=1)]) from None
    finally:
        loader.dispose()
    return data, root


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_shape(root: yaml.Node, shown: str) -> None:
    """Refuse a document whose aliases expand too far, that refers to itself, or nests too deep.

    Checked on the composed node graph, before anything is built: an alias bomb costs nothing
    here, but a recursive walk of the built document (a matcher, a state copy) would hang or
    exhaust memory. Iterative, so deep nesting cannot overflow the stack.
    """
    if not _is_shallow_tree(root):
        _check_aliases_and_depth(root, shown)


def _is_shallow_tree(root: yaml.Node) -> bool:
    """True when no node is reached twice (no alias at all) and no path is longer than MAX_DEPTH.

    Such a document passes every check of :func:`_check_aliases_and_depth` (a tree expands to
    its own size), and nearly every task file is one: this walk costs about a third of that one (which
    keeps a size and a depth per node), and anything else falls through to it, so its messages
    are the only ones there are.
    """
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        key = id(node)
        if key in seen or depth > MAX_DEPTH:
            return False
        seen.add(key)
        if isinstance(node, yaml.MappingNode):
            stack.extend((part, depth + 1) for pair in node.value for part in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1) for child in node.value)
    return True


def _check_aliases_and_depth(root: yaml.Node, shown: str) -> None:
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            if depth[key] > MAX_DEPTH:
                raise SpecErrors([_shape_error(node, shown, f"nested deeper than {MAX_DEPTH} levels")])
            continue
        if key in size:
            continue
        if key in open_nodes:
            raise SpecErrors([_shape_error(node, shown, "an alias refers to the node that contains it")])
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in size)
    limit = MAX_EXPANSION_FACTOR * len(size) + EXPANSION_ALLOWANCE
    if size[id(root)] > limit:
        # Point at the smallest node that is already too big: where the aliases multiply.
        node = root
        while (bigger := [k for k in _children(node) if size[id(k)] > limit]) and node is not bigger[0]:
            node = bigger[0]
        message = f"aliases expand to {size[id(root)]:,} nodes (limit {limit:,} for this file): an alias bomb?"
        raise SpecErrors([_shape_error(node, shown, message)])


def _shape_error(node: yaml.Node, shown: str, message: str) -> SpecError:
    return SpecError(f"invalid YAML: {message}", file=shown, line=node.start_mark.line + 1)


def parse_task_text(text: str, *, path: Path, display_path: str | None = None) -> list[TaskRecord]:
    shown = display_path or str(path)
    key = hashlib.sha256(text.encode("utf-8")).digest()
    parsed = _PARSED.get(key)
    if parsed is None:
        data, root = parse_yaml(text, shown)
        records = task_records(data, root, path=path, shown=shown)
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = tuple(records)
        return records
    # The same text copied elsewhere (a test project, a run's task copy) is the same records there.
    return [r if (r.path, r.shown_path) == (path, shown) else replace(r, path=path, shown_path=shown) for r in parsed]


# One process parses the same task text many times (collection and the recorder's task set, the
# gate's stages, every in-process run of the project's tests): the records are immutable, so a
# text is parsed and validated once. A failing text raises before it is kept, every time.
_PARSED: dict[bytes, tuple[TaskRecord, ...]] = {}
_PARSED_LIMIT = 64


def task_records(data: Any, root: yaml.Node | None, *, path: Path, shown: str) -> list[TaskRecord]:
    """Validated records of a parsed task file (``parse_yaml``'s document and node tree)."""
    if data is None:
        # An empty file was once silently ignored: a task set lost a whole file without a word.
        raise SpecErrors([SpecError("a task file holds no tasks (a YAML list of task records)", file=shown, line=1)])
    if not isinstance(data, list) or not isinstance(root, yaml.SequenceNode):
        raise SpecErrors([SpecError("a task file must be a YAML list of task records", file=shown, line=1)])

    records: list[TaskRecord] = []
    errors: list[SpecError] = []
    first_line: dict[str, int] = {}
    for index, (raw, node) in enumerate(zip(data, root.value, strict=True)):
        line = node.start_mark.line + 1
        task_id = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
        if not isinstance(raw, dict):
            errors.append(SpecError("a task record must be a mapping", file=shown, line=line))
            continue
        try:
            task = Task.model_validate(raw)
        except ValidationError as exc:
            errors.extend(validation_errors(exc, node, shown, task_id))
            continue
        if task.id in first_line:
            errors.append(
                SpecError(
                    f"duplicate task id (first defined at line {first_line[task.id]})",
                    file=shown,
                    line=line,
                    task_id=task.id,
                    field="id",
                )
            )
            continue
        first_line[task.id] = line
        split = list(split_prose(node, shown, task.id))
        if split:
            errors.extend(split)
            continue
        records.append(TaskRecord(task, path, line, shown, index, line_tree(node)))
    if errors:
        raise SpecErrors(errors)
    return records


PROSE_LISTS: tuple[tuple[str, str], ...] = (
    ("user", "known"),
    ("user", "unknown"),
    ("user", "reactions"),
    ("contract", "reply_criteria"),
)
"""Lists of sentences. In a YAML flow list (``[a, b]``) an unquoted comma ends an entry, so
``[If asked, say yes]`` is two reactions: shipped briefs and criteria were split this way."""


def split_prose(node: yaml.Node, shown: str, task_id: str) -> Iterator[SpecError]:
    """A problem for each prose list written as a flow list with an unquoted entry."""
    sections = dict(_pairs(node))
    for section, name in PROSE_LISTS:
        value = dict(_pairs(sections.get(section))).get(name)
        if not isinstance(value, yaml.SequenceNode) or not value.flow_style:
            continue
        plain = [item for item in value.value if isinstance(item, yaml.ScalarNode) and not item.style]
        if plain and len(value.value) > 1:  # one entry was not split: a comma would have made two
            yield SpecError(
                f"{len(plain)} unquoted entr{'y' if len(plain) == 1 else 'ies'} in a flow list ({plain[0].value[:40]!r}...): "
                "a comma ends an entry there, splitting a sentence in two; quote each entry or write a block list",
                file=shown,
                line=value.start_mark.line + 1,
                task_id=task_id,
                field=f"{section}.{name}",
            )


def _pairs(node: yaml.Node | None) -> Iterator[tuple[str, yaml.Node]]:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                yield key.value, value


def _yaml_error(exc: yaml.YAMLError, shown: str) -> SpecError:
    # The context mark is where an unfinished construct began (an unclosed "[" ...): that is
    # where the author must look. The problem mark is where the parser gave up.
    context, problem = getattr(exc, "context_mark", None), getattr(exc, "problem_mark", None)
    words = " ".join(str(w) for w in (getattr(exc, "context", None), getattr(exc, "problem", None)) if w) or str(exc)
    if context is not None and problem is not None and problem.line != context.line:
        words += f" (at line {problem.line + 1})"
    mark = context or problem
    return SpecError(f"invalid YAML: {words}", file=shown, line=mark.line + 1 if mark is not None else None)


def field_line(record: TaskRecord, loc: tuple[int | str, ...]) -> int:
    """The line of a field of a loaded record (re-reads the file when it changed: for error messages only)."""
    try:
        stat = record.path.stat()
    except OSError:
        return record.line
    root = _node_tree(record.path, stat.st_mtime_ns, stat.st_size)
    if not isinstance(root, yaml.SequenceNode) or record.index >= len(root.value):
        return record.line
    return line_of(line_tree(root.value[record.index]), loc)


@functools.lru_cache(maxsize=8)
def _node_tree(path: Path, mtime_ns: int, size: int) -> yaml.Node | None:
    # Keyed on the file's stamp: an audit reporting hundreds of findings composes each file once.
    loader = _Loader(path.read_text(encoding="utf-8"))
    try:
        return loader.get_single_node()  # type: ignore[no-any-return]
    finally:
        loader.dispose()


def validation_errors(exc: ValidationError, node: yaml.Node, shown: str, task_id: str | None = None) -> list[SpecError]:
    """One SpecError per pydantic error, each with the line of the offending YAML node."""
    lines = line_tree(node)
    errors = []
    for err in exc.errors(include_url=False):
        loc = _clean_loc(err["loc"])
        errors.append(
            SpecError(
                _message(err), file=shown, line=line_of(lines, loc), task_id=task_id, field=format_loc(loc) or None
            )
        )
    return errors


def _clean_loc(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    # pydantic adds validator names ('function-after[...]', 'list[...]') to locations; they are
    # not fields an author could find in YAML.
    return tuple(p for p in loc if isinstance(p, int) or ("[" not in p and "(" not in p))


def _message(err: Any) -> str:
    message = str(err["msg"])
    if err["type"] == "extra_forbidden":
        return "unknown field (check the spelling; see `crmbench schema`)"
    return message.removeprefix("Value error, ")


def format_loc(loc: tuple[int | str, ...]) -> str:
    """``('contract', 'expected_params', 0, 'tool')`` -> ``contract.expected_params[0].tool``."""
    text = ""
    for part in loc:
        if isinstance(part, str) and len(part) > MAX_SHOWN_KEY:
            part = f"{part[:MAX_SHOWN_KEY]}... ({len(part):,} characters)"
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def line_tree(node: yaml.Node) -> LineTree:
    """The lines of ``node``'s tree, kept instead of the tree itself: a composed node holds its
    text and two marks for every scalar (about a kilobyte each, 46 KiB per payments task), and a
    collected task keeps its lines for the whole session. Aliased nodes are shared, not copied."""
    built: dict[int, LineTree] = {}

    def build(node: yaml.Node) -> LineTree:
        if id(node) in built:
            return built[id(node)]
        line = node.start_mark.line + 1
        tree: LineTree
        if isinstance(node, yaml.MappingNode):
            children: dict[str, LineTree] = {}
            for key, value in node.value:
                name = getattr(key, "value", None)
                if isinstance(name, str):  # the last of duplicate keys wins, as in the document
                    # An empty value has no line of its own; point at its key.
                    empty = isinstance(value, yaml.ScalarNode) and value.value == ""
                    children[name] = (key.start_mark.line + 1, None) if empty else build(value)
            tree = (line, children)
        elif isinstance(node, yaml.SequenceNode):
            tree = (line, [build(child) for child in node.value])
        else:
            tree = (line, None)
        built[id(node)] = tree
        return tree

    return build(node)


def line_of(tree: LineTree, loc: tuple[int | str, ...]) -> int:
    """The line of the deepest node along ``loc`` (1-based)."""
    for part in loc:
        child = _child(tree, part)
        if child is None:
            break
        tree = child
    return tree[0]


def _child(tree: LineTree, part: int | str) -> LineTree | None:
    children = tree[1]
    if isinstance(children, dict) and isinstance(part, str):
        return children.get(part)
    if isinstance(children, list) and isinstance(part, int) and 0 <= part < len(children):
        found: LineTree = children[part]
        return found
    return None
