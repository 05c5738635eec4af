"""Finding the function a command names from what a :class:`Lookup` gives, never the server:
by name or by position, in a real snapshot, on a real engine's worker; a clear
:class:`CommandError` for a refused document, an unknown language or a missing function."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lsprotocol import types

from codequorum.core.model import Version
from codequorum.lsp import contract as c
from codequorum.lsp.commands.registry import CommandError
from codequorum.lsp.commands.resolve import Lookup, function_analysis, resolve_function
from codequorum.lsp.documents import Snapshot, SnapshotCache
from codequorum.lsp.engine import Engine
from codequorum.lsp.files import RefusedFile
from codequorum.lsp.settings import Settings

TEXT = "import math\n\n\nclass Shape:\n    def area(self, r):\n        return math.pi * r * r\n"
URI = "file:///w/shape.py"


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[Engine]:
    made = Engine(lambda *_: None)
    made.configure(Settings(), str(tmp_path))  # its store under tmp_path
    yield made
    made.shutdown()


def _lookup(engine: Engine, snapshots: dict[str, Snapshot], waits: list[str]) -> Lookup:
    async def settled() -> None:
        waits.append("settled")

    def read_snapshot(uri: str) -> Snapshot:
        if uri not in snapshots:
            raise RefusedFile(f"{uri}: not inside a workspace folder")
        return snapshots[uri]

    return Lookup(settled, read_snapshot, engine, lambda _uri: engine, lambda _uri: "shape.py")


def _snapshots(*docs: tuple[str, str]) -> dict[str, Snapshot]:
    cache = SnapshotCache()
    return {uri: cache.get(uri, text, None, "utf-16") for uri, text in docs}


async def test_the_function_is_found_by_name_or_by_position_after_the_settings(
        engine: Engine) -> None:
    waits: list[str] = []
    find = _lookup(engine, _snapshots((URI, TEXT)), waits)
    by_name = await resolve_function(find, c.FunctionArgs(uri=URI, qualified_name="Shape.area"),
                                     "codequorum.analyze")
    at = types.Position(line=5, character=10)
    by_position = await resolve_function(find, c.FunctionArgs(uri=URI, position=at),
                                         "codequorum.analyze")
    for snapshot, entry in (by_name, by_position):
        assert snapshot.uri == URI
        assert entry is not None and entry.qualified_name == "Shape.area"
    assert waits == ["settled", "settled"]


async def test_a_missing_function_is_an_error_only_where_it_is_required(engine: Engine) -> None:
    find = _lookup(engine, _snapshots((URI, TEXT)), [])
    args = c.FunctionArgs(uri=URI, qualified_name="Shape.volume")
    with pytest.raises(CommandError) as missing:
        await resolve_function(find, args, "codequorum.compare")
    assert str(missing.value) == ("codequorum.compare: no function 'Shape.volume' in "
                                  "file:///w/shape.py")
    snapshot, entry = await resolve_function(find, args, "codequorum.addVersions",
                                             required=False)
    assert entry is None and snapshot.language == "python"


async def test_a_refused_or_unknown_document_is_said_by_the_command(engine: Engine) -> None:
    find = _lookup(engine, _snapshots(("file:///w/notes.xyz", "text\n")), [])
    with pytest.raises(CommandError) as refused:
        await resolve_function(find, c.FunctionArgs(uri="file:///w/elsewhere.py",
                                                    qualified_name="f"), "codequorum.analyze")
    assert str(refused.value) == ("codequorum.analyze: file:///w/elsewhere.py: not inside a "
                                  "workspace folder")
    with pytest.raises(CommandError) as unknown:
        await resolve_function(find, c.FunctionArgs(uri="file:///w/notes.xyz",
                                                    qualified_name="f"), "codequorum.analyze")
    assert str(unknown.value) == ("codequorum.analyze: codequorum does not know the language "
                                  "of file:///w/notes.xyz")


async def test_the_analysis_is_the_document_engines_under_its_store_name(
        engine: Engine) -> None:
    find = _lookup(engine, _snapshots((URI, TEXT)), [])
    args = c.FunctionArgs(uri=URI, qualified_name="Shape.area")
    _, entry, analysis = await function_analysis(find, args, "codequorum.compare")
    assert entry.qualified_name == "Shape.area"
    assert analysis is None  # no versions stored yet
    versions = [Version(code="def area(self, r):\n    return 3.14159 * r * r\n"),
                Version(code="def area(self, r):\n    return math.pi * r ** 2\n")]
    await engine.run(engine.add_sync, "shape.py", "python", "Shape.area", versions)
    _, _, analysis = await function_analysis(find, args, "codequorum.compare")
    assert analysis is not None
    assert (analysis.qualified_name, analysis.n_stored) == ("Shape.area", 2)
