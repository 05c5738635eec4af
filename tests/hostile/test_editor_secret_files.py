"""Any program that can send the language server a command can name a document that is not
open, or a sample file to import: ``helper.py -> .env``, the user's ``conf/secrets.py``, a
``.env`` holding versions. The server reads such a file under the workspace's one rule (the
module view's and the agents' tools'): each is refused at once with one line, no byte of it
reaches an answer, a message or the store, and the server goes on answering."""

from __future__ import annotations

import json

import pytest
from pygls.exceptions import JsonRpcException

from ..lsp.conftest import lsp_session
from ..lsp.helpers import command, open_document
from .conftest import SOURCE, Hostile

TOKEN = "sk-live-91c3e7a5f2"
SECRET = f'def f(x):\n    return "{TOKEN}" + str(x)\n'
#: A sample file's line that holds the token as a version.
SECRET_VERSIONS = json.dumps({"code": SECRET}) + "\n"


async def test_the_server_reads_no_secret_a_client_names(hostile: Hostile) -> None:
    hostile.write(".env", SECRET)
    hostile.write("conf/secrets.py", SECRET)
    hostile.write("keys/.versions.jsonl", SECRET_VERSIONS)
    hostile.write("conf/credentials.jsonl", SECRET_VERSIONS)
    (hostile.repo / "helper.py").symlink_to(hostile.repo / ".env")
    said: list[str] = []
    async with lsp_session(hostile.repo, env={"HOME": str(hostile.home)}) as client:
        for rel in ("helper.py", "conf/secrets.py", ".env"):
            for name in ("codequorum.analyze", "codequorum.runDynamic", "codequorum.compare"):
                with pytest.raises(JsonRpcException) as info:
                    await command(client, name, {"uri": (hostile.repo / rel).as_uri(),
                                                 "qualifiedName": "f"})
                said.append(str(info.value.message))
                assert info.value.code == -32602 and "not read" in said[-1], said[-1]
        uri = open_document(client, hostile.repo / "src" / "mod.py", SOURCE)
        for rel in ("keys/.versions.jsonl", "conf/credentials.jsonl", "helper.py"):
            with pytest.raises(JsonRpcException) as info:
                await command(client, "codequorum.importVersionFile", uri, "f", rel)
            said.append(str(info.value.message))
        report = await command(client, "codequorum.analyze", uri, "f")
        assert report["qualifiedName"] == "f" and report["stored"] == 0  # nothing imported
        said += [m.message for m in client.messages]
    assert not any(TOKEN in text for text in said), said
    assert not any("\n" in text for text in said)
