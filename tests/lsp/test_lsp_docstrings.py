"""End to end over stdio: replacing a function keeps the user's docstring and comments,
and a second action puts the version in with its own."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from .conftest import lsp_session
from .helpers import NO_AUTORUN, actions_at, apply_edits, command, open_document, position_of

DOC = '''\
import functools


class Bag:
    @functools.cache
    def chunked(self, xs, n):
        """Break *xs* into lists of length *n*.

        >>> list(Bag().chunked([1, 2, 3, 4], 2))
        [[1, 2], [3, 4]]
        >>> list(Bag().chunked([1, 2, 3], 2))
        [[1, 2], [3]]
        """
        # the last chunk may be shorter
        for i in range(0, len(xs), n):
            yield xs[i:i + n]


def after():
    return 0
'''

VERSIONS = [
    'def chunked(self, xs, n):\n    """Chunk *xs*."""\n    # one comprehension\n'
    "    return [xs[i:i + n] for i in range(0, len(xs), n)]\n",
    "def chunked(self, xs, n):\n    out = []\n    while xs:\n        out.append(xs[:n])\n"
    "        xs = xs[n:]\n    return out\n",
]


async def test_replacing_keeps_the_users_docstring_unless_the_versions_own_is_picked(
    workspace: Path,
) -> None:
    async with lsp_session(workspace, init_options=NO_AUTORUN) as client:
        uri = open_document(client, workspace / "bag.py", DOC)
        added = await command(client, "codequorum.addVersions", uri, "Bag.chunked", VERSIONS)
        assert added["total"] == 2
        actions = await actions_at(client, uri, position_of(DOC, "chunked"))
        edits = {a.title: a for a in actions if isinstance(a, types.CodeAction) and a.edit}
        own = ", with the version's own docstring"
        keep = next(iter(edits))
        assert keep.startswith("Keep the recommended version (version ")
        assert list(edits) == [keep, keep + own,
                               "Replace `chunked` with version 1",
                               "Replace `chunked` with version 1" + own,
                               "Replace `chunked` with version 2",
                               "Replace `chunked` with version 2" + own]
        assert edits[keep].is_preferred is None and edits[keep + own].is_preferred is None

        def result(title: str) -> str:
            edit = edits[title].edit
            assert edit is not None and edit.changes is not None
            return apply_edits(DOC, list(edit.changes[uri]))

        head, tail = DOC.split("    @functools.cache\n")[0], "\n\ndef after():\n    return 0\n"
        assert result("Replace `chunked` with version 1") == head + (
            "    @functools.cache\n"
            "    def chunked(self, xs, n):\n"
            '        """Break *xs* into lists of length *n*.\n'
            "\n"
            "        >>> list(Bag().chunked([1, 2, 3, 4], 2))\n"
            "        [[1, 2], [3, 4]]\n"
            "        >>> list(Bag().chunked([1, 2, 3], 2))\n"
            "        [[1, 2], [3]]\n"
            '        """\n'
            "        # the last chunk may be shorter\n"
            "        return [xs[i:i + n] for i in range(0, len(xs), n)]\n"
        ) + tail
        assert result("Replace `chunked` with version 1" + own) == (
            head + "    @functools.cache\n"
            "    def chunked(self, xs, n):\n"
            '        """Chunk *xs*."""\n'
            "        # one comprehension\n"
            "        return [xs[i:i + n] for i in range(0, len(xs), n)]\n"
        ) + tail
        # a version without a docstring: the user's is put in; the second action leaves it out
        assert result("Replace `chunked` with version 2").count('"""') == 2
        bare = result("Replace `chunked` with version 2" + own)
        assert '"""' not in bare and "        out = []\n" in bare
        data = edits["Replace `chunked` with version 1" + own].data
        assert data == {"qualifiedName": "Bag.chunked", "version": 0, "docstring": "version"}
