"""The packages' import graph: no cycles between modules and no import against the layering.

Every module of the six packages is parsed (never imported): top-level imports, imports inside
functions and ``if TYPE_CHECKING:`` blocks, and ``importlib.import_module("...")`` string literals all
count, because an import that runs late still ties the modules together. The layering (DESIGN.md):

    verifier ← patient_sim, rubric_gen ← policy ← evaluation ← serving
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("verifier", "patient_sim", "rubric_gen", "policy", "evaluation", "serving")
# The project packages each package may import (besides itself).
ALLOWED: dict[str, set[str]] = {
    "verifier": set(),
    "patient_sim": {"verifier"},
    "rubric_gen": {"verifier"},
    "policy": {"verifier", "patient_sim", "rubric_gen"},
    "evaluation": {"verifier", "patient_sim", "rubric_gen", "policy"},
    "serving": {"verifier", "patient_sim", "rubric_gen", "policy", "evaluation"},
}


def module_files(root: Path = REPO_ROOT) -> dict[str, Path]:
    """Dotted module name → file, for every ``.py`` file of the six packages."""
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The project module ``name`` refers to: itself, or its nearest enclosing module that exists."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> dict[str, int]:
    """Project modules ``module`` imports, each with the line of its first import."""
    is_package = path.name == "__init__.py"
    found: dict[str, int] = {}

    def add(name: str, line: int) -> None:
        target = _resolve(name, modules)
        if target is not None and target != module:
            found.setdefault(target, line)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                # ``from pkg import mod`` imports the module pkg.mod; ``from mod import name`` imports mod.
                submodule = f"{source}.{alias.name}"
                add(submodule if submodule in modules else source, node.lineno)
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (isinstance(node.func, ast.Name) and node.func.id in ("import_module", "__import__"))
            )
        ):
            add(node.args[0].value, node.lineno)
    return found


def import_graph(root: Path = REPO_ROOT) -> dict[str, dict[str, int]]:
    modules = module_files(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def upward_imports(
    graph: dict[str, dict[str, int]], modules: dict[str, Path], root: Path = REPO_ROOT
) -> list[str]:
    problems = []
    for module, targets in sorted(graph.items()):
        package = module.split(".")[0]
        for target, line in sorted(targets.items()):
            other = target.split(".")[0]
            if other != package and other not in ALLOWED[package]:
                allowed = ", ".join(sorted(ALLOWED[package])) or "no other project package"
                problems.append(
                    f"{modules[module].relative_to(root)}:{line}: {module} imports {target} "
                    f"({package} may import {allowed})"
                )
    return problems


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle per knot (a strongly connected component of more than one module), each a chain
    ``[a, b, ..., a]`` of real import edges."""
    return [_cycle_in(component, graph) for component in knots(graph)]


def knots(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(node: str) -> None:  # recursion depth is bounded by the module count (~150)
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return sorted(components)


def _cycle_in(component: list[str], graph: dict[str, dict[str, int]]) -> list[str]:
    """A shortest cycle through the component's first module (breadth-first, inside the component)."""
    members = set(component)
    start = component[0]
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node]):
                if target not in members:
                    continue
                if target == start:
                    chain = [node]
                    while chain[-1] != start:
                        chain.append(previous[chain[-1]])
                    return [start, *reversed(chain[:-1]), start] if len(chain) > 1 else [start, node, start]
                if target not in previous:
                    previous[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"no cycle through {start} in {component}")  # Tarjan guarantees one


def _describe(chain: list[str], graph: dict[str, dict[str, int]], knot: list[str]) -> str:
    steps = " -> ".join(f"{a} (line {graph[a][b]})" for a, b in zip(chain, chain[1:], strict=False))
    return f"{steps} -> {chain[-1]}\n    (the whole knot, {len(knot)} modules: {', '.join(knot)})"


def test_no_upward_imports() -> None:
    modules = module_files()
    problems = upward_imports(import_graph(), modules)
    assert not problems, "imports against the layering:\n" + "\n".join(problems)


def test_no_import_cycles() -> None:
    graph = import_graph()
    found = [_describe(_cycle_in(knot, graph), graph, knot) for knot in knots(graph)]
    assert not found, "import cycles:\n" + "\n".join(found)


def test_the_walker_sees_late_and_string_imports(tmp_path: Path) -> None:
    """A cycle made only of an import inside a function and an ``import_module`` literal is found, and
    so is an upward import hidden in a function."""
    for package in PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "verifier" / "a.py").write_text("def f():\n    from verifier.b import x\n")
    (tmp_path / "verifier" / "b.py").write_text(
        "import importlib\n\ndef g():\n    importlib.import_module('verifier.a')\n"
    )
    (tmp_path / "policy" / "c.py").write_text("def h():\n    from serving import app\n")
    (tmp_path / "serving" / "app.py").write_text("")
    graph = import_graph(tmp_path)
    assert cycles(graph) == [["verifier.a", "verifier.b", "verifier.a"]]
    modules = module_files(tmp_path)
    problems = upward_imports(graph, modules, tmp_path)
    assert len(problems) == 1 and "policy.c imports serving.app" in problems[0]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_is_walked(package: str) -> None:
    assert any(name.split(".")[0] == package for name in module_files())
