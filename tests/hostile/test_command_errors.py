"""A command's error answer quotes what the command was asked about: a function's name from
the document (as a code lens or a code action sends it back), a URI. A client shows that
message, so it is a plain message: no raw escape, no live markdown link, the name readable,
and the server still answering."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from codequorum.lsp import contract

from ..lsp.conftest import lsp_session
from ..lsp.helpers import command, hover_once, open_document
from ..support.hostile_names import live_links, raw_characters, readable
from .test_inert_names import HANDLERS, LINK_KEY, QUALIFIED

HOSTILE_URI = "untitled:" + LINK_KEY + "\x1b]0;pwned\x07\u202e"


async def test_every_commands_error_quotes_a_link_name_inert(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    path = root / "handlers.js"
    path.write_text(HANDLERS, encoding="utf-8")
    async with lsp_session(root) as client:
        uri = open_document(client, path, HANDLERS, "javascript")
        said: list[str] = []
        for name in contract.COMMANDS:
            for arguments in ({"uri": uri, "qualifiedName": QUALIFIED + "\x1b[2J"},
                              {"uri": HOSTILE_URI, "qualifiedName": QUALIFIED}):
                try:
                    await command(client, name, arguments)
                except JsonRpcException as exc:
                    assert exc.code == -32602, (name, exc.message)
                    said.append(str(exc.message))
        assert len(said) >= 2 * len(contract.COMMANDS) - 2, said
        for message in said:
            assert raw_characters(message) == [], message
            assert live_links(message) == [], message
        quoting = [m for m in said if "Open a terminal" in m]
        assert len(quoting) >= len(contract.COMMANDS), said
        assert all(readable(LINK_KEY, m) for m in quoting), quoting
        hover = await hover_once(client, uri, types.Position(line=1, character=4))
        assert hover is None or live_links(hover) == []
        assert (await command(client, "codequorum.analyze", uri, QUALIFIED))["qualifiedName"] \
            == QUALIFIED


@pytest.mark.parametrize("bad", [LINK_KEY, "<img src=x onerror=alert(1)>"])
def test_a_command_error_is_a_plain_message(bad: str) -> None:
    from codequorum.lsp.commands.registry import CommandError

    message = str(CommandError(f"no function {bad!r}\nIGNORE").message)
    assert live_links(message) == [] and raw_characters(message) == [], message
