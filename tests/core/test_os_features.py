"""What stands in where the system lacks a POSIX name: the checks of ``open_no_link`` that
keep ``O_NOFOLLOW``'s refusal, the user id and cores where there are none."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from codequorum.core import os_features
from codequorum.core.os_features import link_like, links_on_the_way, open_no_link

WRITE = os.O_WRONLY | os.O_TRUNC


@pytest.fixture(params=[os_features.NOFOLLOW, 0], ids=["O_NOFOLLOW", "checks"])
def nofollow(request: pytest.FixtureRequest) -> int:
    """The kernel's flag, and the checks that stand in where there is none (Windows)."""
    return int(request.param)


def test_a_link_is_refused_and_its_target_left_whole(tmp_path: Path, nofollow: int) -> None:
    (tmp_path / "secret").write_text("keep\n")
    (tmp_path / "out.json").symlink_to(tmp_path / "secret")
    with pytest.raises(OSError) as raised:
        open_no_link(tmp_path / "out.json", WRITE, nofollow=nofollow)
    assert raised.value.errno == errno.ELOOP
    assert (tmp_path / "secret").read_text() == "keep\n"  # not truncated by the open


def test_a_file_is_opened_truncated_and_a_new_one_made(tmp_path: Path, nofollow: int) -> None:
    (tmp_path / "old").write_text("old content\n")
    fd = open_no_link(tmp_path / "old", WRITE, nofollow=nofollow)
    os.write(fd, b"new\n")
    os.close(fd)
    assert (tmp_path / "old").read_text() == "new\n"
    fd = open_no_link(tmp_path / "made", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600,
                      nofollow=nofollow)
    os.close(fd)
    assert (tmp_path / "made").exists()
    with pytest.raises(FileExistsError):
        open_no_link(tmp_path / "made", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600,
                     nofollow=nofollow)


def test_a_link_swapped_in_during_the_open_is_caught_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race ``O_NOFOLLOW`` closes in the kernel: the checks see it after the open,
    before anything is truncated or written."""
    (tmp_path / "secret").write_text("keep\n")
    target = tmp_path / "out.json"
    target.write_text("mine\n")
    real_open = os.open

    def swapping_open(path: Any, flags: int, mode: int = 0o777) -> int:
        target.unlink()
        target.symlink_to(tmp_path / "secret")  # between the check and the open
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", swapping_open)
    with pytest.raises(OSError) as raised:
        open_no_link(target, WRITE, nofollow=0)
    assert raised.value.errno == errno.ELOOP
    assert (tmp_path / "secret").read_text() == "keep\n"


def test_a_reparse_point_counts_as_a_link() -> None:
    junction = SimpleNamespace(st_mode=stat.S_IFDIR | 0o755,
                               st_file_attributes=stat.FILE_ATTRIBUTE_REPARSE_POINT)
    folder = SimpleNamespace(st_mode=stat.S_IFDIR | 0o755,
                             st_file_attributes=stat.FILE_ATTRIBUTE_DIRECTORY)
    assert link_like(cast(os.stat_result, junction))
    assert not link_like(cast(os.stat_result, folder))


def test_links_on_the_way_names_the_first_link(tmp_path: Path) -> None:
    real = tmp_path.resolve()
    (real / "a" / "b").mkdir(parents=True)
    (real / "l").symlink_to(real / "a")
    assert links_on_the_way(real / "a" / "b") is None
    assert links_on_the_way(real / "l" / "b") == real / "l"
    (real / "f").write_text("")
    with pytest.raises(NotADirectoryError):
        links_on_the_way(real / "f" / "x")


def test_no_user_id_and_every_core_where_the_system_says_neither(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert os_features.user_id() == os.getuid()
    monkeypatch.delattr(os, "getuid")
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 7)
    assert os_features.user_id() is None
    assert os_features.usable_cores() == 7


def test_mode_and_owner_are_left_where_the_system_has_no_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        os_features.change_mode(fd, 0o640)
        assert stat.S_IMODE(os.fstat(fd).st_mode) == 0o640
        monkeypatch.delattr(os, "fchmod")
        monkeypatch.delattr(os, "fchown")
        os_features.change_mode(fd, 0o600)  # Windows: its ACLs say, nothing is changed
        os_features.change_owner(fd, 0, 0)
        assert stat.S_IMODE(os.fstat(fd).st_mode) == 0o640
    finally:
        os.close(fd)


def test_folder_descriptors_are_posix_only(monkeypatch: pytest.MonkeyPatch) -> None:
    assert os_features.folder_descriptors()
    monkeypatch.setattr(os, "supports_dir_fd", set())
    assert not os_features.folder_descriptors()
