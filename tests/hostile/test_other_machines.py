"""On Windows a path that starts with two separators (``\\\\server\\share\\x.py``, what
``file:////server/share/x.py`` reads as) names another host or a device, and merely looking
it up (``realpath``, ``stat``) connects to that host and offers it the user's Windows
credentials. A client's document or import path and an agent's file argument are refused on
it before anything touches it. ``os.name`` is ``posix`` here, so the system's spelling is
switched to Windows' for these calls; the refusal must be this one, not the later one a path
outside the workspace gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from codequorum.agents.paths import PathRefused, read_source
from codequorum.core import file_uris
from codequorum.lsp.files import RefusedFile, path_of, read_inside

REMOTE = ["//attacker/share/app.py", "\\\\attacker\\share\\app.py", "//./pipe/app.py",
          "//?/UNC/attacker/share/app.py"]


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_uris, "WINDOWS", True)


@pytest.mark.parametrize("given", REMOTE)
def test_an_agents_path_to_another_machine_is_refused_first(
        tmp_path: Path, windows: None, given: str) -> None:
    with pytest.raises(PathRefused, match="names another machine or a device"):
        read_source(tmp_path, given)


@pytest.mark.parametrize("given", REMOTE)
def test_an_editors_path_to_another_machine_is_refused_first(
        tmp_path: Path, windows: None, given: str) -> None:
    with pytest.raises(RefusedFile, match="names another machine or a device"):
        read_inside(Path(given), [tmp_path], 1000)


def test_a_documents_uri_naming_another_machine_has_no_path(windows: None) -> None:
    assert path_of("file:////attacker/share/app.py") is None
    assert path_of("file:///%5C%5Cattacker%5Cshare%5Capp.py") is None


def test_a_local_file_is_still_read(tmp_path: Path, windows: None) -> None:
    (tmp_path / "app.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    assert read_source(tmp_path, "app.py").text.startswith("def f")
    assert read_inside(tmp_path / "app.py", [tmp_path], 1000).startswith(b"def f")
