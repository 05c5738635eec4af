"""Which functions get which lenses: the computing lens, and Regenerate for the rest."""

from __future__ import annotations

from types import SimpleNamespace

from lsprotocol import types

from codequorum.lsp.documents import FunctionEntry
from codequorum.lsp.lenses import computing_entries, entries_without_lenses, lens_commands
from codequorum.lsp.settings import parse_settings


def _entry(name: str, line: int) -> FunctionEntry:
    start = types.Position(line=line, character=0)
    rng = types.Range(start=start, end=types.Position(line=line + 1, character=0))
    return FunctionEntry(
        info=SimpleNamespace(), qualified_name=name, name=name.rsplit(".", 1)[-1],
        range=rng, name_range=rng, indent="",
    )


ENTRIES = [_entry("a", 0), _entry("b", 3), _entry("a", 6), _entry("C.m", 10)]


def test_one_computing_lens_per_function_above_its_first_definition() -> None:
    found = computing_entries(ENTRIES, {"a", "C.m", "gone"})
    assert [(e.qualified_name, e.range.start.line) for e in found] == [("a", 0), ("C.m", 10)]
    assert computing_entries(ENTRIES, ()) == []


def test_functions_without_lenses_once_each_in_document_order() -> None:
    found = entries_without_lenses(ENTRIES, {"b"})
    assert [(e.qualified_name, e.range.start.line) for e in found] == [("a", 0), ("C.m", 10)]
    assert entries_without_lenses(ENTRIES, {"a", "b", "C.m"}) == []


def test_the_commands_a_function_s_lenses_run() -> None:
    on, _ = parse_settings(None)
    assert lens_commands(True, on) == {
        "codequorum.analyze", "codequorum.compare", "codequorum.regenerate"}
    assert lens_commands(False, on) == set()
    every, _ = parse_settings({"codeLens": {"showForAll": True}})
    assert lens_commands(False, every) == {"codequorum.regenerate"}
    off, _ = parse_settings({"codeLens": {"enable": False}})
    assert lens_commands(True, off) == set()
