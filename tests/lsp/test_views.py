"""Views: the documents a person reads, written in the user's cache folder, never a
workspace; one per function and kind, bounded, the newest kept."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from codequorum.lsp.views import KEEP, VIEW_LIMIT, view_name, views_dir, write_view


def test_views_live_in_the_user_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert views_dir() == tmp_path / "cache" / "codequorum" / "views"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # not absolute: ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert views_dir() == tmp_path / "home" / ".cache" / "codequorum" / "views"


def test_a_view_is_named_after_the_function_and_nothing_else() -> None:
    name = view_name("file:///p/a.py", "../../etc/passwd\n", "report")
    assert re.fullmatch(r"etc_passwd-report-[0-9a-f]{12}\.txt", name), name
    assert "/" not in view_name("file:///p/a.py", "/", "compare")
    # one per document, function and kind: rewriting replaces the same file
    assert view_name("file:///p/a.py", "f", "report") == view_name("file:///p/a.py", "f", "report")
    assert view_name("file:///p/a.py", "f", "report") != view_name("file:///p/b.py", "f", "report")
    assert view_name("file:///p/a.py", "f", "report") != view_name("file:///p/a.py", "f", "compare")


def test_write_view_replaces_bounds_and_keeps_it_private(tmp_path: Path) -> None:
    folder = tmp_path / "views"
    first = write_view("one", "file:///a.py", "f", "report", folder)
    second = write_view("two\n", "file:///a.py", "f", "report", folder)
    assert first == second and second.read_text() == "two\n"
    assert [p.name for p in folder.iterdir()] == [second.name]  # no temporary file left
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(second).st_mode) == 0o600
    big = write_view("x" * (VIEW_LIMIT + 10), "file:///a.py", "g", "compare", folder)
    text = big.read_text()
    assert text.endswith("\n... 10 more characters\n")
    assert len(text) < VIEW_LIMIT + 40


def test_only_the_newest_views_are_kept(tmp_path: Path) -> None:
    folder = tmp_path / "views"
    folder.mkdir()
    old = []
    for age in range(KEEP + 3):  # f0 is the newest
        path = folder / view_name("file:///a.py", f"f{age}", "report")
        path.write_text("v")
        os.utime(path, (1_000_000 - age, 1_000_000 - age))
        old.append(path)
    other = folder / "notes.txt"  # not a view: left alone
    other.write_text("mine")
    new = write_view("v", "file:///a.py", "g", "compare", folder)
    kept = {p.name for p in folder.iterdir()}
    assert len(kept) == KEEP + 1 and "notes.txt" in kept and new.name in kept
    assert {p.name for p in old[: KEEP - 1]} <= kept
    assert not any(p.exists() for p in old[KEEP - 1 :])
