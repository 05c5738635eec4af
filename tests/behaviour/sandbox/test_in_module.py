"""A version runs in its function's module, inside the same kernel sandbox.

The modules here are real files' text (a ``ModuleContext`` as the view builder makes it):
imports of the standard library, helpers, constants, classes and their methods, a package
with relative imports, and modules whose top level refuses to run or tries to reach out.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from codequorum.behaviour.sandbox import protocol
from codequorum.behaviour.sandbox.supervisor import (
    CandidateResult,
    ModuleLoad,
    run_candidate,
    run_candidates,
)
from codequorum.core.model import ModuleContext, Receiver
from codequorum.core.model import TestCase as Case

APP = '''\
import re
from bisect import insort

UNITS = {"h": 3600, "m": 60, "s": 1}


def _unit(letter):
    return UNITS[letter]


def parse_duration(text):
    """Seconds in a duration such as 1h30m."""
    total = 0
    for amount, unit in re.findall(r"(\\d+)([hms])", text):
        total += int(amount) * _unit(unit)
    return total


def sorted_durations(texts):
    out = []
    for text in texts:
        insort(out, parse_duration(text))
    return out


if __name__ == "__main__":
    raise SystemExit("the main block ran")
NAME = __name__
'''

SHAPES = '''\
import functools


class Base:
    def describe(self):
        return "shape"


class Square(Base):
    def __init__(self, side):
        self.side = side
        self.__hidden = side + 1

    def area(self):
        return self.side * self.side

    def describe(self):
        return f"{super().describe()} of area {self.area()}"

    @staticmethod
    def unit():
        return 1

    @property
    def perimeter(self):
        return 4 * self.side

    def grown(self, k):
        return Square(self.side + k)


@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
'''


def context(source: str, qualified_name: str, kind: str = "function", name: str = "app",
            path: str = "app.py", files: tuple[tuple[str, str], ...] = (),
            roots: tuple[str, ...] = ("",)) -> ModuleContext:
    """The module ``source`` at ``path`` in the view, with ``files`` beside it."""
    return ModuleContext(name=name, path=path, qualified_name=qualified_name,
                         kind=kind,  # type: ignore[arg-type]
                         files=((path, source), *files), roots=roots)


def call(*args: object, expected: object = None, receiver: Receiver | None = None) -> Case:
    return Case("call", args=tuple(args), expected=expected, has_expected=expected is not None,
                receiver=receiver)


def outputs(result: CandidateResult) -> list[str | None]:
    return [t.output if t.exc_type is None else f"{t.exc_type}: {t.exc_message}"
            for t in result.tests]


# --------------------------------------------------------------------------- functions


def test_a_function_sees_its_imports_helpers_and_constants() -> None:
    versions = [
        "def parse_duration(text):\n"
        "    return sum(int(a) * UNITS[u] for a, u in re.findall(r'(\\d+)([hms])', text))\n",
        "def parse_duration(text):\n"
        "    return sum(int(a) * _unit(u) for a, u in re.findall(r'(\\d+)([hms])', text))\n",
    ]
    tests = [call("1h30m", expected=5400), call("45s", expected=45)]
    ctx = context(APP, "parse_duration")
    results = run_candidates(versions, tests, "parse_duration", module=ctx, jobs=2)
    for result in results:
        assert result.status == "ok", result.detail
        assert result.module == ModuleLoad(loaded=True)
        assert [t.passed for t in result.tests] == [True, True]
        assert "ro-view" in result.layers
    alone = run_candidate(versions[0], tests, "parse_duration")
    assert [t.exc_message for t in alone.tests] == ["name 're' is not defined"] * 2


def test_other_functions_of_the_module_call_the_version() -> None:
    """The version takes the function's place: the module's own callers call it."""
    wrong = "def parse_duration(text):\n    return len(text)\n"
    ctx = context(APP, "parse_duration")
    result = run_candidate(wrong, [call("1h30m")], "parse_duration", module=ctx)
    assert outputs(result) == ["5"]
    caller = context(APP, "sorted_durations")
    version = "def sorted_durations(texts):\n    return sorted(map(parse_duration, texts))\n"
    result = run_candidate(version, [call(["1m", "2s", "1h"])], "sorted_durations",
                           module=caller)
    assert outputs(result) == ["[2, 60, 3600]"]


def test_the_module_has_its_dotted_name_and_its_main_block_does_not_run() -> None:
    ctx = context(APP, "parse_duration", name="tools.app", path="tools/app.py",
                  files=(("tools/__init__.py", ""),))
    version = "def parse_duration(text):\n    return (NAME, __name__, parse_duration.__module__)\n"
    result = run_candidate(version, [call("1h")], "parse_duration", module=ctx)
    assert result.module == ModuleLoad(loaded=True)
    assert outputs(result) == ["('tools.app', 'tools.app', 'tools.app')"]


def test_the_functions_decorators_apply_to_the_version() -> None:
    """Stored versions carry no decorators: the function's own are put back (an
    ``lru_cache`` keeps the recursion linear)."""
    version = "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
    result = run_candidate(version, [call(90)], "fib", module=context(SHAPES, "fib"))
    assert outputs(result) == ["2880067194370816120"]


def test_only_the_versions_own_code_is_counted() -> None:
    """The module's top level and its helpers are not the version's: a version that
    calls a heavy helper counts its own few instructions, as it would alone."""
    source = ("def helper(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n"
              "WARM = helper(10_000)\n"
              "def f(n):\n    return helper(n)\n")
    version = "def f(n):\n    return helper(n)\n"
    result = run_candidate(version, [call(5_000)], "f", module=context(source, "f"))
    assert outputs(result) == ["12497500"]
    assert result.tests[0].opcodes is not None
    assert result.tests[0].opcode_total < 20
    self_contained = "def f(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n"
    in_module = run_candidate(self_contained, [call(50)], "f", module=context(source, "f"))
    alone = run_candidate(self_contained, [call(50)], "f")
    assert in_module.tests[0].opcodes == alone.tests[0].opcodes
    assert in_module.tests[0].opcode_total > 50


# --------------------------------------------------------------------------- methods


SQUARE = Receiver("Square", (3,))


def test_a_method_runs_on_an_instance_of_its_class() -> None:
    versions = {
        "area": "def area(self):\n    return self.side ** 2\n",
        "describe": "def describe(self):\n    return super().describe() + f' {self.area()}'\n",
        "grown": "def grown(self, k):\n    return Square(self.side + k)\n",
        "unit": "def unit():\n    return 2\n",
        "perimeter": "def perimeter(self):\n    return self.side * 4\n",
    }
    seen = {}
    for name, version in versions.items():
        args = (2,) if name == "grown" else ()
        result = run_candidate(version, [call(*args, receiver=SQUARE)], name,
                               module=context(SHAPES, f"Square.{name}", "method"))
        assert result.status == "ok", result.detail
        seen[name] = outputs(result)[0]
    assert seen == {
        "area": "9",
        "describe": "'shape 9'",
        # an object with the default repr shows its class and state, never an address
        "grown": "<app.Square {'side': 5, '_Square__hidden': 6}>",
        "unit": "2",  # the function's @staticmethod applies to the version
        "perimeter": "12",  # and its @property: read on the instance
    }


def test_private_names_are_mangled_as_in_the_class() -> None:
    version = "def area(self):\n    return self.__hidden * self.side\n"
    result = run_candidate(version, [call(receiver=SQUARE)], "area",
                           module=context(SHAPES, "Square.area", "method"))
    assert outputs(result) == ["12"]


def test_a_method_without_a_receiver_is_looked_up_on_its_class() -> None:
    version = "def unit():\n    return 5\n"
    result = run_candidate(version, [call(), call(receiver=Receiver("Square", call=False))],
                           "unit", module=context(SHAPES, "Square.unit", "method"))
    assert outputs(result) == ["5", "5"]


def test_a_nested_class_method() -> None:
    source = "class Outer:\n    class Inner:\n        def f(self):\n            return 1\n"
    version = "def f(self):\n    return type(self).__qualname__\n"
    result = run_candidate(version, [call(receiver=Receiver("Outer.Inner"))], "f",
                           module=context(source, "Outer.Inner.f", "method"))
    assert outputs(result) == ["'Outer.Inner'"]


def test_a_whole_class_run_alone_is_called_through_its_dotted_method() -> None:
    version = ("class Outer:\n    class Inner:\n        def __init__(self, k):\n"
               "            self.k = k\n\n        def f(self, x):\n"
               "            return self.k * x\n\n        @staticmethod\n"
               "        def g(x):\n            return -x\n")
    tests = [call(2, receiver=Receiver("Outer.Inner", (3,))),
             call(2, receiver=Receiver("Outer.Inner", source="Outer.Inner(k=4)"))]
    assert outputs(run_candidate(version, tests, "Outer.Inner.f")) == ["6", "8"]
    assert outputs(run_candidate(version, [call(2)], "Outer.Inner.g")) == ["-2"]
    missing = run_candidate(version, tests[:1], "Outer.Other.f").tests[0]
    assert (missing.exc_type, missing.exc_message) == (
        "NameError", "the candidate defines no class 'Outer.Other'")
    nothing = run_candidate(version, tests[:1], "Outer.Inner.h").tests[0]
    assert (nothing.exc_type, nothing.exc_message) == (
        "NameError", "the candidate defines no method 'Outer.Inner.h'")


def test_a_function_inside_a_function_runs_with_the_module_names() -> None:
    source = "K = 10\ndef outer():\n    def inner(x):\n        return x\n    return inner\n"
    version = "def inner(x):\n    return x + K\n"
    result = run_candidate(version, [call(1)], "inner",
                           module=context(source, "outer.inner", "nested"))
    assert outputs(result) == ["11"]


# --------------------------------------------------------------------------- packages


def test_a_relative_import_in_a_package() -> None:
    files = (
        ("pkg/__init__.py", "from .util import triple as triple\nLOADED = True\n"),
        ("pkg/util.py", "from .consts import FACTOR\ndef triple(x):\n    return x * FACTOR\n"),
        ("pkg/consts.py", "FACTOR = 3\n"),
    )
    source = "from .util import triple\nfrom . import LOADED\n\ndef tripled(x):\n    return 0\n"
    ctx = context(source, "tripled", name="pkg.app", path="pkg/app.py", files=files)
    version = "def tripled(x):\n    return (triple(x), LOADED, __package__)\n"
    result = run_candidate(version, [call(4)], "tripled", module=ctx)
    assert result.module == ModuleLoad(loaded=True), result.module
    assert outputs(result) == ["(12, True, 'pkg')"]


def test_a_src_layout_package_imported_absolutely() -> None:
    files = (("src/lib/__init__.py", "def twice(x):\n    return 2 * x\n"),)
    source = "from lib import twice\n\ndef f(x):\n    return twice(x)\n"
    ctx = context(source, "f", name="app", path="app.py", files=files, roots=("", "src"))
    result = run_candidate("def f(x):\n    return twice(x) + 1\n", [call(4)], "f", module=ctx)
    assert outputs(result) == ["9"]


def test_a_package_of_the_workspace_s_environment_is_imported_from_its_site_packages() -> None:
    """The view holds an installed package under ``.venv/lib/python3.11/site-packages``,
    one of its roots: the module imports it at its top level and the version uses it."""
    site = ".venv/lib/python3.11/site-packages"
    source = "import text_unidecode\ndef ascii(s):\n    return s\n"
    package = ("import pkgutil\n_R = pkgutil.get_data(__name__, 'data.bin').decode().split('|')\n"
               "def unidecode(s):\n    return ''.join(_R[0] if ord(c) > 127 else c for c in s)\n")
    ctx = context(source, "ascii", files=((f"{site}/text_unidecode/__init__.py", package),
                                          (f"{site}/text_unidecode/data.bin", "?|!")),
                  roots=("", site))
    result = run_candidate("def ascii(s):\n    return text_unidecode.unidecode(s)\n",
                           [call("café", expected="caf?")], "ascii", module=ctx)
    assert result.module == ModuleLoad(loaded=True), result.module
    assert [t.passed for t in result.tests] == [True]


def test_a_module_named_like_the_standard_library() -> None:
    """``ast.py`` in a workspace: loaded from its file, the harness's own ``ast`` kept."""
    source = "import json\nX = 2\ndef f(x):\n    return x\n"
    ctx = context(source, "f", name="ast", path="ast.py")
    result = run_candidate("def f(x):\n    return x * X\n", [call(4)], "f", module=ctx)
    assert outputs(result) == ["8"]


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("top", "detail"),
    [
        ("raise ValueError('not here')\n", "its top level raised ValueError: not here"),
        ("import numpy_is_not_here\n",
         "its top level raised ModuleNotFoundError: No module named 'numpy_is_not_here'"),
        ("import sys\nsys.exit(3)\n", "its top level raised SystemExit: 3"),
        ("def broken(:\n", "its top level raised SyntaxError: invalid syntax (app.py, line 1)"),
    ],
)
def test_a_module_that_does_not_load_leaves_the_version_to_run_alone(
        top: str, detail: str) -> None:
    version = "def f(x):\n    return x + 1\n"
    result = run_candidate(version, [call(1, expected=2)], "f", module=context(top, "f"))
    assert result.status == "ok", result.detail
    assert result.module == ModuleLoad(loaded=False, detail=detail, ran_alone=True)
    assert [t.passed for t in result.tests] == [True]


