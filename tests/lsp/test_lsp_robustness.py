"""Bad input never takes the server down: junk documents, a huge file, broken code, a
corrupt store, invalid settings. Each test ends with a hover that is answered."""

from __future__ import annotations

import random
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from .conftest import lsp_session
from .helpers import (
    code_lenses,
    command,
    hover_text,
    open_document,
    position_of,
    published,
    wait_for,
)

GOOD = "def area(w, h):\n    return w * h\n"
VERSIONS = [
    "def area(w, h):\n    return w * h\n",
    "def area(w, h):\n    result = w * h\n    return result\n",
    "def area(w, h):\n    return h * w\n",
]


async def _still_answers(client: LanguageClient, workspace: Path) -> None:
    uri = open_document(client, workspace / "ok.py", GOOD)
    added = await command(client, "codequorum.addVersions", uri, "area", VERSIONS)
    assert added["total"] == 3
    text = await hover_text(client, uri, position_of(GOOD, "area"))
    assert text is not None and text.startswith("**codequorum** · `area` · 3 versions")


async def test_junk_huge_and_broken_documents(workspace: Path) -> None:
    rng = random.Random(7)
    junk = bytes(rng.randrange(256) for _ in range(20_000)).decode("latin-1") + "\x00\udc80"
    broken = "def f(:\n    return ((\nclass :\n  def g(self) ->\n" * 200 + "def area(w, h):\n"
    line = "def f_{0}(x):\n    return [x + i for i in range({0})]  # padding padding padding\n"
    huge = "".join(line.format(i) for i in range(60_000))
    assert len(huge) > 5_000_000
    async with lsp_session(workspace) as client:
        uri_junk = open_document(client, workspace / "junk.py", junk)
        uri_bin = open_document(client, workspace / "blob.bin", junk, language_id="plaintext")
        uri_broken = open_document(client, workspace / "broken.py", broken)
        uri_huge = open_document(client, workspace / "huge.py", huge)
        for uri in (uri_junk, uri_bin, uri_broken, uri_huge):
            await wait_for(lambda u=uri: u in client.diagnostics)
            assert published(client, uri) == []
            assert await hover_text(client, uri, types.Position(line=0, character=2)) is None
            lenses = await code_lenses(client, uri)
            assert list(lenses or []) == []
        # versions of a function in the broken file are stored and scored as parsed
        added = await command(
            client,
            "codequorum.addVersions",
            uri_broken,
            "f",
            ["def f(x):\n    return x\n", "def f(x):\n    return (x\n"],
        )
        assert added["total"] == 2
        assert await hover_text(client, uri_broken, types.Position(line=0, character=4))
        # a huge document is not indexed, and says so once
        assert any("larger than 2 MB" in m.message for m in client.messages)
        await _still_answers(client, workspace)


async def test_corrupt_store_is_moved_aside(workspace: Path) -> None:
    store = workspace / ".codequorum" / "samples.sqlite3"

    def damage() -> None:
        from codequorum.ingest.store import VersionStore

        VersionStore.open(store).close()  # a store of codequorum's own, then damaged
        store.write_bytes(store.read_bytes()[:100] + b"this is not a database\x00" * 100)

    async with lsp_session(workspace, before_start=damage) as client:
        await wait_for(lambda: client.messages)
        [message] = client.messages
        assert message.type == types.MessageType.Warning
        assert "unreadable" in message.message and "moved" in message.message
        aside = [p for p in store.parent.iterdir() if ".corrupt-" in p.name]
        assert len(aside) == 1
        assert b"this is not a database" in aside[0].read_bytes()
        await _still_answers(client, workspace)


async def test_invalid_settings_warn_and_use_defaults(workspace: Path) -> None:
    init = {
        "provider": {"versions": "lots", "temperature": 7},
        "hover": {"diffLines": -3},
        "diagnostics": {"minSeverity": "loud"},
    }
    pulled = {"codequorum": {"codeLens": {"showForAll": "sometimes"}, "analysis": {"maxDepth": 0}}}
    async with lsp_session(workspace, init_options=init, configuration=pulled) as client:
        await wait_for(lambda: len(client.messages) >= 6)
        texts = [m.message for m in client.messages]
        assert all(m.type == types.MessageType.Warning for m in client.messages)
        for key in (
            "provider.versions",
            "provider.temperature",
            "hover.diffLines",
            "diagnostics.minSeverity",
            "codeLens.showForAll",
            "analysis.maxDepth",
        ):
            assert sum(f"invalid setting codequorum.{key} " in t for t in texts) == 1, key
        assert any("using the default 5" in t for t in texts)
        # defaults in force: the hover diff is shown (12 lines), lenses only where versions are
        await _still_answers(client, workspace)
        uri = (workspace / "ok.py").as_uri()
        text = await hover_text(client, uri, position_of(GOOD, "area"))
        assert text is not None and "```diff" in text

        # a later change of configuration is pulled again; a good value takes effect
        client.set_configuration({"codequorum": {"hover": {"diffLines": 0}}})
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))

        async def no_diff() -> bool:
            t = await hover_text(client, uri, position_of(GOOD, "area"))
            return t is not None and "```diff" not in t

        import asyncio

        for _ in range(100):
            if await no_diff():
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("diffLines 0 was not applied")


