"""An editor's ``file:`` URI as a local path, on POSIX and on Windows (drive letters, the
colon VS Code percent-encodes, another host)."""

from __future__ import annotations

import pytest

from codequorum.core.file_uris import path_text


@pytest.mark.parametrize(("uri", "posix", "windows"), [
    ("file:///home/me/app.py", "/home/me/app.py", "\\home\\me\\app.py"),
    ("file:///c%3A/Users/me/app.py", "/c:/Users/me/app.py", "c:\\Users\\me\\app.py"),
    ("file:///C:/Users/me/my%20app.py", "/C:/Users/me/my app.py", "C:\\Users\\me\\my app.py"),
    ("file://localhost/C:/x.py", "/C:/x.py", "C:\\x.py"),
    ("FILE:///d:", "/d:", "d:"),
    ("file://server/share/x.py", None, None),  # another host: not this machine's path
    ("untitled:Untitled-1", None, None),
    ("https://example.com/x.py", None, None),
    ("file:///home/me/app%00.py", None, None),  # a NUL: no file has it
    # another host spelled in the path: Windows reads it as \\server\share (UNC), a device
    ("file:////server/share/x.py", "//server/share/x.py", None),
    ("file:///%5C%5Cserver%5Cshare%5Cx.py", r"/\\server\share\x.py", None),
    ("file:////./pipe/x", "//pipe/x", None),
    ("file:////%3F/C:/x.py", "//?/C:/x.py", None),
])
def test_a_file_uri_is_the_path_the_system_spells(uri: str, posix: str | None,
                                                  windows: str | None) -> None:
    assert path_text(uri, windows=False) == posix
    assert path_text(uri, windows=True) == windows


@pytest.mark.parametrize(("path", "remote"), [
    ("//server/share/x.py", True), ("\\\\server\\share", True), ("/\\server/share", True),
    ("\\\\?\\C:\\x.py", True), ("\\\\.\\pipe\\x", True), ("//server", True),
    ("C:\\x.py", False), ("\\x.py", False), ("/home/me/x.py", False), ("x/y.py", False),
    ("", False), ("/", False),
])
def test_a_path_naming_another_machine_on_windows(path: str, remote: bool) -> None:
    from codequorum.core.file_uris import another_machine

    assert another_machine(path, windows=True) is remote
    assert another_machine(path, windows=False) is False
