"""The workspace's files that name a function, found within bounds and the one rule."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import pytest

from codequorum.ingest import workspace_callers
from codequorum.ingest.module_view import module_context
from codequorum.ingest.workspace_callers import caller_files

APP = "def area(w, h):\n    return w * h\n"
TEST = "from app import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n"


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    for rel, text in {
        "app.py": APP,
        "tests/test_app.py": TEST,
        "cli/main.py": "from app import area\nprint(area(4, 5))\n",
        "cli/other.py": "print('nothing here')\n",
        ".hidden/test_x.py": "area(1, 1)\n",
        "secrets/test_y.py": "area(1, 2)\n",
        "node_modules/pkg/z.py": "area(1, 3)\n",
        "notes.txt": "area(1, 4)\n",
    }.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("area(9, 9)\n")
    (ws / "leak.py").symlink_to(ws / ".git" / "config")  # a link into a hidden folder
    outside = tmp_path / "outside.py"
    outside.write_text("area(8, 8)\n")
    (ws / "away.py").symlink_to(outside)  # a link out of the workspace
    return ws


def test_only_the_files_that_name_it_under_the_rule(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    found = dict(caller_files(ws, "area"))
    assert set(found) == {"app.py", "tests/test_app.py", "cli/main.py"}
    assert found["tests/test_app.py"] == TEST
    assert set(dict(caller_files(ws, "area", frozenset({"app.py"})))) == {
        "tests/test_app.py", "cli/main.py"}
    assert caller_files(None, "area") == () and caller_files(ws, "") == ()


def test_bounded_and_read_again_only_when_changed(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ws = _workspace(tmp_path)
    monkeypatch.setattr(workspace_callers, "MAX_CALLER_FILES", 1)
    assert len(caller_files(ws, "area")) == 1
    monkeypatch.setattr(workspace_callers, "MAX_CALLER_FILES", 24)
    monkeypatch.setattr(workspace_callers, "MAX_FILE_BYTES", len(TEST) - 1)
    assert "tests/test_app.py" not in dict(caller_files(ws, "area"))
    monkeypatch.setattr(workspace_callers, "MAX_FILE_BYTES", 400_000)
    reads: list[str] = []
    real = workspace_callers._text

    def counted(root: Path, rel: PurePosixPath) -> str | None:
        reads.append(rel.as_posix())
        return real(root, rel)

    monkeypatch.setattr(workspace_callers, "_text", counted)
    caller_files(ws, "area")
    reads.clear()
    caller_files(ws, "area")
    assert reads == []  # unchanged texts are not read again
    test = ws / "tests" / "test_app.py"
    test.write_text(TEST + "\nassert area(0, 1) == 0\n")
    os.utime(test, ns=(1, 1))
    assert "area(0, 1)" in dict(caller_files(ws, "area"))["tests/test_app.py"]
    assert reads == ["tests/test_app.py"]


def test_a_functions_context_carries_its_workspace_callers(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    context = module_context(APP, ws / "app.py", ws, "area")
    assert [path for path, _ in context.callers] == ["cli/main.py", "tests/test_app.py"]
    assert "tests/test_app.py" not in dict(context.files)  # never given to the sandbox


class _Counted:
    """``os.scandir``'s listing as it is, each entry read counted in ``seen``."""

    seen = 0

    def __init__(self, path: Path) -> None:
        self.listing = _REAL_SCANDIR(path)

    def __enter__(self) -> _Counted:
        return self

    def __exit__(self, *exc: object) -> None:
        self.listing.close()

    def __iter__(self) -> _Counted:
        return self

    def __next__(self) -> os.DirEntry[str]:
        entry = next(self.listing)
        _Counted.seen += 1
        return entry


_REAL_SCANDIR = os.scandir


@pytest.mark.parametrize("shape", ["one-huge-folder", "many-folders"])
def test_a_workspace_of_many_other_files_costs_a_bounded_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str,
) -> None:
    ws = _workspace(tmp_path)
    data = ws / "data"
    for i in range(3000):
        place = data / f"{i:04}.csv" if shape == "one-huge-folder" else data / f"{i:04}" / "x.csv"
        place.parent.mkdir(parents=True, exist_ok=True)
        place.touch()
    monkeypatch.setattr(workspace_callers, "MAX_WALKED", 1000)
    monkeypatch.setattr(workspace_callers, "MAX_FOLDER_ENTRIES", 200)
    monkeypatch.setattr(os, "scandir", _Counted)
    _Counted.seen = 0
    found = dict(caller_files(ws, "area"))
    assert _Counted.seen <= 1000
    assert set(found) == {"app.py", "tests/test_app.py", "cli/main.py"}
