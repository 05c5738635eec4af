"""A version's code with the user's docstring and leading comments in place of its own."""

from __future__ import annotations

from codequorum.lsp.docstrings import split, with_current_head

CURRENT = '''\
def chunked(xs, n):
    """Break *xs* into lists of length *n*.

    >>> list(chunked([1, 2, 3, 4], 2))
    [[1, 2], [3, 4]]
    >>> list(chunked([1, 2, 3], 2))
    [[1, 2], [3]]
    """
    # the last chunk may be shorter
    for i in range(0, len(xs), n):
        yield xs[i:i + n]
'''

VERSION = '''\
@cache
def chunked(xs: list[int],
            n: int) -> list[list[int]]:
  """Chunk it."""
  # a comprehension
  return [xs[i:i + n] for i in range(0, len(xs), n)]
'''


def test_the_users_docstring_and_comments_go_with_the_versions_signature_and_body() -> None:
    assert with_current_head(CURRENT, VERSION, "chunked") == '''\
@cache
def chunked(xs: list[int],
            n: int) -> list[list[int]]:
  """Break *xs* into lists of length *n*.

  >>> list(chunked([1, 2, 3, 4], 2))
  [[1, 2], [3, 4]]
  >>> list(chunked([1, 2, 3], 2))
  [[1, 2], [3]]
  """
  # the last chunk may be shorter
  return [xs[i:i + n] for i in range(0, len(xs), n)]
'''


def test_without_a_docstring_of_the_users_the_versions_goes_too() -> None:
    mine = "def f(x):\n    return x\n"
    theirs = 'import math\ndef f(x):\n    """Floor."""\n    return math.floor(x)\n'
    assert with_current_head(mine, theirs, "f") == (
        "import math\ndef f(x):\n    return math.floor(x)\n")


def test_the_named_function_is_the_one_changed_and_the_rest_stays() -> None:
    mine = 'def f(x):\n    """Mine."""\n    return x\n'
    theirs = ('def helper(y):\n    """Helper."""\n    return y\n\n\n'
              'def f(x):\n    """Theirs."""\n    return helper(x)\n\n\nCONSTANT = 1\n')
    assert with_current_head(mine, theirs, "f") == (
        'def helper(y):\n    """Helper."""\n    return y\n\n\n'
        'def f(x):\n    """Mine."""\n    return helper(x)\n\n\nCONSTANT = 1\n')


def test_a_method_indented_in_its_class_keeps_its_docstring_too() -> None:
    mine = '    def total(self):\n        """Sum of the items."""\n        return sum(self.items)\n'
    theirs = "def total(self):\n    s = 0\n    for x in self.items:\n        s += x\n    return s\n"
    assert with_current_head(mine, theirs, "total") == (
        'def total(self):\n    """Sum of the items."""\n    s = 0\n    for x in self.items:\n'
        "        s += x\n    return s\n")


def test_what_cannot_be_split_cleanly_gives_none() -> None:
    mine = 'def f(x):\n    """Doc."""\n    return x\n'
    assert with_current_head(mine, "def f(x): return x + 1\n", "f") is None  # one line
    assert with_current_head(mine, "def f(x:\n", "f") is None  # no parse
    assert with_current_head(mine, "def g(x):\n    return x\n", "f") is None  # no such name
    assert with_current_head(mine, 'def f(x):\n    """Only a docstring."""\n', "f") is None
    assert with_current_head(mine, 'def f(x):\n    """Doc."""; return x\n', "f") is None


def test_the_three_parts() -> None:
    parts = split('def f(\n    x,\n):  # note\n    # above\n    """Doc."""\n\n    y = x\n'
                  "    return y\n", "f")
    assert parts is not None
    assert parts.signature == "def f(\n    x,\n):  # note"
    assert parts.head == ["    # above", '    """Doc."""', ""]
    assert parts.body == ["    y = x", "    return y", ""]
    assert parts.indent == "    "
