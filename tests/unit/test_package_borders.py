"""The borders between connectworker's packages, read from the source (every import statement, also
those inside functions and `if TYPE_CHECKING:` blocks).

Arrows point down: api ← converters, topics ← config ← runtime ← rest, spark ← cli. A "part" is a
subpackage of `connectworker` (api, config, converters, rest, runtime, spark, topics) or a top-level
module (cli, plugins, embedded_broker, …); `connectworker` itself stands for the root `__init__`.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import connectworker

ROOT = Path(connectworker.__file__).resolve().parent
PACKAGE = ROOT.name  # "connectworker"


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, e.g. connectworker.topics.admin
    target: str  # the imported module (or the module a name is imported from)
    line: int

    @property
    def from_part(self) -> str:
        return part_of(self.source)

    @property
    def to_part(self) -> str:
        return part_of(self.target)

    def __str__(self) -> str:
        return f"{self.source} (line {self.line}) imports {self.target}"


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its `__init__`)."""
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def part_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else PACKAGE


def _imports_of(module: str, path: Path) -> Iterator[Import]:
    known = modules()
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the importing module's package
                base = package[: len(package) - (node.level - 1)]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            for alias in node.names:
                submodule = f"{origin}.{alias.name}"  # `from connectworker import cli` imports a module
                yield Import(module, submodule if submodule in known else origin, node.lineno)


@cache
def internal_imports() -> tuple[Import, ...]:
    """The imports of one connectworker module by another, across the whole package."""
    found = []
    for module, path in modules().items():
        for imp in _imports_of(module, path):
            if imp.target == PACKAGE or imp.target.startswith(PACKAGE + "."):
                found.append(imp)
    return tuple(found)


def crossings(from_part: str) -> list[Import]:
    """The imports by modules of `from_part` of modules in another part."""
    return [imp for imp in internal_imports() if imp.from_part == from_part and imp.to_part != from_part]


def offending(from_part: str, allowed: set[str] | None = None, forbidden: set[str] | None = None) -> list[str]:
    return [
        str(imp)
        for imp in crossings(from_part)
        if (allowed is not None and imp.to_part not in allowed) or (forbidden is not None and imp.to_part in forbidden)
    ]


def test_the_walker_sees_module_level_function_level_and_from_imports() -> None:
    """Guards the other tests against passing because nothing was found."""
    edges = {(imp.source, imp.target) for imp in internal_imports()}
    assert ("connectworker.runtime.topic_creation.service", "connectworker.topics.admin") in edges  # module level
    assert ("connectworker.cli", "connectworker.spark.runner.spark_runtime") in edges  # inside cmd_spark
    assert {part_of(m) for m in modules()} >= {
        "api",
        "config",
        "converters",
        "rest",
        "runtime",
        "spark",
        "topics",
        "cli",
        PACKAGE,
    }


def test_api_imports_no_other_connectworker_package() -> None:
    assert offending("api", allowed=set()) == []


def test_topics_imports_only_the_api() -> None:
    assert offending("topics", allowed={"api"}) == []


def test_transforms_import_only_the_api_and_the_converters() -> None:
    """Built-in transforms work on Connect data; the converters' logical types are all they need."""
    assert offending("transforms", allowed={"api", "converters"}) == []


def test_config_does_not_import_runtime_rest_or_spark() -> None:
    assert offending("config", forbidden={"runtime", "rest", "spark"}) == []


def test_runtime_does_not_import_rest_spark_or_the_cli() -> None:
    assert offending("runtime", forbidden={"rest", "spark", "cli"}) == []


HERDER_FACE = {
    "connectworker.runtime.herder.protocol",
    "connectworker.runtime.herder.values",
    "connectworker.runtime.herder.errors",
}


def test_rest_knows_the_runtime_only_through_the_herders_protocol_values_and_errors() -> None:
    """As Kafka's REST resources know only the `Herder` interface: no worker, task or store."""
    beyond = [str(imp) for imp in crossings("rest") if imp.to_part == "runtime" and imp.target not in HERDER_FACE]
    assert beyond == []
    assert {imp.target for imp in crossings("rest") if imp.to_part == "runtime"} == HERDER_FACE


RUNTIME_SURFACES = {
    "connectworker.runtime",
    "connectworker.runtime.clients",
    "connectworker.runtime.herder",
    "connectworker.runtime.offsets",
    "connectworker.runtime.runners",
    "connectworker.runtime.tasks",
    "connectworker.runtime.topic_creation",
}
"""The runtime packages' public surfaces (each package's `__all__`), the only runtime modules spark/ uses."""


def test_spark_uses_the_runtime_only_through_the_public_surfaces_of_its_packages() -> None:
    """The task runner, the stores, the herder: at most 10 runtime modules, and only names their
    packages publish; no runtime class is subclassed (Spark places tasks through `TaskPlacement`)."""
    targets = {imp.target for imp in crossings("spark") if imp.to_part == "runtime"}
    assert targets <= RUNTIME_SURFACES, sorted(targets - RUNTIME_SURFACES)
    assert len(targets) <= 10
    unpublished, subclassed = [], []
    for module, path in modules().items():
        if part_of(module) != "spark":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        from_runtime = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in RUNTIME_SURFACES:
                published = importlib.import_module(node.module).__all__
                unpublished += [f"{module}: {node.module}.{a.name}" for a in node.names if a.name not in published]
                from_runtime |= {a.asname or a.name for a in node.names}
        classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
        subclassed += [f"{module}: {c.name}" for c in classes if {ast.unparse(b) for b in c.bases} & from_runtime]
    assert unpublished == []
    assert subclassed == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one part (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_the_parts() -> None:
    graph: dict[str, set[str]] = {}
    for imp in internal_imports():
        if imp.from_part != imp.to_part:
            graph.setdefault(imp.from_part, set()).add(imp.to_part)
    cycles = _cycles(graph)
    details = [
        f"{' <-> '.join(cycle)}: "
        + "; ".join(
            str(imp)
            for imp in internal_imports()
            if imp.from_part in cycle and imp.to_part in cycle and imp.from_part != imp.to_part
        )
        for cycle in cycles
    ]
    assert details == []
