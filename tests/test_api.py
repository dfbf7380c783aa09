"""The public API: `from fuzzytruth import *` works and exports exactly `__all__`; importing the
package is cheap (no heavy dependency until needed); the package has no import cycle."""

import ast
import subprocess
import sys
from pathlib import Path

import fuzzytruth

PACKAGE = Path(fuzzytruth.__file__).parent


def test_star_import_exports_all_and_only_all():
    namespace: dict = {}
    exec("from fuzzytruth import *", namespace)
    exported = {name for name in namespace if not name.startswith("__")}
    assert exported == set(fuzzytruth.__all__)
    assert len(fuzzytruth.__all__) == len(set(fuzzytruth.__all__))


def test_every_public_name_is_documented():
    for name in fuzzytruth.__all__:
        obj = getattr(fuzzytruth, name)
        if callable(obj):
            assert obj.__doc__, name


def test_import_and_help_load_no_heavy_dependency():
    heavy = ["numba", "statsmodels", "seaborn", "matplotlib", "dask", "scipy.stats"]
    for code in (
        "import fuzzytruth",
        "import sys; from fuzzytruth.cli import build_parser; build_parser().format_help()",
    ):
        probe = f"{code}; import sys; print([m for m in {heavy!r} if m in sys.modules])"
        out = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True
        )
        assert out.stdout.strip() == "[]", (code, out.stdout)


def test_subpackages_are_attributes_without_importing_them_first():
    # the README's `ft.datasets.santini_figure1()` worked only after an earlier
    # `from fuzzytruth.datasets import ...`: alone it was an AttributeError
    probe = ("import fuzzytruth as ft; "
             "print(ft.datasets.santini_figure1().membership.probability('fig1', 'people'), "
             "ft.classify.Predictions.__name__, 'plots' in dir(ft))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["0.6", "Predictions", "True"]
    private = subprocess.run([sys.executable, "-c", "import fuzzytruth as ft; ft._random"],
                             capture_output=True, text=True)
    assert "has no attribute '_random'" in private.stderr


def _imports(path: Path) -> set[str]:
    """Modules of the package that ``path`` imports at module level (not inside functions)."""
    tree = ast.parse(path.read_text())
    found = set()
    for node in tree.body:
        if isinstance(node, ast.If):  # TYPE_CHECKING blocks do not run
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(
            "fuzzytruth"
        ):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("fuzzytruth")}
    return found


def test_no_import_cycles():
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path

    def resolve(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    graph = {
        name: {r for r in (resolve(t) for t in _imports(path)) if r and r != name}
        for name, path in modules.items()
    }
    # a module importing a submodule also runs its package's __init__
    for name in list(graph):
        for target in list(graph[name]):
            parent = target.rpartition(".")[0]
            while parent and parent in modules and parent != name and not name.startswith(
                parent + "."
            ):
                graph[name].add(parent)
                parent = parent.rpartition(".")[0]
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
