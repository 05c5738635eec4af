"""A version in its function's module, inside the sandbox child (stdlib only).

The run message's ``module`` (a :class:`codequorum.core.model.ModuleContext` as JSON) names the
module, its file in the workspace view, the function, the view's files and the folders put
on ``sys.path``. The child writes the view (read-only in the strict sandbox: a tmpfs of its
own at :data:`VIEW`, remounted read-only before any capability is dropped), imports the
module as ``importlib`` does (``__name__`` is its dotted name, so ``if __name__ ==
"__main__":`` blocks do not run; its packages' ``__init__`` run first), and only then puts
the version in place of the function:

- a function: the version's text runs in the module's globals, so its ``def`` rebinds the
  module's name (other functions that call it call the version, as if it had been written
  there), with the function's own decorators when the version has none (stored versions
  never carry them);
- a method: the version's ``def`` is compiled inside a class of the same name (private
  names are mangled as in the class) whose body runs with the real class's namespace and
  whose ``__class__`` cell is the real class (``super()`` works), and the result is set on
  the real class (``__set_name__`` called); the version's other statements (its imports,
  helpers) run in the module's globals;
- a function inside another function: as a function, in the module's globals, without
  rebinding the module's name; its enclosing function's names are not there.

The code objects counted by the tracer are the version's only: the module's own code (its
top level, helpers, class bodies) is never registered.
"""

from __future__ import annotations

import builtins
import os
import sys
import types

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ast
    from typing import Any
else:  # bound by ``preload``, before any code of the module or the version runs
    ast = None


def preload() -> None:
    """Import ``ast`` for a run in a module. Only such a run needs it, and importing it is a
    seventh of the portable guest's start; bound here, before any module or version code
    runs, so that code cannot hand the harness another ``ast`` through ``sys.modules``."""
    global ast
    import ast

#: Where the strict sandbox mounts the workspace view (``bwrap.py`` makes the mount point).
VIEW = "/workspace"
#: The weak sandbox writes the view into its working directory, under this name.
WEAK_VIEW = "workspace"
#: Files and bytes of a view the child accepts (the parent sends less).
MAX_FILES = 1024
MAX_BYTES = 64 * 1024 * 1024


def view_files(context: dict[str, Any]) -> list[tuple[str, str]]:
    """The view's (relative path, text) pairs, each path checked: relative, no ``..``, no
    empty or hidden component but the workspace's ``.venv`` (its site-packages' sources)."""
    out: list[tuple[str, str]] = []
    total = 0
    for item in list(context.get("files") or [])[:MAX_FILES]:
        if not (isinstance(item, list) and len(item) == 2):
            continue
        rel, text = item
        if not (isinstance(rel, str) and isinstance(text, str)) or "\0" in rel:
            continue
        parts = rel.split("/")
        if any(not p or (p.startswith(".") and (k, p) != (0, ".venv"))
               for k, p in enumerate(parts)):
            continue
        total += len(text)
        if total > MAX_BYTES:
            break
        out.append((rel, text))
    return out


def view_bytes(files: list[tuple[str, str]]) -> int:
    """Room the view's tmpfs needs: its text, plus a page per file and folder."""
    return sum(len(text.encode("utf-8", "surrogatepass")) + 8192 for _rel, text in files) + 65536


def write_view(root: str, files: list[tuple[str, str]]) -> None:
    """Write the view's files under ``root``, then make them read-only (files 0444,
    folders 0555)."""
    folders: set[str] = set()
    for rel, text in files:
        path = os.path.join(root, *rel.split("/"))
        folder = os.path.dirname(path)
        os.makedirs(folder, mode=0o755, exist_ok=True)
        while folder.startswith(root) and folder not in folders:
            folders.add(folder)
            folder = os.path.dirname(folder)
        with open(path, "w", encoding="utf-8", errors="surrogatepass", newline="") as handle:
            handle.write(text)
        os.chmod(path, 0o444)
    for folder in sorted(folders, key=len, reverse=True):
        os.chmod(folder, 0o555)