def test_a_module_whose_top_level_hangs_has_the_per_test_budget() -> None:
    from codequorum.behaviour.sandbox.limits import Limits

    result = run_candidate("def f(x):\n    return x\n", [call(1)], "f",
                           Limits(wall_seconds=8, cpu_seconds=8, test_seconds=0.5),
                           module=context("while True:\n    pass\n", "f"))
    assert result.module == ModuleLoad(loaded=False, ran_alone=True,
                                       detail="its top level ran longer than 0.5s")
    assert outputs(result) == ["1"]


def test_a_module_that_ends_the_process_while_loading() -> None:
    result = run_candidate("def f(x):\n    return x\n", [call(1)], "f",
                           module=context("import os\nos._exit(0)\n", "f"))
    assert result.tests == []
    assert result.module is not None and not result.module.loaded
    assert not result.module.ran_alone
    assert result.module.detail.startswith("the run ended while its top level ran: exit")


@pytest.fixture
def home_secret() -> Iterator[Path]:
    """A file in the real HOME that nothing in the sandbox may read."""
    path = Path(os.path.expanduser("~")) / "codequorum-in-module-secret.txt"
    path.write_text("the user's secret\n")
    yield path
    path.unlink(missing_ok=True)


def test_a_module_that_reaches_out_changes_nothing_and_sees_no_home(
        tmp_path: Path, home_secret: Path) -> None:
    marker = tmp_path / "marker.txt"
    home_marker = home_secret.with_name("codequorum-in-module-marker.txt")
    source = (
        "import errno, os, socket\n"
        "SEEN = []\n"
        "def failed(exc):\n"
        "    return errno.errorcode.get(exc.errno, type(exc).__name__)\n"
        f"for target in ({str(marker)!r}, {str(home_marker)!r}, __file__):\n"
        "    try:\n"
        "        open(target, 'a').write('x')\n"
        "        SEEN.append('wrote')\n"
        "    except OSError as exc:\n"
        "        SEEN.append(failed(exc))\n"
        "try:\n"
        f"    SEEN.append(open({str(home_secret)!r}).read())\n"
        "except OSError as exc:\n"
        "    SEEN.append(failed(exc))\n"
        "try:\n"
        "    socket.create_connection(('127.0.0.1', 9))\n"
        "except OSError as exc:\n"
        "    SEEN.append(failed(exc))\n"
        "SEEN.append(sorted(os.listdir(os.path.dirname(__file__))))\n"
        "def f():\n    return SEEN\n"
    )
    files = (("helper.py", "X = 1\n"),)
    result = run_candidate("def f():\n    return SEEN\n", [call()], "f",
                           module=context(source, "f", files=files))
    assert result.status == "ok", result.detail
    assert result.module is not None and result.module.loaded
    assert sorted(result.module.refused) == ["network", "write outside sandbox"]
    seen = ast.literal_eval(str(outputs(result)[0]))
    # /tmp is the sandbox's own (the host's folder is not there); HOME and the view refuse;
    # HOME's secret is not there; the module's folder holds the view's files only
    assert seen[0] in ("ENOENT", "PermissionError")  # the hook's refusal has no errno
    assert seen[1:] == ["PermissionError", "PermissionError", "ENOENT", "PermissionError",
                        ["app.py", "helper.py"]]
    assert not marker.exists() and not home_marker.exists()
    # without the audit hook the kernel refuses the same: the view is read-only
    result = run_candidate("def f():\n    return SEEN\n", [call()], "f", audit_hook=False,
                           module=context(source, "f", files=files))
    seen = ast.literal_eval(str(outputs(result)[0]))
    assert seen[1:] == ["EACCES", "EROFS", "ENOENT", "ENETUNREACH", ["app.py", "helper.py"]]
    assert not marker.exists() and not home_marker.exists()


