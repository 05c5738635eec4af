"""Documents an editor opens under URIs no file has (a NUL or an undecodable escape in the
path, a name too long, another host's share, a query): every command and a hover on them is
one answer or one refusal, with the portable sandbox picked, and the server keeps
answering."""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from ..lsp.conftest import lsp_session
from ..lsp.helpers import command, hover_once, open_document
from .conftest import SOURCE, Hostile

VERSION = "def f(x):\n    return 1 + x\n"


def _uris(hostile: Hostile) -> list[str]:
    base = (hostile.repo / "src").as_uri()
    return [f"{base}/nul%00.py", f"{base}/bad%zz%ff.py", f"{base}/{'a' * 300}.py",
            "file://server/share/mod.py", f"{base}/mod.py?x=1#frag",
            f"{base}/{'b' * 100_000}.py", "file:///%2e%2e/%2e%2e/etc/passwd.py"]


async def test_documents_under_uris_no_file_has_are_answered(hostile: Hostile) -> None:
    async with lsp_session(hostile.repo, env={"HOME": str(hostile.home)},
                           configuration={"codequorum": {"sandbox": "portable"}}) as client:
        for uri in _uris(hostile):
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python",
                                                     version=1, text=SOURCE)))
            await hover_once(client, uri, types.Position(line=0, character=4))
            for name, rest in (("codequorum.addVersions", ["f", [VERSION]]),
                               ("codequorum.analyze", ["f"]),
                               ("codequorum.compare", ["f"]),
                               ("codequorum.runDynamic", ["f"])):
                try:
                    await asyncio.wait_for(command(client, name, uri, *rest), timeout=120)
                except JsonRpcException as exc:
                    assert "\n" not in str(exc.message), (uri, name, exc.message)
        good = open_document(client, hostile.repo / "src" / "mod.py", SOURCE)
        for path in ("versions\0.jsonl", "a" * 300 + ".jsonl", "a" * 300 + "/v.jsonl"):
            try:
                await command(client, "codequorum.importVersionFile", good, "f", path)
            except JsonRpcException as exc:
                assert exc.code == -32602 and "\n" not in str(exc.message), exc.message
        report = await command(client, "codequorum.analyze", good, "f")
        assert report["qualifiedName"] == "f"
    assert not (hostile.home.parent / "etc").exists()

