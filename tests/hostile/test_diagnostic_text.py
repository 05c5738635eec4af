"""Diagnostics quote the function's name: a TypeScript method keyed by a computed string
(``["[Open](command:x)"]``), a class name with a bidi override, a string key with an escape.
Every diagnostic's message and related message is a plain message: no raw escape, no live
link, the name readable, and the server still answering."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from codequorum.core.model import Version
from codequorum.core.parsing import functions
from codequorum.ingest.store import VersionStore, default_store_path

from ..lsp.conftest import lsp_session
from ..lsp.helpers import command, open_document, published, wait_for
from ..support.hostile_names import live_links, raw_characters
from .test_inert_names import VERSIONS

LINK = "[Open a terminal](command:workbench.action.terminal.new)"
SOURCE = ("class A\u202e {\n"
          f'  ["{LINK}\\u001b"](a: number): number {{ return a + 1; }}\n'
          "  ['$(zap) <img src=x onerror=alert(1)>'](a: number) { return a; }\n"
          "}\n"
          f'export const o = {{ "{LINK}": function (x) {{ return x; }} }};\n')


async def test_diagnostics_quote_hostile_typescript_names_inert(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    path = root / "h.ts"
    path.write_text(SOURCE, encoding="utf-8")
    names = [f.qualified_name for f in functions(SOURCE, "typescript")]
    assert len(names) == 3, names
    with VersionStore.open(default_store_path(root)) as store:
        for name in names:
            store.add("h.ts", "typescript", name, [Version(code=c) for c in VERSIONS])
    async with lsp_session(root) as client:
        uri = open_document(client, path, SOURCE, "typescript")
        diagnostics: list[types.Diagnostic] = await wait_for(
            lambda: (lambda d: d if d and len({(x.data or {}).get("qualifiedName") for x in d}) == 3
                     else None)(published(client, uri)), timeout=120)
        texts = [d.message for d in diagnostics] + [
            r.message for d in diagnostics for r in d.related_information or []]
        assert any("Open a terminal" in t for t in texts), texts
        for text in texts:
            assert raw_characters(text) == [], text
            assert live_links(text) == [], text
            assert "<img" not in text, text
        result = await command(client, "codequorum.analyze", uri, names[0])
        assert result["qualifiedName"] == names[0]