def test_a_version_cannot_forge_how_its_module_loaded() -> None:
    """Only the child's one ``module`` message, sent before any version code, counts."""
    forged = protocol.encode_frame({"type": protocol.MSG_MODULE, "loaded": False,
                                    "detail": "forged"})
    version = f"import posix\nposix.write(3, {forged!r})\ndef f(x):\n    return x\n"
    result = run_candidate(version, [call(1)], "f", module=context("X = 1\n", "f"))
    assert result.status == "ok", result.detail
    assert result.module == ModuleLoad(loaded=True)
    assert outputs(result) == ["1"]


def test_a_version_that_does_not_define_the_function_is_not_the_original() -> None:
    result = run_candidate("def other(x):\n    return x\n", [call(1)], "parse_duration",
                           module=context(APP, "parse_duration"))
    assert outputs(result) == ["NameError: the candidate defines no callable 'parse_duration'"]


@pytest.mark.parametrize("start_method", ["fork", "exec"])
@pytest.mark.parametrize("level", ["strict", "weak"])
def test_every_start_method_and_level(start_method: str, level: str) -> None:
    version = "def parse_duration(text):\n    return len(re.findall('h', text)) * UNITS['h']\n"
    result = run_candidate(version, [call("1h")], "parse_duration",
                           module=context(APP, "parse_duration"), start_method=start_method,
                           sandbox=level)
    assert result.start_method == start_method
    assert outputs(result) == ["3600"]
    assert ("ro-view" in result.layers) == (level == "strict")


