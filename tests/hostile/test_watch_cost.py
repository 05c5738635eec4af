"""A huge document and a stream of changes that each insert a function cannot stall the
language server through its watch: decided from outside, on the real server over stdio, by
what the server says it did (its log counts what the watch parsed), never by a clock.

The baseline is measured in the same test: the characters the watch parsed when the document
opened (one whole read). Each inserting change must cost a sliver of that, none may read the
document whole again, every inserted function must still arrive, and a request sent right
after the changes is answered. A document past the watch's size limit is left alone, said
once in the log however many changes come.
"""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types

from codequorum.lsp.editor_watch import MAX_WATCHED_CHARS, NOT_NOW

from ..lsp.conftest import lsp_session
from ..lsp.helpers import open_document, wait_for
from .conftest import Hostile

FUNCTIONS = 6000
CHANGES = 20
SHAPES = (
    "total = x + {i}\n    for k in range(y):\n        total += k * {j}\n    return total",
    "if x > {i}:\n        return y - {j}\n    return x * {i}",
    "s = str(x)\n    return s[::-1] + '{i}' * {j}",
)
READ = re.compile(r"the watch read (an opening|a change) of \S+: (\d+) whole, (\d+) windows, "
                  r"(\d+) characters")


def function(i: int, prefix: str = "f") -> str:
    """A function of about 100 characters, its shape set by ``i``."""
    return f"def {prefix}_{i}(x, y):\n    {SHAPES[i % 3].format(i=i, j=i % 7)}\n\n\n"


def _position(text: str, offset: int) -> types.Position:
    return types.Position(line=text.count("\n", 0, offset),
                          character=offset - (text.rfind("\n", 0, offset) + 1))


def _insert(client: object, uri: str, text: str, at: int, new: str, version: int) -> str:
    where = _position(text, at)
    client.text_document_did_change(types.DidChangeTextDocumentParams(  # type: ignore[attr-defined]
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=where, end=where), text=new)]))
    return text[:at] + new + text[at:]


def _changes_read(log: Path) -> list[tuple[str, int, int, int]]:
    """The reads of :data:`CHANGES` changes, once the server logged them all."""
    found = [read for read in _reads(log) if read[0] == "a change"]
    return found if len(found) == CHANGES else []


def _reads(log: Path) -> list[tuple[str, int, int, int]]:
    """(what, whole reads, windows, characters) of each read the server logged."""
    if not log.exists():
        return []
    return [(m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)))
            for m in READ.finditer(log.read_text(encoding="utf-8"))]


async def test_inserting_changes_in_a_huge_document_cost_what_they_insert(
        hostile: Hostile) -> None:
    log = hostile.repo / "server.log"
    text = "".join(function(i) for i in range(FUNCTIONS))
    home = hostile.home_snapshot()
    async with lsp_session(hostile.repo, log_file=log, answer=NOT_NOW,
                           init_options={"watch": "ask", "dynamic": {"auto": False}},
                           env={"HOME": str(hostile.home)}) as client:
        uri = open_document(client, hostile.repo / "huge.py", text)
        [opening] = await wait_for(lambda: [r for r in _reads(log) if r[0] == "an opening"],
                                   timeout=120)
        assert opening[1] == 1 and opening[3] == len(text)  # the baseline: one whole read
        names = []
        for n in range(CHANGES):
            at = text.index(f"def f_{(n * 283) % FUNCTIONS}(")
            names.append(f"arrived_{n}")
            text = _insert(client, uri, text, at, function(n, "arrived"), n + 2)
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=_position(text, text.index("def f_10(") + 5)))
        assert hover is None  # answered: the function has no versions, so nothing to show
        changes = await wait_for(lambda: _changes_read(log), timeout=120)
        assert sum(whole for _, whole, _, _ in changes) == 0
        assert max(chars for _, _, _, chars in changes) * 100 < opening[3]
        said = await wait_for(lambda: [name for name in names if
                                       f"{name} arrived in one edit" in log.read_text("utf-8")]
                              == names, timeout=60)
        assert said
    assert hostile.home_snapshot() == home


async def test_a_document_past_the_watchs_limit_is_left_alone_said_once(
        hostile: Hostile) -> None:
    log = hostile.repo / "server.log"
    text = "".join(function(i) for i in range(MAX_WATCHED_CHARS // 70))
    assert len(text) > MAX_WATCHED_CHARS
    home = hostile.home_snapshot()
    async with lsp_session(hostile.repo, log_file=log, answer=NOT_NOW,
                           init_options={"watch": "auto", "dynamic": {"auto": False}},
                           env={"HOME": str(hostile.home)}) as client:
        uri = open_document(client, hostile.repo / "past.py", text)
        for n in range(5):
            text = _insert(client, uri, text, 0, function(n, "arrived"), n + 2)
        small = open_document(client, hostile.repo / "small.py", function(1))
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=small),
            position=types.Position(line=0, character=5)))
        assert hover is None
        said = await wait_for(lambda: [line for line in log.read_text("utf-8").splitlines()
                                       if "the watch leaves" in line], timeout=60)
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(said) == 1 and "past.py" in said[0] and f"more than {MAX_WATCHED_CHARS}" in said[0]
    assert [line for line in lines if "past.py" in line and (
        "the watch read" in line or "arrived in one edit" in line)] == []
    assert hostile.home_snapshot() == home
