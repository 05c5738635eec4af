"""Editor commands that name a file read only a bounded regular file inside a workspace
folder: ``codequorum.importVersionFile`` given a path, and every command given the URI of a
document that is not open. ``/dev/zero``, a FIFO, a folder, a symlink out of the workspace, a
2 GB file, a path out with ``..``: each is one clear error within a second, and the server
keeps answering. A file the user picked anywhere arrives as text the client read, bounded.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from codequorum.lsp.files import (
    MAX_IMPORT_BYTES,
    RefusedFile,
    bounded_text,
    path_of,
    read_inside,
)

from ..lsp.conftest import lsp_session
from ..lsp.helpers import command, open_document
from .conftest import SOURCE, Hostile

#: A refusal answers within this many seconds (a read of /dev/zero or a FIFO never would).
WITHIN = 1.0
VERSIONS_JSONL = ('{"code": "def f(x):\\n    return x + 1\\n"}\n'
                  '{"code": "def f(x):\\n    return 1 + x\\n"}\n')


def _special_files(hostile: Hostile) -> list[tuple[str, str]]:
    """(path as the command gets it, what the error says) for every file it must refuse."""
    repo, home = hostile.repo, hostile.home
    os.mkfifo(repo / "pipe.jsonl")
    (repo / "folder").mkdir()
    with (repo / "huge.jsonl").open("wb") as fh:
        fh.truncate(2 * 1024**3)  # sparse: 2 GB
    (repo / "key.jsonl").symlink_to(home / ".ssh" / "id_ed25519")
    (repo / "zero.jsonl").symlink_to("/dev/zero")
    return [
        ("/dev/zero", "/dev/zero is outside the workspace folders"),
        ("zero.jsonl", "zero.jsonl is outside the workspace folders (it leads to /dev/zero)"),
        ("pipe.jsonl", "pipe.jsonl is a FIFO, not a regular file"),
        ("folder", "folder is a folder, not a regular file"),
        ("huge.jsonl", "huge.jsonl is larger than 16 MB"),
        ("key.jsonl", "key.jsonl is outside the workspace folders"),
        ("../home/.ssh/id_ed25519", "is outside the workspace folders"),
        (str(home / ".ssh" / "id_ed25519"), "is outside the workspace folders"),
        ("~/.ssh/id_ed25519", "is outside the workspace folders"),
        ("missing.jsonl", "missing.jsonl: no such file"),
    ]


async def _refused(client: object, name: str, *arguments: object) -> str:
    """The error message of a command the server refuses, timed."""
    started = time.monotonic()
    with pytest.raises(JsonRpcException) as info:
        await command(client, name, *arguments)
    assert time.monotonic() - started < WITHIN, arguments
    return str(info.value.message)


async def test_import_reads_only_bounded_regular_files_inside_the_workspace(
        hostile: Hostile) -> None:
    cases = _special_files(hostile)
    hostile.write("versions.jsonl", VERSIONS_JSONL)
    before = hostile.home_snapshot()
    async with lsp_session(hostile.repo, env={"HOME": str(hostile.home)}) as client:
        uri = open_document(client, hostile.repo / "src" / "mod.py", SOURCE)
        for path, said in cases:
            message = await _refused(client, "codequorum.importVersionFile", uri, "f", path)
            assert message.startswith("codequorum.importVersionFile: ") and said in message, (
                path, message)
            assert "\n" not in message
        # still answering, and a file inside the workspace imports
        imported = await command(client, "codequorum.importVersionFile", uri, "f", "versions.jsonl")
        assert (imported["added"], imported["total"]) == (2, 2)
        # a file the user picked anywhere: the client sends its text
        picked = await command(client, "codequorum.importVersionFile", {
            "uri": uri, "qualifiedName": "f", "path": str(hostile.home / "picked.jsonl"),
            "content": '{"code": "def f(x):\\n    z = x + 1\\n    return z\\n"}\n'})
        assert (picked["added"], picked["total"]) == (1, 3)
    assert hostile.home_snapshot() == before


async def test_a_document_that_is_not_open_is_read_only_inside_the_workspace(
        hostile: Hostile) -> None:
    os.mkfifo(hostile.repo / "pipe.py")
    (hostile.repo / "secret.py").symlink_to(hostile.home / ".bashrc")
    with (hostile.repo / "huge.py").open("wb") as fh:
        fh.truncate(2 * 1024**3)
    uris = [
        ("file:///dev/zero", "/dev/zero is outside the workspace folders"),
        ((hostile.repo / "pipe.py").as_uri(), "pipe.py is a FIFO, not a regular file"),
        ((hostile.repo / "secret.py").as_uri(), "secret.py is outside the workspace folders"),
        ((hostile.repo / "huge.py").as_uri(), "huge.py is larger than 2 MB"),
        (hostile.repo.as_uri(), "is a folder, not a regular file"),
        ((hostile.home / ".bashrc").as_uri(), ".bashrc is outside the workspace folders"),
        ("untitled:Untitled-1", "untitled:Untitled-1 is not open"),
    ]
    async with lsp_session(hostile.repo, env={"HOME": str(hostile.home)}) as client:
        for uri, said in uris:
            for name in ("codequorum.analyze", "codequorum.compare", "codequorum.showVersion"):
                message = await _refused(client, name, {"uri": uri, "qualifiedName": "f"})
                assert said in message, (name, uri, message)
        # a closed file inside the workspace is still read (a lens's command on a saved file)
        hostile.write("closed.py", SOURCE)
        report = await command(client, "codequorum.analyze", (hostile.repo / "closed.py").as_uri(),
                               "f")
        assert report["qualifiedName"] == "f"
        # the server answered every refusal at once and answers the next request
        hover_uri = open_document(client, hostile.repo / "src" / "mod.py", SOURCE)
        assert (await asyncio.wait_for(command(client, "codequorum.analyze", hover_uri, "f"),
                                       timeout=10))["qualifiedName"] == "f"


def test_the_bounds_themselves(tmp_path: Path) -> None:
    inside = tmp_path / "ws"
    inside.mkdir()
    (inside / "ok.jsonl").write_text("x", encoding="utf-8")
    assert read_inside(inside / "ok.jsonl", [inside], 1) == b"x"
    (inside / "two.jsonl").write_text("xy", encoding="utf-8")
    with pytest.raises(RefusedFile, match="larger than"):
        read_inside(inside / "two.jsonl", [inside], 1)
    with pytest.raises(RefusedFile, match="outside the workspace folders"):
        read_inside(inside / "ok.jsonl", [], 10)
    assert bounded_text("é", "picked.jsonl", 2) == "é".encode()
    with pytest.raises(RefusedFile, match=r"picked\.jsonl is larger than"):
        bounded_text("é" * 2, "picked.jsonl", 3)
    assert MAX_IMPORT_BYTES == 16 * 1024 * 1024


def test_the_extension_reads_a_picked_file_within_the_servers_bound() -> None:
    source = (Path(__file__).resolve().parents[2] / "client-vscode" / "src"
              / "pickedFile.ts").read_text(encoding="utf-8")
    assert f"export const MAX_IMPORT_BYTES = {MAX_IMPORT_BYTES:_};" in source


def test_a_file_uri_of_another_host_is_not_a_local_path() -> None:
    assert path_of("file:///home/me/app.py") == Path("/home/me/app.py")
    assert path_of("file://localhost/home/me/app.py") == Path("/home/me/app.py")
    assert path_of("file:///home/me/a%20b.py") == Path("/home/me/a b.py")
    for uri in ("file://server/share/app.py", "file://evil.example/etc/passwd",
                "untitled:Untitled-1", "https://example.com/app.py"):
        assert path_of(uri) is None, uri
