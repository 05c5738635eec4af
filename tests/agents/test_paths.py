"""Paths from an agent: only regular UTF-8 files inside the workspace, bounded, and a store
that is the workspace's own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codequorum.agents.paths import (
    MAX_PATH_CHARS,
    MAX_SOURCE_BYTES,
    PathRefused,
    inside,
    read_source,
    store_file,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "mod.py").write_text("\ufeffdef f():\n    return 1\n", encoding="utf-8")
    (tmp_path / "outside.py").write_text("def g():\n    return 2\n", encoding="utf-8")
    return folder.resolve()


def test_reads_a_file_by_relative_or_absolute_path_without_its_bom(root: Path) -> None:
    for given in ("pkg/mod.py", "./pkg/../pkg/mod.py", str(root / "pkg" / "mod.py")):
        source = read_source(root, given)
        assert source.path == root / "pkg" / "mod.py"
        assert source.text == "def f():\n    return 1\n"


def test_a_link_inside_the_workspace_is_followed(root: Path) -> None:
    (root / "alias.py").symlink_to(root / "pkg" / "mod.py")
    assert read_source(root, "alias.py").path == root / "pkg" / "mod.py"


@pytest.mark.parametrize(("given", "reason"), [
    ("../outside.py", "outside the workspace"),
    ("pkg/../../outside.py", "outside the workspace"),
    ("/etc/hostname", "outside the workspace"),
    ("nope.py", "no such file in the workspace"),
    ("", "not a usable path"),
    ("a\0b", "not a usable path"),
    ("x" * (MAX_PATH_CHARS + 1), "not a usable path"),
])
def test_paths_that_are_refused(root: Path, given: str, reason: str) -> None:
    with pytest.raises(PathRefused, match=reason):
        inside(root, given)


def test_hidden_files_and_folders_are_not_read_for_an_agent(root: Path) -> None:
    # a repository's .env, .git/config or a link to one: secrets, not source
    (root / ".env").write_text("def token():\n    return 'sk-private'\n", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "hook.py").write_text("def h():\n    return 1\n", encoding="utf-8")
    (root / "env.py").symlink_to(root / ".env")
    for given in (".env", ".git/hook.py", "env.py", "pkg/../.env", str(root / ".env")):
        with pytest.raises(PathRefused, match="hidden file or folder"):
            read_source(root, given)
    assert read_source(root, "pkg/mod.py").text.startswith("def f")


def test_links_that_lead_out_and_link_loops_are_refused(root: Path) -> None:
    (root / "out.py").symlink_to(root.parent / "outside.py")
    (root / "dir").symlink_to(root.parent, target_is_directory=True)
    (root / "loop.py").symlink_to(root / "loop.py")
    with pytest.raises(PathRefused, match="outside the workspace"):
        read_source(root, "out.py")
    with pytest.raises(PathRefused, match="outside the workspace"):
        read_source(root, "dir/outside.py")
    with pytest.raises(PathRefused, match="cannot be read"):
        read_source(root, "loop.py")


def test_only_small_regular_utf8_text_is_read(root: Path) -> None:
    os.mkfifo(root / "fifo.py")  # reading it would block: refused before any read
    (root / "huge.py").write_bytes(b"#" * (MAX_SOURCE_BYTES + 1))
    (root / "nul.py").write_bytes(b"x = 1\0")
    (root / "bytes.py").write_bytes(b"x = '\xff'\n")
    expected = {
        "fifo.py": "not a regular file",
        "pkg": "a folder",
        "huge.py": f"{MAX_SOURCE_BYTES + 1:,} bytes, over the {MAX_SOURCE_BYTES:,}",
        "nul.py": "a binary file",
        "bytes.py": r"not UTF-8 text \(byte 5\)",
    }
    for given, reason in expected.items():
        with pytest.raises(PathRefused, match=reason):
            read_source(root, given)


def test_control_characters_in_a_path_are_escaped_in_the_message(root: Path) -> None:
    with pytest.raises(PathRefused) as caught:
        inside(root, "\x1b[2Jgone.py")
    assert str(caught.value) == "\\x1b[2Jgone.py: no such file in the workspace"


def test_the_store_must_be_the_workspaces_own(root: Path, tmp_path: Path) -> None:
    assert store_file(root) == root / ".codequorum" / "samples.sqlite3"
    (root / ".codequorum").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(PathRefused, match="is a link"):
        store_file(root)
    (root / ".codequorum").unlink()
    (root / ".codequorum").mkdir()
    (root / ".codequorum" / "samples.sqlite3").symlink_to(tmp_path / "outside.py")
    with pytest.raises(PathRefused, match="is a link"):
        store_file(root)
    (root / ".codequorum" / "samples.sqlite3").unlink()
    (root / ".codequorum" / "samples.sqlite3").mkdir()
    with pytest.raises(PathRefused, match="not a regular file"):
        store_file(root)
    (root / ".codequorum" / "samples.sqlite3").rmdir()
    (root / ".codequorum").rmdir()
    (root / ".codequorum").write_text("")
    with pytest.raises(PathRefused, match="is not a folder"):
        store_file(root)


def test_the_module_views_rule_holds_for_an_agent_where_links_lead(root: Path) -> None:
    (root / "keys").mkdir()
    (root / "keys" / "passwords.py").write_text("P = 'pw'\n", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[remote]\n", encoding="utf-8")
    (root / "conf").mkdir()
    (root / "conf" / "__init__.py").symlink_to(root / ".git" / "config")
    (root / "pw.py").symlink_to(root / "keys" / "passwords.py")
    (root / "environ.py").symlink_to("/proc/self/environ")
    (root / "zero.py").symlink_to("/dev/zero")
    expected = {"conf/__init__.py": "hidden file or folder", "pw.py": "looks like it holds "
                "secrets", "keys/passwords.py": "looks like it holds secrets",
                "environ.py": "outside the workspace", "zero.py": "outside the workspace"}
    for given, reason in expected.items():
        with pytest.raises(PathRefused, match=reason):
            read_source(root, given)
