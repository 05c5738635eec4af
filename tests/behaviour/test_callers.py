"""Calls of a function with literal arguments in its module's view."""

from __future__ import annotations

from codequorum.behaviour.callers import is_test_file, literal_calls
from codequorum.core.model import ModuleContext

APP = '''
import app
def f(x, y=1):
    return f(x - 1) if x else y

def g():
    return f(2, y=3) + f(2, y=3) + f(x=[1]) + f(g())

class K:
    def m(self):
        return self.f(4)
'''
TESTS = "from app import f\n\ndef test_f():\n    assert app.f(5) == 1\n    assert other.f(9)\n"


def _context(kind: str = "function") -> ModuleContext:
    return ModuleContext(name="app", path="app.py", qualified_name="f", kind=kind,  # type: ignore[arg-type]
                         files=(("tests/test_app.py", TESTS), ("app.py", APP)), roots=("",))


def test_literal_calls_outside_the_function_own_file_first() -> None:
    calls = literal_calls(_context(), "f")
    assert [(c.args, c.kwargs, c.in_test) for c in calls] == [
        ((2,), {"y": 3}, False), ((), {"x": [1]}, False), ((5,), {}, True)]
    method = literal_calls(_context("method"), "f")
    assert ((4,), {}, False) in [(c.args, c.kwargs, c.in_test) for c in method]
    assert len(literal_calls(_context(), "f", limit=1)) == 1


def test_test_files_are_told_by_their_names() -> None:
    assert is_test_file("tests/test_app.py") and is_test_file("pkg/app_test.py")
    assert not is_test_file("pkg/app.py") and not is_test_file("testing.py")
