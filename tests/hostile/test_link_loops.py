"""A repository can carry a loop of symlinks (``a.py -> b.py -> a.py``). Where codequorum
looks a path up (``Path.resolve()`` raises ``RuntimeError`` on a loop), the loop is one note
or one error line naming the file: ``check`` walks on past it, ``sample`` and ``export``
say why, and the language server answers for a document at such a URI."""

from __future__ import annotations

import json

import pytest
from lsprotocol import types

from codequorum.core.model import Version
from codequorum.core.safe_paths import real_path
from codequorum.ingest.store import VersionStore, default_store_path

from ..lsp.conftest import lsp_session
from ..lsp.helpers import command, hover_text
from .conftest import SOURCE, Hostile, one_line_error

VERSIONS = ["def f(x):\n    return x + 1\n", "def f(x):\n    return 1 + x\n"]


def _loop(hostile: Hostile) -> None:
    (hostile.repo / "a.py").symlink_to("b.py")
    (hostile.repo / "b.py").symlink_to("a.py")
    with VersionStore.open(default_store_path(hostile.repo)) as store:
        store.add("src/mod.py", "python", "f", [Version(code=v) for v in VERSIONS])


def test_a_loop_is_left_where_it_loops(hostile: Hostile) -> None:
    _loop(hostile)
    assert real_path(hostile.repo / "a.py").parent == real_path(hostile.repo)
    assert real_path(hostile.repo / "src" / "mod.py") == (hostile.repo / "src" /
                                                            "mod.py").resolve()


def test_check_walks_on_past_a_loop(hostile: Hostile) -> None:
    _loop(hostile)
    result = hostile.run("check", ".", "--format", "json", "--fail-on", "never")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    found = json.loads(result.stdout)
    assert found["summary"]["functions_checked"] == 1
    assert any("a.py" in note for note in found["notes"]), found["notes"]


@pytest.mark.parametrize("args", [["check", "a.py"], ["export", "a.py"],
                                  ["sample", "a.py", "-f", "f", "--from", "v.json"]])
def test_a_command_on_a_loop_is_one_error_line(hostile: Hostile, args: list[str]) -> None:
    _loop(hostile)
    hostile.write("v.json", json.dumps(VERSIONS))
    result = hostile.run(*args)
    if args[0] != "check":
        assert result.returncode != 0
        one_line_error(result, "a.py")
    else:  # check names each file it could not read on a line of its own
        assert "Traceback" not in result.stderr
        assert "codequorum: a.py: cannot read: Too many levels of symbolic links" in \
            result.stderr.splitlines(), result.stderr


async def test_the_language_server_answers_for_a_document_at_a_loop(hostile: Hostile) -> None:
    _loop(hostile)
    uri = (hostile.repo / "a.py").as_uri()
    async with lsp_session(hostile.repo, env={"HOME": str(hostile.home)},
                           configuration={"codequorum": {"dynamic": {"auto": False}}}) as client:
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1,
                                                 text=SOURCE)))
        added = await command(client, "codequorum.addVersions", uri, "f", VERSIONS)
        assert added["total"] == len(VERSIONS)
        hover = await hover_text(client, uri, types.Position(line=0, character=4))
        assert hover is not None and "versions" in hover
