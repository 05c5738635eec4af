"""Helpers for the language-server tests: applying edits, real samples, positions."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

#: Options of a server that runs versions only when asked (``runDynamic``), for tests of
#: something else than a run on arrival.
NO_AUTORUN: dict[str, Any] = {"dynamic": {"auto": False}}

WorkDoneProgress = (
    types.WorkDoneProgressBegin | types.WorkDoneProgressReport | types.WorkDoneProgressEnd
)


def offset_of(text: str, pos: types.Position) -> int:
    """Index into ``text`` of an LSP position (UTF-16 columns, rows split on \\n)."""
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: pos.line])
    line = lines[pos.line] if pos.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(line):
        if units >= pos.character:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(line)


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """``text`` with the edits applied (last first, as LSP clients do)."""
    spans = sorted(
        ((offset_of(text, e.range.start), offset_of(text, e.range.end), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def position_of(text: str, needle: str, delta: int = 0) -> types.Position:
    """The position of the first occurrence of ``needle`` (plus ``delta`` characters)."""
    index = text.index(needle) + delta
    before = text[:index]
    line = before.count("\n")
    col = len(before) - (before.rfind("\n") + 1)
    return types.Position(line=line, character=col)


@cache
def humaneval_task(shared: str, task_id: str) -> dict[str, Any]:
    """One row of the shared CodeGen sample file."""
    path = Path(shared) / "data" / "humaneval_codegen16b_t0.8.jsonl"
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row["task_id"] == task_id:
                return dict(row)
    raise KeyError(task_id)


async def wait_for(predicate: Any, timeout: float = 20.0, interval: float = 0.05) -> Any:
    """Poll ``predicate()`` until it returns something truthy; fail after ``timeout``."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(interval)


def open_document(client: Any, path: Path, text: str, language_id: str = "python") -> str:
    """Write ``text`` to ``path`` and send didOpen; returns the URI."""
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id=language_id, version=1, text=text
            )
        )
    )
    return uri


def replace_document(client: Any, uri: str, text: str, version: int, save: bool = True) -> None:
    """Send the whole new text as one change (and a didSave)."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    if save:
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )


async def command(client: Any, name: str, *arguments: Any) -> Any:
    """Run ``workspace/executeCommand`` and return its result."""
    import asyncio

    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments))
        ),
        timeout=60,
    )


async def hover_once(client: Any, uri: str, position: types.Position) -> str | None:
    """The markdown of one hover answer (None when there is none)."""
    import asyncio

    result = await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri), position=position
            )
        ),
        timeout=30,
    )
    if result is None:
        return None
    contents = result.contents
    return contents.value if isinstance(contents, types.MarkupContent) else str(contents)


async def hover_text(
    client: Any, uri: str, position: types.Position, timeout: float = 60.0
) -> str | None:
    """The markdown of a hover once the versions are compared (asked again while the
    server answers that it is still comparing them); None when there is none."""
    from codequorum.lsp.hover import COMPUTING

    text = await hover_once(client, uri, position)
    if text is None or COMPUTING not in text:
        return text
    return str(await wait_for_async(lambda: hover_once(client, uri, position), COMPUTING, timeout))


async def wait_for_async(ask: Any, computing: str, timeout: float) -> Any:
    """Ask ``ask()`` until its answer no longer mentions ``computing``."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await ask()
        if value is not None and computing not in str(value):
            return value
        if loop.time() > deadline:
            raise AssertionError(f"still {computing!r} after {timeout} s")
        await asyncio.sleep(0.1)


async def code_lenses(client: Any, uri: str, timeout: float = 60.0) -> list[types.CodeLens]:
    """The code lenses of a document once no function's versions are being compared."""
    import asyncio

    from codequorum.lsp.lenses import COMPUTING_TITLE

    async def ask() -> list[types.CodeLens]:
        result = await asyncio.wait_for(
            client.text_document_code_lens_async(
                types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
            ),
            timeout=30,
        )
        return list(result or [])

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        lenses = await ask()
        if not any(lens.command and lens.command.title == COMPUTING_TITLE for lens in lenses):
            return lenses
        if loop.time() > deadline:
            raise AssertionError(f"lenses still computing after {timeout} s")
        await asyncio.sleep(0.1)


async def code_actions(
    client: Any, params: types.CodeActionParams, timeout: float = 60.0
) -> list[types.CodeAction | types.Command]:
    """The code actions at a place, asked again until edits come (an analysis the server
    computes in the background has none to offer yet; the command actions come at once)."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        result = await asyncio.wait_for(client.text_document_code_action_async(params), 30)
        if any(getattr(a, "edit", None) is not None for a in result or ()):
            return list(result)
        if loop.time() > deadline:
            raise AssertionError(f"no code actions within {timeout} s")
        await asyncio.sleep(0.1)


async def actions_at(client: Any, uri: str, pos: types.Position,
                     timeout: float = 60.0) -> list[types.CodeAction | types.Command]:
    """:func:`code_actions` at one position, with no diagnostics in the context."""
    return await code_actions(client, types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=pos, end=pos),
        context=types.CodeActionContext(diagnostics=[]),
    ), timeout)


def published(client: Any, uri: str) -> list[types.Diagnostic] | None:
    """The last diagnostics pushed for ``uri`` (None if none were pushed yet)."""
    value = client.diagnostics.get(uri)
    return None if value is None else list(value)


def progress_values(client: LanguageClient, token: types.ProgressToken) -> list[WorkDoneProgress]:
    """The work-done progress values received for ``token``, oldest first.

    pytest-lsp structures each ``$/progress`` value into ``WorkDoneProgressBegin``,
    ``WorkDoneProgressReport`` or ``WorkDoneProgressEnd`` before storing it, although
    ``progress_reports`` is annotated as holding ``ProgressParams``.
    """
    received: list[object] = list(client.progress_reports[token])
    values: list[WorkDoneProgress] = []
    for value in received:
        assert isinstance(
            value,
            (types.WorkDoneProgressBegin, types.WorkDoneProgressReport, types.WorkDoneProgressEnd),
        ), value
        values.append(value)
    return values
