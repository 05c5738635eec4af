"""A real package's function and hand-made versions of it, to run through every front end.

``one`` is more-itertools 11.2's (MIT, ``more_itertools/more.py``), with its docstring's
real examples: an exception per example under ``+IGNORE_EXCEPTION_DETAIL``, the same call
``one(it)`` after two setups, a message over two lines. It lives in a package whose
``recipes`` module it imports relatively (``_marker``, as more-itertools does). The
versions: the original (the current code, stored as version 1), a correct rewrite with
``islice``, and a plausible wrong one that returns the first item of two.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

RECIPES = '''"""Imported relatively by more.py."""

_marker = object()
'''

DOC = '''"""Return the first item from *iterable*, which is expected to contain only
    that item. Raise an exception if *iterable* is empty or has more than one
    item.

    If *iterable* is empty, ``ValueError`` will be raised. You may specify a
    different exception with the *too_short* keyword:

        >>> it = []
        >>> one(it)  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        ...
        ValueError: too few items in iterable (expected 1)'
        >>> too_short = IndexError('too few items')
        >>> one(it, too_short=too_short)  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        ...
        IndexError: too few items

    Similarly, if *iterable* contains more than one item, ``ValueError`` will
    be raised. You may specify a different exception with the *too_long*
    keyword:

        >>> it = ['too', 'many']
        >>> one(it)  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        ...
        ValueError: Expected exactly one item in iterable, but got 'too',
        'many', and perhaps more.
        >>> too_long = RuntimeError
        >>> one(it, too_long=too_long)  # doctest: +IGNORE_EXCEPTION_DETAIL
        Traceback (most recent call last):
        ...
        RuntimeError
    """'''

ORIGINAL = f'''def one(iterable, too_short=None, too_long=None):
    {DOC}
    iterator = iter(iterable)
    for first in iterator:
        for second in iterator:
            if too_long is not None:
                raise too_long
            raise ValueError(
                f'Expected exactly one item in iterable, but got {{first!r}}, '
                f'{{second!r}}, and perhaps more.'
            )
        return first
    if too_short is not None:
        raise too_short
    raise ValueError('too few items in iterable (expected 1)')
'''

REWRITE = f'''def one(iterable, too_short=None, too_long=None):
    {DOC}
    items = list(islice(iterable, 2))
    if not items:
        if too_short is not None:
            raise too_short
        raise ValueError('too few items in iterable (expected 1)')
    if len(items) > 1:
        if too_long is not None:
            raise too_long
        raise ValueError(
            f'Expected exactly one item in iterable, but got {{items[0]!r}}, '
            f'{{items[1]!r}}, and perhaps more.'
        )
    return items[0]
'''

#: Wrong: never looks for a second item.
WRONG = f'''def one(iterable, too_short=None, too_long=None):
    {DOC}
    first = next(iter(iterable), _marker)
    if first is _marker:
        raise too_short or ValueError('too few items in iterable (expected 1)')
    return first
'''

MORE = f'''"""More routines for operating on iterables."""

from itertools import islice

from .recipes import _marker


{ORIGINAL}

def first(iterable, default=_marker):
    for item in iterable:
        return item
    return default
'''

VERSIONS = [ORIGINAL, REWRITE, WRONG]
#: The examples of the docstring that call ``one``.
EXAMPLES = 4


def make_workspace(root: Path, script: Path) -> Path:
    """A git workspace holding the package ``mit/`` and the three versions of ``one``,
    stored with the installed ``codequorum sample --from``; returns ``mit/more.py``."""
    (root / ".git").mkdir(parents=True)
    package = root / "mit"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "recipes.py").write_text(RECIPES)
    more = package / "more.py"
    more.write_text(MORE)
    source = root / "one.json"
    source.write_text(json.dumps(VERSIONS))
    proc = subprocess.run([str(script), "sample", "mit/more.py", "-f", "one", "--from",
                           str(source)], cwd=root, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    source.unlink()
    return more
