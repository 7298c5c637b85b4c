"""Layers that only look down (issue 20; the picture is in docs/design.md, "Layers").

Every import of a tasplan module by another, wherever it is written (module level, inside a
function, under ``if TYPE_CHECKING``), is read from the source: a package may import its own
modules and the packages of lower layers, never a higher one nor the ``tasplan`` facade; no
two modules import each other, directly or around a cycle; and the schedulers side by side
(``tasplan/schedulers/<name>/``) share only the interface, never each other's code.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "tasplan"

# Lowest first. A package (or a top-level module) imports only from its own layer
# (acyclically: see test_no_import_cycle) and from the layers below it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "untrusted", "limits", "stdio", "target", "output_file", "version", "gc_pause"),
    ("model",),
    ("snapshot",),  # the snapshot format, which the loader reads
    ("load",),
    ("framework",),
    ("dra",),  # the device allocator the DynamicResources plugin runs
    ("plugins",),
    ("plan",),  # what every scheduler shares: state, cycles, tree algorithm, results
    ("preemption",),
    ("schedulers",),
    # the wings, each importing only those before it
    ("whatif",),
    ("capacity",),
    ("explain",),
    ("report",),
    ("lint",),
    ("live",),
    ("cli", "__main__"),
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
FACADE = "tasplan"
# Of tasplan/schedulers/, what a scheduler's own package may import besides itself.
SHARED = {"tasplan.schedulers", "tasplan.schedulers.interface"}


@cache
def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = ("tasplan", *path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(path: Path, known: dict[str, Path]) -> Iterator[tuple[int, str]]:
    """(line, module) for every tasplan module ``path`` imports. ``from a.b import c``
    imports the module a.b.c when there is one, else (a name of) a.b."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == FACADE:
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and \
                node.module.split(".")[0] == FACADE:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                yield node.lineno, sub if sub in known else node.module


def graph() -> dict[str, dict[str, int]]:
    """module -> {imported module: line}"""
    known = modules()
    out: dict[str, dict[str, int]] = {}
    for name, path in known.items():
        edges = out.setdefault(name, {})
        for line, target in imports(path, known):
            assert target in known, f"{path}:{line}: imports {target}, which does not exist"
            edges.setdefault(target, line)
    return out


def unit(module: str) -> str:
    """The package (or top-level module) a module belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else FACADE


def test_every_package_has_a_layer() -> None:
    units = {unit(m) for m in modules()} - {FACADE}
    assert not units - RANK.keys(), (
        f"place {sorted(units - RANK.keys())} in a layer of tests/test_layers.py (and the "
        "picture in docs/design.md)")
    assert not RANK.keys() - units, f"layers name what does not exist: {RANK.keys() - units}"


def test_imports_only_look_down() -> None:
    known = modules()
    wrong = []
    for module, edges in graph().items():
        if module == FACADE:
            continue
        for target, line in edges.items():
            where = f"{known[module].relative_to(ROOT.parent)}:{line}"
            if target == FACADE:
                wrong.append(f"{where}: imports the tasplan facade (import what it needs from "
                             "the module that defines it)")
            elif RANK[unit(target)] > RANK[unit(module)]:
                wrong.append(f"{where}: {module} ({unit(module)}) imports {target} "
                             f"({unit(target)}), a higher layer")
    assert not wrong, "\n".join(wrong)




def test_no_import_cycle() -> None:
    """Tarjan's strongly connected components of the module graph."""
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    assert not cycles, "modules that import each other: " + "; ".join(map(str, cycles))


def test_schedulers_share_only_the_interface() -> None:
    """kube-scheduler, Kueue, KAI and Volcano are siblings (tasplan/schedulers/<name>/):
    each imports, of tasplan/schedulers/, only the interface and its own package. The
    modules beside them (registry, planner) run them."""
    packages = {m for m, path in modules().items() if m.startswith("tasplan.schedulers.")
                and path.name == "__init__.py"}
    wrong = []
    for module, edges in graph().items():
        own = ".".join(module.split(".")[:3])
        if own not in packages:
            continue
        for target in edges:
            if target.startswith("tasplan.schedulers") and target not in SHARED \
                    and ".".join(target.split(".")[:3]) != own:
                wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(wrong)


# The planner's packages: every function fits a screen (issue 20).
SCREEN = 80
PLANNER = ("plan", "preemption", "framework")


def test_planner_functions_fit_a_screen() -> None:
    """kube-scheduler's implementation and the top of tasplan/schedulers/ too; the other
    schedulers' packages are their own."""
    paths = [p for pkg in PLANNER for p in (ROOT / pkg).rglob("*.py")]
    paths += [*(ROOT / "schedulers").glob("*.py"), *(ROOT / "schedulers" / "kube").rglob("*.py")]
    long = []
    for path in sorted(paths):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > SCREEN:
                    long.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}: {node.name} "
                                f"has {lines} lines")
    assert not long, "\n".join(long)
