"""Paths on the command line are anyone's (a script, an agent, a repository's task file
passes them): one the system cannot take, a name longer than a file name may be, is one
error line naming why, never a traceback."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from ..lsp.conftest import lsp_session
from ..lsp.helpers import command, hover_once, open_document
from .conftest import SOURCE, Hostile, one_line_error

LONG = "a" * 300


@pytest.mark.parametrize("args", [
    ["check", f"{LONG}.py"],
    ["check", f"{LONG}/mod.py"],
    ["check", "--dynamic", f"{LONG}.py"],
    ["check", "src/mod.py", "--workspace", LONG],
    ["export", f"{LONG}.jsonl"],
    ["score", "samples.jsonl", "-o", f"{LONG}.json"],
], ids=["check", "check-folder", "check-dynamic", "workspace", "export", "score-output"])
def test_a_name_too_long_for_the_system_is_one_error_line(hostile: Hostile,
                                                           args: list[str]) -> None:
    result = hostile.run(*args)
    assert result.returncode == 1, result.stderr
    one_line_error(result, "File name too long")


async def test_the_editors_server_answers_a_name_too_long_as_one_refusal(
        hostile: Hostile) -> None:
    """The same from an editor: a document, a command's URI or an imported file whose name
    is too long is one refusal or no finding, and the server keeps answering."""
    long_py = hostile.repo / "src" / f"{LONG}.py"
    long_dir = hostile.repo / LONG / "mod.py"
    async with lsp_session(hostile.repo, env={"HOME": str(hostile.home)}) as client:
        uri = open_document(client, hostile.repo / "src" / "mod.py", SOURCE)
        for path in (long_py, long_dir):
            with pytest.raises(JsonRpcException) as info:
                await command(client, "codequorum.analyze", {"uri": path.as_uri(),
                                                             "qualifiedName": "f"})
            assert "\n" not in str(info.value.message)
            with pytest.raises(JsonRpcException) as imported:
                await command(client, "codequorum.importVersionFile", uri, "f", str(path))
            assert "\n" not in str(imported.value.message)
            opened = path.as_uri()  # an editor's unsaved buffer: no such file
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=opened, language_id="python",
                                                     version=1, text=SOURCE)))
            await hover_once(client, opened, types.Position(line=0, character=4))
            await command(client, "codequorum.addVersions", opened, "f",
                          ["def f(x):\n    return 1 + x\n"])
        report = await command(client, "codequorum.analyze", uri, "f")
        assert report["qualifiedName"] == "f"
