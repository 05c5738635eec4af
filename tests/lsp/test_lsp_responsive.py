"""Hovers, lenses and code actions answer at once, even while an analysis is computed:
with what is ready, the rest in the background, and a refresh when it is done.

Nothing here is timed: a large set makes the analysis slow, and the first answers show they did
not wait for it by what they say (computing), whatever the machine's speed; the refresh follows."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from lsprotocol import types

from codequorum.core.model import Version
from codequorum.ingest.store import VersionStore
from codequorum.ingest.workspace import store_key
from codequorum.lsp.hover import COMPUTING
from codequorum.lsp.lenses import COMPUTING_TITLE

from .conftest import lens_refreshes, lsp_session
from .helpers import code_lenses, hover_once, open_document, position_of, wait_for

#: Versions in the set: enough that comparing them takes far longer than an answer.
N_VERSIONS = 200

DOC = "def f(xs):\n    return sum(xs)\n\n\ndef g(xs):\n    return len(xs)\n"


def versions(n: int) -> list[str]:
    """``n`` different versions of ``f`` (loops, branches and expressions mixed)."""
    out = []
    for k in range(n):
        lines = ["def f(xs):", "    total = 0"]
        for j in range(k % 7 + 2):
            if (k + j) % 3 == 0:
                lines.append(f"    for x in xs[{j}:]:\n        total += x * {k + j}")
            elif (k + j) % 3 == 1:
                lines.append(f"    if len(xs) > {j}:\n        total -= xs[{j}] // {j + 1}")
            else:
                lines.append(f"    total = max(total, {k} + {j} * len(xs))")
        lines.append("    return total")
        out.append("\n".join(lines) + "\n")
    return out


def seed(workspace: Path, path: Path, codes: list[str]) -> None:
    """Store ``codes`` as versions of ``f`` in the workspace's default store."""
    store = VersionStore.open(workspace / ".codequorum" / "samples.sqlite3")
    try:
        store.add(
            store_key(path, workspace),
            "python",
            "f",
            [Version(code=c, origin="imported") for c in codes],
        )
    finally:
        store.close()


async def answer(request: Awaitable[Any]) -> Any:
    """A request's answer, or a failure after a minute rather than a hung test."""
    return await asyncio.wait_for(request, timeout=60)


async def test_cold_answers_come_before_the_analysis_and_a_refresh_follows(
    workspace: Path,
) -> None:
    path = workspace / "big.py"
    seed(workspace, path, versions(N_VERSIONS))
    async with lsp_session(workspace, lens_refresh=True) as client:
        uri = open_document(client, path, DOC)
        doc_id = types.TextDocumentIdentifier(uri=uri)
        pos = position_of(DOC, "f(xs)")
        hover, lens, action = await asyncio.gather(
            answer(
                client.text_document_hover_async(
                    types.HoverParams(text_document=doc_id, position=pos)
                )
            ),
            answer(
                client.text_document_code_lens_async(types.CodeLensParams(text_document=doc_id))
            ),
            answer(
                client.text_document_code_action_async(
                    types.CodeActionParams(
                        text_document=doc_id,
                        range=types.Range(start=pos, end=pos),
                        context=types.CodeActionContext(diagnostics=[]),
                    )
                )
            ),
        )

        # the first answers: partial, and none waited for the analysis
        first_hover = hover
        assert isinstance(first_hover, types.Hover)
        assert isinstance(first_hover.contents, types.MarkupContent)
        assert first_hover.contents.value == (
            f"**codequorum** · `f` · {N_VERSIONS} versions · {COMPUTING}"
        )
        first_lenses = lens
        assert isinstance(first_lenses, list | tuple)
        assert [x.command.title for x in first_lenses if x.command] == [COMPUTING_TITLE]
        first_actions = action
        # no edit (they need the analysis); the commands no lens runs come at once
        assert [(a.title, a.edit) for a in first_actions or ()] == [
            ("Run the versions of `f` in the sandbox", None),
            (f"Clear the {N_VERSIONS} stored versions of `f`", None),
        ]

        # the light analysis finishes in the background, and the client is told
        await wait_for(lambda: lens_refreshes(client), timeout=300)
        lenses = await code_lenses(client, uri)
        titles = [x.command.title for x in lenses if x.command]
        assert titles[0].startswith(f"{N_VERSIONS} versions")
        assert titles[1:] == ["Compare", "Regenerate"]

        # a function without versions: no hover, as before
        assert await hover_once(client, uri, position_of(DOC, "g(xs)")) is None


async def test_a_large_module_shows_its_first_functions_findings_before_the_rest(
    workspace: Path,
) -> None:
    """More functions to analyse than ``FIRST_STEP``: the first publish holds the findings
    of the first ones (their analyses were started first), the next those of all."""
    from codequorum.lsp.server import FIRST_STEP

    n = FIRST_STEP + 6
    doc = "".join(f"def f{k}(xs):\n    return sum(xs) + {k}\n\n\n" for k in range(n))
    path = workspace / "many.py"
    store = VersionStore.open(workspace / ".codequorum" / "samples.sqlite3")
    try:
        for k in range(n):  # two versions unlike each other: each function has a finding
            store.add(store_key(path, workspace), "python", f"f{k}", [
                Version(code=f"def f{k}(xs):\n    return sum(xs) + {k}\n", origin="imported"),
                Version(code=versions(4)[3].replace("def f(", f"def f{k}("), origin="imported"),
            ])
    finally:
        store.close()
    async with lsp_session(workspace) as client:
        recorded = Recorded()
        client.diagnostics = recorded  # every publish kept, however close they come
        uri = open_document(client, path, doc)
        await wait_for(lambda: len(recorded.of(uri)) >= 2, timeout=120)
        first, every = ({(d.data or {})["qualifiedName"] for d in p}
                        for p in recorded.of(uri)[:2])
        assert every == {f"f{k}" for k in range(n)}
        assert first == {f"f{k}" for k in range(FIRST_STEP)}


class Recorded(dict[str, Any]):
    """The client's diagnostics by document, with every publish kept in order."""

    def __init__(self) -> None:
        super().__init__()
        self.history: list[tuple[str, list[types.Diagnostic]]] = []

    def __setitem__(self, uri: str, diagnostics: Any) -> None:
        self.history.append((uri, list(diagnostics)))
        super().__setitem__(uri, diagnostics)

    def of(self, uri: str) -> list[list[types.Diagnostic]]:
        """The publishes of ``uri``, in order."""
        return [d for u, d in self.history if u == uri]
