"""The layers of the package: every import points down the flow.

The contracts live in ``pyproject.toml`` (``[tool.importlinter]``) and ``lint-imports`` checks
the same ones: a folder imports only the folders below it (``lsp`` and ``agents`` not each
other), metrics and verdicts stay pure (no I/O, protocol or network package, not even
through another module), and nothing in ``lsp/`` imports the language server itself (its
handlers see it through ``lsp/host.py``). Imports inside functions and under
``TYPE_CHECKING`` count.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = REPO / "pyproject.toml"
PACKAGE = REPO / "server" / "codequorum"


def _layers() -> list[str]:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "layers"]
    return [name.strip() for layer in contract["layers"] for name in layer.split("|")]


def test_every_import_points_down_the_layers(capsys: pytest.CaptureFixture[str]) -> None:
    status = lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert status == 0, report


def test_every_folder_of_the_package_is_a_layer() -> None:
    """A new folder outside the layer list would escape the contract."""
    folders = {f"codequorum.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")}
    assert folders == set(_layers())
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py"]


#: Functions of the commands that read parsed arguments besides each command's ``run`` and
#: its ``*_request``: what several requests share.
DOOR_HELPERS = {"propose_config", "provider_config"}


def _takes_namespace(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    params = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    return any(p.annotation is not None and "Namespace" in ast.unparse(p.annotation)
               for p in params)


def _namespace_uses(path: Path) -> list[str]:
    """Where a module names ``argparse.Namespace`` (an annotation, an import, a check)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def names_it(node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute):
            return (node.attr == "Namespace" and isinstance(node.value, ast.Name)
                    and node.value.id == "argparse")
        if isinstance(node, ast.ImportFrom):
            return node.module == "argparse" and any(a.name == "Namespace" for a in node.names)
        return False

    return [f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', 0)}"
            for node in ast.walk(tree) if names_it(node)]


def test_no_module_outside_the_command_line_sees_parsed_arguments() -> None:
    """Commands turn their arguments into typed requests at the door; below ``cli/``
    nothing takes an ``argparse.Namespace``."""
    outside = [p for p in PACKAGE.rglob("*.py") if "cli" not in p.relative_to(PACKAGE).parts]
    assert len(outside) > 100
    assert [use for path in outside for use in _namespace_uses(path)] == []


def test_past_each_command_s_door_nothing_sees_parsed_arguments() -> None:
    """In a command, only ``run(args)``, the ``*_request(args)`` that reads its request
    and the few helpers requests share take the parsed arguments."""
    commands = sorted((PACKAGE / "cli" / "commands").glob("*.py"))
    modules = [*commands, PACKAGE / "cli" / "endpoint.py", PACKAGE / "cli" / "scoring.py"]
    doors: dict[str, set[str]] = {}
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        doors[path.stem] = {node.name for node in ast.walk(tree)
                            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                            and _takes_namespace(node)}
    past = {name: sorted(f for f in functions if f != "run" and not f.endswith("_request")
                         and f not in DOOR_HELPERS)
            for name, functions in doors.items()}
    assert {name: names for name, names in past.items() if names} == {}
    requests = {name for name, functions in doors.items()
                if any(f.endswith("_request") for f in functions)}
    assert requests == {"check", "demo", "doctor", "export", "lsp", "mcp", "sample", "score"}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = [stack.pop()]
            while group[-1] != v:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_module_imports_one_that_imports_it_back() -> None:
    """No import cycle, not even through an import inside a function or a package's
    ``__init__``: each module can be read knowing only the modules below it."""
    import grimp

    graph = grimp.build_graph("codequorum", cache_dir=None)
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert _cycles(edges) == []
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
