"""No import cycles in the package, counting every import statement.

The graph is read from the syntax trees of every module, function-level imports included, so a
cycle cannot hide behind a deferred import. ``import a.b.c`` (or ``from a.b.c import x``) from a
module outside package ``a.b`` also imports ``a`` and ``a.b`` (their ``__init__``), so those
edges count too; a module importing a sibling inside its own package does not re-enter the
package's ``__init__``. Lazy name tables (:mod:`fuzzytruth._lazy`) are strings, not imports:
they load a module on first use, which is the point. Imports under ``if TYPE_CHECKING:`` are
for type checkers only and never run, so they are not counted (as import-linter's
``exclude_type_checking_imports`` does). Modules a module loads through
``importlib.import_module`` count as its imports: a literal name, an f-string's package prefix
(``f"fuzzytruth.cli.{name}"``: every public module directly in that package; a name made at
run time is a command or a plugin, never a private module or ``__main__``), and every module of
a package it walks with ``pkgutil.iter_modules`` (the measure catalog's plugins).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fuzzytruth"


def _modules(root: Path) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _packages_of(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` except those under ``if TYPE_CHECKING:``."""
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out


def _dynamic_imports(nodes: list[ast.AST], modules: dict[str, Path]) -> list[str]:
    """The modules ``importlib.import_module`` calls among ``nodes`` load (module docstring)."""
    walks = any(isinstance(n, ast.Call) and ast.unparse(n.func).endswith("iter_modules")
                for n in nodes)
    out: list[str] = []
    for node in nodes:
        if not (isinstance(node, ast.Call) and node.args
                and ast.unparse(node.func).endswith("import_module")):
            continue
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            out.append(arg.value)
            if walks:  # the package's modules, loaded by walking it
                out += [m for m in modules if m.startswith(arg.value + ".")]
        elif isinstance(arg, ast.JoinedStr) and isinstance(arg.values[0], ast.Constant):
            prefix = str(arg.values[0].value)
            if prefix.endswith("."):
                out += [m for m in modules if m.startswith(prefix)
                        and "." not in m[len(prefix):] and not m[len(prefix):].startswith("_")]
    return out


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package modules it imports (directly or through parent packages)."""
    modules = _modules(root)

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        own = set(_packages_of(module)) | ({module} if is_package else set())
        nodes = _runtime_nodes(ast.parse(path.read_text(encoding="utf-8")))
        targets = _dynamic_imports(nodes, modules)
        for node in nodes:
            if isinstance(node, ast.Import):
                targets += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = module.split(".") if is_package else module.split(".")[:-1]
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                targets += [f"{base}.{alias.name}" for alias in node.names]
        for target in targets:
            found = resolve(target)
            if found is None:
                continue
            for dep in [*_packages_of(found), found]:
                if dep in modules and dep != module and dep not in own:
                    graph[module].add(dep)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
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
    return found


def test_the_package_has_no_import_cycle():
    assert cycles(import_graph()) == []


def test_the_checker_finds_a_cycle_behind_a_function_level_import(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import f\n")
    (pkg / "b.py").write_text("def f():\n    from pkg import a\n")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub.c import g\n")
    (pkg / "sub" / "c.py").write_text("def g():\n    pass\n")
    (pkg / "d.py").write_text("import pkg.sub.c\n")
    (pkg / "sub" / "e.py").write_text("def h():\n    import pkg.d\n")
    (pkg / "f.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\n"
    )
    graph = import_graph(pkg)
    assert graph["pkg.d"] == {"pkg.sub", "pkg.sub.c"}  # the parent package's __init__ counts
    assert graph["pkg.sub.c"] == set()  # a sibling import does not re-enter the package
    assert graph["pkg.f"] == set()  # never imported at run time
    assert cycles(graph) == [["pkg.a", "pkg.b"]]


def test_the_checker_counts_modules_loaded_by_importlib(tmp_path):
    """A registry that loads its plugins by name, plugins that import the registry: the cycle
    the measure registry had (its plugins imported it to register, it loaded them)."""
    pkg = tmp_path / "pkg"
    (pkg / "plugins").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "registry.py").write_text(
        "import importlib, pkgutil\n"
        "def load():\n"
        "    package = importlib.import_module('pkg.plugins')\n"
        "    for m in pkgutil.iter_modules(package.__path__):\n"
        "        importlib.import_module(f'{package.__name__}.{m.name}')\n"
    )
    (pkg / "plugins" / "__init__.py").write_text("")
    (pkg / "plugins" / "one.py").write_text("from pkg.registry import load\n")
    (pkg / "app.py").write_text(
        "import importlib\ndef command(name):\n"
        "    return importlib.import_module(f'pkg.plugins.{name}')\n"
    )
    graph = import_graph(pkg)
    assert graph["pkg.registry"] == {"pkg.plugins", "pkg.plugins.one"}
    assert graph["pkg.app"] == {"pkg.plugins", "pkg.plugins.one"}
    assert cycles(graph) == [["pkg.plugins.one", "pkg.registry"]]


@pytest.mark.parametrize("layer", ["fuzzytruth.metrics", "fuzzytruth.uncertain.poibin"])
def test_kernels_import_nothing_above_them(layer):
    graph = import_graph()
    allowed = ("fuzzytruth._", "fuzzytruth.metrics", "fuzzytruth.uncertain.poibin")
    for module, deps in graph.items():
        if module == layer or module.startswith(layer + "."):
            above = sorted(d for d in deps if not d.startswith(allowed) and d != "fuzzytruth")
            assert above == [], (module, above)


def test_no_lazily_exported_name_is_also_a_submodule():
    """A package that serves names on first use (``_LAZY``) must not export a name that is also
    one of its submodules: importing the submodule would set the package attribute to the
    module and shadow the name for good (``fuzzytruth.measures.presets`` was a function and a
    module at once)."""
    import importlib
    import pkgutil

    import fuzzytruth

    for info in pkgutil.walk_packages(fuzzytruth.__path__, "fuzzytruth."):
        if not info.ispkg:
            continue
        package = importlib.import_module(info.name)
        lazy = getattr(package, "_LAZY", {})
        children = {m.name for m in pkgutil.iter_modules(package.__path__)}
        assert not set(lazy) & children, (info.name, sorted(set(lazy) & children))
    top = {m.name for m in pkgutil.iter_modules(fuzzytruth.__path__)}
    assert not set(fuzzytruth._LAZY) & top