def test_the_probe_with_a_view_checks_that_it_is_read_only() -> None:
    from codequorum.behaviour.sandbox import isolation

    assert "ro-view" in isolation.probe(view=True).layers
    assert "ro-view" not in isolation.probe().layers
    assert isolation.require(view=True).ok


@pytest.mark.parametrize("interpreter_fixture", ["python312", "python313"])
def test_other_interpreters_place_methods_alike(interpreter_fixture: str,
                                                request: pytest.FixtureRequest) -> None:
    """3.12+ build the class wrapper with type parameters and count with sys.monitoring."""
    interpreter = request.getfixturevalue(interpreter_fixture)
    version = "def describe(self):\n    return super().describe() + f' {self.area()}'\n"
    result = run_candidate(version, [call(receiver=SQUARE)], "describe",
                           module=context(SHAPES, "Square.describe", "method"),
                           interpreter=interpreter)
    assert result.status == "ok", result.detail
    assert outputs(result) == ["'shape 9'"]
    assert result.tests[0].opcodes and result.tests[0].opcode_total > 0
    self_contained = "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
    in_module = run_candidate(self_contained, [call(20)], "fib",
                              module=context("def fib(n):\n    return n\n", "fib"),
                              interpreter=interpreter)
    alone = run_candidate(self_contained, [call(20)], "fib", interpreter=interpreter)
    assert in_module.tests[0].opcodes == alone.tests[0].opcodes
