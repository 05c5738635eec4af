"""What LSP clients other than VS Code get, end to end: hovers in the format the client asks
for."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from lsprotocol import types

from .conftest import capabilities, lsp_session
from .helpers import command, humaneval_task, open_document, position_of

CURRENT_BODY = (
    "    ordered = sorted(numbers)\n"
    "    return any(b - a < threshold for a, b in zip(ordered, ordered[1:]))\n"
)


def _document(shared_dir: Path) -> tuple[str, list[str]]:
    task = humaneval_task(str(shared_dir), "HumanEval/0")
    return task["prompt"] + CURRENT_BODY, [task["prompt"] + s for s in task["samples"][:5]]


async def _hover(client: object, uri: str, pos: types.Position) -> types.MarkupContent:
    """The hover once the versions are compared."""
    from codequorum.lsp.hover import COMPUTING

    params = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
    for _ in range(600):
        result = await client.text_document_hover_async(params)  # type: ignore[attr-defined]
        assert isinstance(result, types.Hover)
        assert isinstance(result.contents, types.MarkupContent)
        if COMPUTING not in result.contents.value:
            return result.contents
        await asyncio.sleep(0.1)
    raise AssertionError("the hover still says it is comparing the versions")


async def test_a_client_that_asks_for_plain_text_gets_a_hover_without_markup(
    workspace: Path, shared_dir: Path
) -> None:
    doc, samples = _document(shared_dir)
    caps = capabilities(hover_formats=(types.MarkupKind.PlainText,))
    async with lsp_session(workspace, client_capabilities=caps) as client:
        uri = open_document(client, workspace / "close.py", doc)
        await command(client, "codequorum.addSamples", uri, "has_close_elements", samples)
        hover = await _hover(client, uri, position_of(doc, "has_close_elements"))
    assert hover.kind == types.MarkupKind.PlainText
    text = hover.value
    assert text.startswith("codequorum · has_close_elements · 5 samples · ")
    for markup in ("**", "`", "```", "\\-", "\\*", "\\_"):
        assert markup not in text, (markup, text)
    assert re.search(r"^⚠️ outlier-current — ", text, re.M), text
    assert re.search(r"^- consensus: v[1-5] \(its cluster holds", text, re.M), text
    # the diff: its lines indented under the line that names the version
    _, _, diff = text.partition("Most different: ")
    lines = diff.split("\n")
    assert re.fullmatch(r"v[1-5]", lines[0]), lines[0]
    assert lines[1].startswith("    --- current") and lines[2].startswith("    +++ v")
    assert all(line.startswith("    ") for line in lines[1:] if line), lines


async def test_a_client_that_names_no_format_gets_markdown(
    workspace: Path, shared_dir: Path
) -> None:
    doc, samples = _document(shared_dir)
    caps = capabilities(hover_formats=())
    async with lsp_session(workspace, client_capabilities=caps) as client:
        uri = open_document(client, workspace / "close.py", doc)
        await command(client, "codequorum.addSamples", uri, "has_close_elements", samples)
        hover = await _hover(client, uri, position_of(doc, "has_close_elements"))
    assert hover.kind == types.MarkupKind.Markdown
    assert hover.value.startswith("**codequorum** · `has_close_elements` · 5 samples · ")
    assert "```diff\n" in hover.value
