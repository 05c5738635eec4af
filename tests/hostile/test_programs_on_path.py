"""A repository carries programs named as the ones codequorum starts (``node``, ``bwrap``,
``python3``). Where the user's ``PATH`` has an empty entry (``PATH=:/usr/bin``, what
``$EXTRA:$PATH`` gives with ``EXTRA`` unset) or a relative one (``.``, ``bin``), a lookup
by name finds them in the current folder, the repository, and codequorum would run them
with the user's rights (Node only to print its version or bytecodes, bubblewrap to build
every sandbox). Programs are looked up in the absolute folders of ``PATH`` only."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from codequorum.core.os_features import find_program, search_folders

from .conftest import Hostile

PROGRAMS = ("node", "bwrap", "python3")


@pytest.mark.parametrize(("variable", "folders"), [
    ("", []),
    (":/usr/bin", ["/usr/bin"]),
    ("/usr/bin::/bin", ["/usr/bin", "/bin"]),
    ("/usr/bin:", ["/usr/bin"]),
    (".:bin:./tools:/bin", ["/bin"]),
])
def test_only_absolute_entries_of_path_are_searched(variable: str,
                                                    folders: list[str]) -> None:
    assert search_folders(variable.replace(":", os.pathsep)) == folders


def _plant(folder: Path, marker: Path) -> None:
    for name in PROGRAMS:
        program = folder / name
        program.write_text(f'#!/bin/sh\necho {name} >> "{marker}"\nexit 0\n', encoding="utf-8")
        program.chmod(0o755)


def test_a_program_in_the_current_folder_is_never_found_by_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, elsewhere = tmp_path / "repo", tmp_path / "tools"
    (repo / "bin").mkdir(parents=True)
    elsewhere.mkdir()
    _plant(repo, tmp_path / "marker")
    _plant(repo / "bin", tmp_path / "marker")
    _plant(elsewhere, tmp_path / "marker")
    monkeypatch.chdir(repo)
    for variable in ("", ":", ".", "bin", f":{os.pathsep}bin{os.pathsep}."):
        for name in PROGRAMS:
            assert find_program(name, variable.replace(":", os.pathsep)) is None
    assert find_program("node", f".{os.pathsep}{elsewhere}") == str(elsewhere / "node")
    assert find_program("./node", "") == "./node"  # a path the user wrote is taken as written


def test_doctor_runs_no_program_of_the_repository_on_an_empty_path_entry(
        hostile: Hostile) -> None:
    """``codequorum doctor`` asks for bubblewrap and Node by name; run in a repository
    carrying both, with ``PATH`` starting with an empty entry, it runs neither."""
    _plant(hostile.repo, hostile.marker)
    path = os.pathsep + os.pathsep.join(
        folder for folder in os.environ.get("PATH", "").split(os.pathsep)
        if os.path.isabs(folder))
    result = hostile.run("doctor", "--format", "json", env={"PATH": path})
    assert not hostile.marker.exists(), hostile.marker.read_text(encoding="utf-8")
    found = json.loads(result.stdout)
    assert not str(found["bwrap"] or "").startswith(str(hostile.repo))
    assert str(hostile.repo) not in json.dumps(found["node"])
