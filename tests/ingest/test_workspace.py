"""Workspaces and file keys: one naming for the store, the editor and the CLI."""

from __future__ import annotations

from pathlib import Path

from codequorum.ingest.store import default_store_path
from codequorum.ingest.workspace import file_key_for, find_workspace, store_key, store_path


def test_store_keys_match_the_language_server(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / "pkg").mkdir()
    inner = ws / "pkg" / "mod.py"
    inner.write_text("def f():\n    pass\n")
    assert find_workspace(inner) == ws.resolve()
    assert store_key(inner, ws) == "pkg/mod.py"
    outside = tmp_path / "elsewhere.py"
    outside.write_text("def f():\n    pass\n")
    assert store_key(outside, ws) == outside.resolve().as_uri()


def test_document_uris_key_like_paths(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    inner = ws / "pkg" / "my mod.py"
    inner.write_text("")
    assert file_key_for(inner.as_uri(), str(ws)) == "pkg/my mod.py"
    assert file_key_for(inner.as_uri(), None) == inner.as_uri()
    assert file_key_for("untitled:Untitled-1", str(ws)) == "untitled:Untitled-1"


def test_folders_are_their_own_start(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".codequorum").mkdir(parents=True)
    (ws / "a" / "b").mkdir(parents=True)
    assert find_workspace(ws / "a" / "b") == ws.resolve()
    assert find_workspace(ws) == ws.resolve()


def test_store_path_relative_to_the_workspace(tmp_path: Path) -> None:
    assert store_path("", tmp_path) == default_store_path(tmp_path)
    assert store_path("data/s.sqlite3", tmp_path) == tmp_path / "data" / "s.sqlite3"
    assert store_path(str(tmp_path / "x.db"), "/elsewhere") == tmp_path / "x.db"