def import_module(context: dict[str, Any], root: str) -> types.ModuleType:
    """Import the module from the view as ``importlib`` does; raises what its top level
    raises. A module whose name the harness has already imported (a standard-library
    name) is loaded from its file under that name without replacing the other."""
    import importlib

    roots = [os.path.join(root, *r.split("/")) if r else root
             for r in context.get("roots") or [""] if isinstance(r, str)]
    sys.path[:0] = roots
    importlib.invalidate_caches()
    name = str(context["name"])
    if name in sys.modules:
        import importlib.util

        path = os.path.join(root, *str(context["path"]).split("/"))
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {name!r} from {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(name)


def future_flags(module: types.ModuleType) -> int:
    """The compiler flags of the module's ``from __future__ import annotations``."""
    import __future__

    feature = __future__.annotations
    return feature.compiler_flag if module.__dict__.get("annotations") is feature else 0


class Placed:
    """The version in its module: what a test calls.

    ``function`` for a function; ``owner`` (the class) and ``name`` for a method, looked
    up on the receiver of each test (an instance, or the class).
    """

    def __init__(self, function: Any = None, owner: Any = None, name: str = "") -> None:
        self.function = function
        self.owner = owner
        self.name = name


def place(module: types.ModuleType, source: str, module_source: str, qualname: str,
          filename: str, prepare: Any = None) -> tuple[list[types.CodeType], Placed]:
    """Put the version (``source``) in place of ``qualname`` in ``module``; returns the
    version's code objects as run and what a test calls. Runs the version's top level, so
    it raises what that raises; NameError when it does not define the function.
    ``prepare``: given each compiled code object before it runs, returns the one to run
    (the tracer's, which counts it)."""
    ready = prepare if prepare is not None else _same
    tree = ast.parse(source, filename)
    name = qualname.rpartition(".")[2]
    found = [i for i, n in enumerate(tree.body)
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    if not found:
        raise NameError(f"the candidate defines no callable {name!r}")
    node: Any = tree.body[found[-1]]
    if not node.decorator_list:
        node.decorator_list = _decorators(module_source, qualname)
    flags = future_flags(module)
    owner = _owner(module, qualname)
    if owner is None:
        nested = "." in qualname
        code = ready(compile(tree, filename, "exec", flags=flags, dont_inherit=True))
        kept = module.__dict__.get(name, _MISSING)
        exec(code, module.__dict__)
        function = module.__dict__.get(name)
        if nested:
            if kept is _MISSING:
                module.__dict__.pop(name, None)
            else:
                module.__dict__[name] = kept
        elif kept is not _MISSING and function is not kept:
            _rebind(kept, function, module)
        return [code], Placed(function=function)
    others = ast.Module(body=[n for n in tree.body if n is not node], type_ignores=[])
    before = ready(compile(others, filename, "exec", flags=flags, dont_inherit=True))
    wrapper = _class_wrapper(owner.__name__, node)
    in_class = ready(compile(wrapper, filename, "exec", flags=flags, dont_inherit=True))
    exec(before, module.__dict__)
    body = next(c for c in in_class.co_consts
                if isinstance(c, types.CodeType) and c.co_name == owner.__name__)
    builtins.__build_class__(types.FunctionType(body, module.__dict__, owner.__name__),
                             owner.__name__, metaclass=_Into(owner, name))
    return [before, in_class], Placed(owner=owner, name=name)


_MISSING = object()


def _rebind(original: Any, version: Any, module: types.ModuleType) -> None:
    """Every other loaded module holding the module's original function (a package's
    ``from ._deprecated import replace``) holds the version instead, so an example or a
    test reaching it through the package (``semver.replace(...)``) runs the version, not
    the code it stands in for."""
    for other in list(sys.modules.values()):
        names = getattr(other, "__dict__", None)
        if other is module or not isinstance(names, dict):
            continue
        for key, value in list(names.items()):
            if value is original:
                names[key] = version


def _same(code: types.CodeType) -> types.CodeType:
    return code


def _owner(module: types.ModuleType, qualname: str) -> type | None:
    """The class a method belongs to (``Outer.Inner`` followed from the module), or None
    for a function (and for one inside a function)."""
    owners = qualname.split(".")[:-1]
    if not owners:
        return None
    obj: Any = module
    for part in owners:
        obj = obj.__dict__.get(part) if isinstance(obj, (type, types.ModuleType)) else None
        if not isinstance(obj, type):
            return None
    owner: type = obj
    return owner


def _decorators(module_source: str, qualname: str) -> list[ast.expr]:
    """The decorators of ``qualname``'s definition in the module (none when it is not
    found)."""
    try:
        body: list[ast.stmt] = ast.parse(module_source).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    node: Any = None
    for part in qualname.split("."):
        matches = [n for n in body if isinstance(n, (ast.ClassDef, ast.FunctionDef,
                                                     ast.AsyncFunctionDef)) and n.name == part]
        if not matches:
            return []
        node = matches[-1]
        body = node.body
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return list(node.decorator_list)
    return []


def _class_wrapper(class_name: str, node: ast.stmt) -> ast.Module:
    """``class <class_name>: <node>``: the method compiled as its class compiles it."""
    fields: dict[str, Any] = {"name": class_name, "bases": [], "keywords": [],
                              "body": [node], "decorator_list": []}
    if sys.version_info >= (3, 12):
        fields["type_params"] = []
    klass = ast.ClassDef(**fields)
    ast.copy_location(klass, node)
    module = ast.Module(body=[klass], type_ignores=[])
    ast.fix_missing_locations(module)
    return module


class _Into:
    """A metaclass in all but name: runs the wrapper's body in a copy of the real class's
    namespace and sets what it defines on the real class, whose ``__class__`` cell it is."""

    def __init__(self, owner: type, name: str) -> None:
        self.owner = owner
        self.name = name

    def __prepare__(self, _name: str, _bases: tuple[Any, ...], **_kw: Any) -> dict[str, Any]:
        return dict(self.owner.__dict__)

    def __call__(self, _name: str, _bases: tuple[Any, ...], ns: dict[str, Any]) -> type:
        cell = ns.get("__classcell__")
        if cell is not None:
            cell.cell_contents = self.owner
        value = ns[self.name]
        if isinstance(value, types.FunctionType):
            value.__qualname__ = f"{self.owner.__qualname__}.{self.name}"
        setattr(self.owner, self.name, value)
        set_name = getattr(type(value), "__set_name__", None)
        if set_name is not None:
            set_name(value, self.owner, self.name)
        return self.owner


def owned(names: dict[str, Any], qualname: str) -> Placed:
    """The method ``qualname`` (``Stack.peek_or``) of a class the names define: what a
    version run alone, a whole class, is called through. NameError when it is missing."""
    path, _, name = qualname.rpartition(".")
    try:
        owner = _lookup(names, path)
    except (KeyError, AttributeError):
        raise NameError(f"the candidate defines no class {path!r}") from None
    if not isinstance(owner, type) or not hasattr(owner, name):
        raise NameError(f"the candidate defines no method {qualname!r}")
    return Placed(owner=owner, name=name)


def _lookup(names: dict[str, Any], dotted: str) -> Any:
    """``A.B`` among ``names``: ``names["A"].B``."""
    first, *rest = dotted.split(".")
    obj = names[first]
    for part in rest:
        obj = getattr(obj, part)
    return obj


def target(placed: Placed, names: dict[str, Any], receiver: dict[str, Any] | None,
           decode: Any) -> Any:
    """What one test calls: the function, or the method looked up on the test's receiver
    (the class called with literal arguments, an instance made by an expression of the
    class's docstring examples evaluated in the module's globals ``names``, or the class
    itself), else on the class; an ``__init__`` is called through its class, which gives
    the instance it made."""
    if receiver is not None:
        obj: Any
        source = receiver.get("source")
        if isinstance(source, str):
            obj = eval(compile(source, "<example>", "eval"), dict(names))
        else:
            obj = _lookup(names, str(receiver.get("name") or ""))
        if receiver.get("call", True) and not isinstance(source, str):
            args = decode(receiver.get("args") or {"$": "tuple", "v": []})
            kwargs = decode(receiver.get("kwargs") or {"$": "dict", "v": []})
            obj = obj(*args, **kwargs)
        name = placed.name or getattr(placed.function, "__name__", "")
        if isinstance(_static(obj, name), property):  # ``Shape(3).perimeter``: read it
            return lambda: getattr(obj, name)
        return getattr(obj, name)
    if placed.owner is not None and placed.name == "__init__":
        return placed.owner  # ``Range(3, 1)``: the instance its ``__init__`` makes
    if placed.owner is not None:
        return getattr(placed.owner, placed.name)
    if not callable(placed.function):
        raise NameError("the candidate's function is not callable in its module")
    return placed.function


def _static(obj: Any, name: str) -> Any:
    """``name`` as the classes of ``obj`` define it, without running a descriptor."""
    kinds = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
    for kind in kinds:
        if name in kind.__dict__:
            return kind.__dict__[name]
    return None
