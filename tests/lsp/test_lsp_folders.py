"""A multi-root workspace: every folder has its own store, session and settings."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lsprotocol import types

from .conftest import config_home, lsp_session
from .helpers import command, open_document, wait_for

ODD = (
    "def area(w, h):\n    total = 0\n    for _ in range(abs(h)):\n        if w > 0:\n"
    "            total += w\n        else:\n            total -= abs(w)\n"
    "    return total if h >= 0 else -total\n"
)
VERSIONS = [
    "def area(w, h):\n    return w * h\n",
    "def area(w, h):\n    return h * w\n",
    "def area(w, h):\n    product = w * h\n    return product\n",
    "def area(w, h):\n    result = h * w\n    return result\n",
]


def stored(path: Path) -> list[tuple[str, str]]:
    """(file, function) of every row of a store."""
    with sqlite3.connect(path) as db:
        return [(f, q) for f, q in db.execute("SELECT file, qualified_name FROM samples")]


async def test_each_folder_has_its_own_store_session_and_settings(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    # folder b's own settings (asked with its scopeUri) may not move its store: the store
    # is the user's choice alone; each folder keeps its versions under itself
    scoped = {b: {"codequorum": {"store": {"path": "kept/versions.sqlite3"}}}}
    async with lsp_session(
        a, folders=[a, b], configuration={"codequorum": {}}, folder_configuration=scoped
    ) as client:
        uri_a = open_document(client, a / "m.py", ODD)  # the same store key, "m.py", in both
        uri_b = open_document(client, b / "m.py", ODD)
        await command(client, "codequorum.addVersions", uri_a, "area", VERSIONS[:3])
        await command(client, "codequorum.addVersions", uri_b, "area", VERSIONS)

        assert stored(a / ".codequorum" / "samples.sqlite3") == [("m.py", "area")] * 3
        assert stored(b / ".codequorum" / "samples.sqlite3") == [("m.py", "area")] * 4
        assert not (b / "kept").exists()
        assert any("codequorum.store.path" in m.message and "workspace folder" in m.message
                   for m in client.messages)

        report_a = await command(client, "codequorum.analyze", uri_a, "area")
        report_b = await command(client, "codequorum.analyze", uri_b, "area")
        assert (report_a["stored"], report_b["stored"]) == (3, 4)

        diags_a = await wait_for(lambda: client.diagnostics.get(uri_a))
        diags_b = await wait_for(lambda: client.diagnostics.get(uri_b))
        assert "outlier-current" in [d.code for d in diags_a]
        assert "outlier-current" in [d.code for d in diags_b]
        assert all(d.message.endswith("[`area`: 3 versions + your code]") for d in diags_a)
        assert all(d.message.endswith("[`area`: 4 versions + your code]") for d in diags_b)


async def test_a_folder_added_later_gets_its_own_store(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    async with lsp_session(a, configuration={"codequorum": {}}) as client:
        client.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(
                    added=[types.WorkspaceFolder(uri=b.as_uri(), name="b")], removed=[]
                )
            )
        )
        uri_b = open_document(client, b / "m.py", ODD)
        added = await command(client, "codequorum.addVersions", uri_b, "area", VERSIONS[:2])
        assert added["total"] == 2
        assert stored(b / ".codequorum" / "samples.sqlite3") == [("m.py", "area")] * 2
        # the first folder's store is opened after the configuration came, maybe after the
        # command above: read it once it is there (connecting first would make an empty file)
        first = a / ".codequorum" / "samples.sqlite3"
        await wait_for(first.exists, timeout=20)
        assert stored(first) == []


async def test_the_configuration_files_give_defaults(tmp_path: Path) -> None:
    """The user's ``config.toml`` and the workspace's ``codequorum.toml`` are read as
    defaults under the editor's settings; the workspace's file may not choose the store."""
    a = tmp_path / "a"
    a.mkdir()
    (a / "codequorum.toml").write_text('[check]\nstore = "from-file/versions.sqlite3"\n')
    user = config_home(a) / "codequorum" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text(f'[check]\nstore = "{tmp_path / "mine" / "versions.sqlite3"}"\n')
    async with lsp_session(a, configuration={"codequorum": {}}) as client:
        uri = open_document(client, a / "m.py", ODD)
        await command(client, "codequorum.addVersions", uri, "area", VERSIONS[:2])
        assert stored(tmp_path / "mine" / "versions.sqlite3") == [("m.py", "area")] * 2
        assert not (a / "from-file").exists() and not (a / ".codequorum").exists()
        refused = [m.message for m in client.messages if "from-file" in m.message]
        assert refused == [
            f'codequorum: {a / "codequorum.toml"}: [check] store = "from-file/versions.sqlite3": '
            "ignored: a project's configuration file cannot choose the version store codequorum "
            f"reads and writes; set it in your own {user}, or pass --store"
        ]