async def test_unknown_commands_arguments_and_documents_get_clear_errors(workspace: Path) -> None:
    async with lsp_session(workspace) as client:
        uri = open_document(client, workspace / "ok.py", GOOD)
        for args, expected in (
            ([], "needs a document URI"),
            ([uri, "nope"], "no function 'nope'"),
            ([(workspace / "missing.py").as_uri(), "area"], "missing.py: no such file"),
            ([uri, "area", "not a list"], "no versions"),
        ):
            name = "codequorum.showVersion" if expected == "no versions" else "codequorum.analyze"
            try:
                await command(client, name, *args)
            except Exception as exc:
                assert expected in str(exc)
            else:
                raise AssertionError(f"{name}{args} did not fail")
        try:
            await command(client, "codequorum.addVersions", uri, "area", [42])
        except Exception as exc:
            assert "bad arguments" in str(exc) and "$.versions[0]" in str(exc)
        else:
            raise AssertionError("bad samples accepted")
        await _still_answers(client, workspace)


async def test_no_function_at_the_cursor_is_null_and_refusals_leave_no_traceback(
    workspace: Path,
) -> None:
    log = workspace.parent / "server.log"
    doc = "import os\n\n" + GOOD
    async with lsp_session(workspace, log_file=log) as client:
        uri = open_document(client, workspace / "ok.py", doc)
        await command(client, "codequorum.addVersions", uri, "area", VERSIONS)
        outside = {"uri": uri, "position": {"line": 0, "character": 3}}
        for _ in range(3):  # what the status bar sends wherever the cursor rests
            assert await command(client, "codequorum.analyze", outside) is None
        inside = {"uri": uri, "position": {"line": 3, "character": 4}}
        assert (await command(client, "codequorum.analyze", inside))["qualifiedName"] == "area"
        try:
            await command(client, "codequorum.analyze", uri, "nope")
        except JsonRpcException as exc:
            assert exc.code == -32602
            assert "no function 'nope'" in exc.message
        else:
            raise AssertionError("an unknown function was analysed")
    text = log.read_text(encoding="utf-8")
    assert "refused: codequorum.analyze: no function 'nope'" in text
    assert "Traceback" not in text
    assert "ERROR" not in text


async def test_unusable_store_path_is_reported_and_the_server_keeps_answering(
    workspace: Path,
) -> None:
    (workspace / "folder").mkdir()
    async with lsp_session(workspace, init_options={"store": {"path": "folder"}}) as client:
        await wait_for(lambda: client.messages)
        [message] = client.messages
        assert message.type == types.MessageType.Error
        assert message.message.startswith("codequorum: cannot open the version store:")
        assert "a folder: not a codequorum version store" in message.message
        uri = open_document(client, workspace / "ok.py", GOOD)
        try:
            await command(client, "codequorum.addVersions", uri, "area", VERSIONS)
        except Exception as exc:
            assert "cannot store the versions" in str(exc)
        else:
            raise AssertionError("samples were accepted without a store")
        assert await hover_text(client, uri, position_of(GOOD, "area")) is None
        await wait_for(lambda: published(client, uri) == [])

        # a usable path in new settings: the store opens there
        client.set_configuration({"codequorum": {"store": {"path": "elsewhere/s.sqlite3"}}})
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))

        async def stored() -> bool:
            try:
                added = await command(client, "codequorum.addVersions", uri, "area", VERSIONS)
            except Exception:
                return False
            return bool(added["total"] == 3)

        import asyncio

        for _ in range(100):
            if await stored():
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the new store path was not used")
        assert (workspace / "elsewhere" / "s.sqlite3").is_file()
