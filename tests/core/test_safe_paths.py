"""Paths written only where the user meant: symlinks out of a workspace refused, folders
opened without following symlinks, special files never read."""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

import pytest

from codequorum.core import os_features
from codequorum.core.safe_paths import (
    RefusedFile,
    UnreadableFile,
    UnsafePath,
    folder_of,
    guard,
    read_regular,
    read_workspace_file,
    windows_name,
    workspace_refusal,
)


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A repository (with ``.git``) and a home folder beside it."""
    repo, home = tmp_path / "repo", tmp_path / "home"
    (repo / ".git").mkdir(parents=True)
    home.mkdir()
    (home / ".bashrc").write_text("keep\n")
    return repo, home


def test_symlinks_inside_the_workspace_are_followed(layout: tuple[Path, Path]) -> None:
    repo, _ = layout
    (repo / "runs").mkdir()
    (repo / "latest").symlink_to(repo / "runs")
    assert guard(repo / "latest" / "r.json", [repo]) == repo / "runs" / "r.json"
    assert guard(repo / "a" / ".." / "b.json", [repo]) == repo / "b.json"


@pytest.mark.parametrize("link", ["report.json", "sub/report.json", ".codequorum"])
def test_a_symlink_out_of_the_workspace_is_refused_wherever_it_is(
        layout: tuple[Path, Path], link: str) -> None:
    repo, home = layout
    (repo / link).parent.mkdir(parents=True, exist_ok=True)
    (repo / link).symlink_to(home / ".bashrc" if link.endswith(".json") else home)
    target = repo / link / "samples.sqlite3" if link == ".codequorum" else repo / link
    with pytest.raises(UnsafePath, match=re.escape(f"{repo / link} is a symlink out of the")):
        guard(target, [repo])
    # without being told the root, the repository's .git marks it
    with pytest.raises(UnsafePath):
        guard(target)


def test_a_dangling_symlink_and_a_chain_are_judged_by_where_they_lead(
        layout: tuple[Path, Path]) -> None:
    repo, home = layout
    (repo / "new.json").symlink_to(home / "not-yet.json")
    with pytest.raises(UnsafePath, match=r"not-yet\.json"):
        guard(repo / "new.json", [repo])
    (home / "back").symlink_to(repo / "inside.json")
    (repo / "round.json").symlink_to(home / "back")
    assert guard(repo / "round.json", [repo]) == repo / "inside.json"


def test_links_outside_every_workspace_and_on_the_way_to_it_are_the_users(
        tmp_path: Path) -> None:
    """A home folder kept in git, with the project linked in from another disk."""
    home, disk = tmp_path / "home", tmp_path / "disk" / "proj"
    (home / ".git").mkdir(parents=True)
    disk.mkdir(parents=True)
    (home / "proj").symlink_to(disk)
    assert guard(home / "proj" / "out.json", [home / "proj"]) == disk / "out.json"
    assert guard("/dev/stdout") == Path(os.path.realpath("/dev/stdout"))


@pytest.fixture(params=["descriptors", "paths"])
def folder_way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How folders are held: by descriptor (POSIX), or by path checked before each use,
    with no ``O_NOFOLLOW`` (Windows)."""
    if request.param == "paths":
        monkeypatch.setattr(os_features, "NOFOLLOW", 0)
        monkeypatch.setattr(os_features, "folder_descriptors", lambda: False)
    return str(request.param)


def test_a_folder_swapped_for_a_symlink_after_the_check_is_not_followed(
        layout: tuple[Path, Path], folder_way: str) -> None:
    repo, home = layout
    (repo / "out").mkdir()
    checked = guard(repo / "out" / "r.json", [repo])
    (repo / "out").rmdir()
    (repo / "out").symlink_to(home)  # the race: after the check, before the write
    with pytest.raises(UnsafePath, match="out is not a folder any more"), folder_of(checked):
        pass
    (repo / "out").unlink()
    (repo / "out").mkdir()
    with folder_of(checked) as folder:
        os.close(folder.open("r.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        assert (folder.fd is None) == (folder_way == "paths")
    assert (repo / "out" / "r.json").exists()


def test_a_folder_swapped_while_held_is_not_written_through(
        layout: tuple[Path, Path], folder_way: str) -> None:
    repo, home = layout
    (repo / "out").mkdir()
    checked = guard(repo / "out" / "r.json", [repo])
    with folder_of(checked) as folder:
        (repo / "out").rmdir()
        (repo / "out").symlink_to(home)  # after the folder was checked and opened
        with pytest.raises((UnsafePath, FileNotFoundError)):
            os.close(folder.open("r.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    assert sorted(p.name for p in home.iterdir()) == [".bashrc"]


def test_only_bounded_regular_files_are_read(tmp_path: Path) -> None:
    (tmp_path / "ok").write_bytes(b"abc")
    assert read_regular(tmp_path / "ok", 3) == b"abc"
    with pytest.raises(UnreadableFile, match="is larger than"):
        read_regular(tmp_path / "ok", 2)
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(UnreadableFile, match="is a FIFO, not a regular file"):
        read_regular(tmp_path / "pipe", 10)
    with pytest.raises(UnreadableFile, match="is a device, not a regular file"):
        read_regular("/dev/zero", 10)
    with pytest.raises(UnreadableFile, match="is a folder, not a regular file"):
        read_regular(tmp_path, 10)


@pytest.mark.parametrize(("rel", "why"), [
    ("pkg/mod.py", None),
    (".env", "hidden"),
    ("pkg/.git/config", "hidden"),
    ("conf/Secrets.py", "secrets"),
    ("my_credentials/x.py", "secrets"),
    ("passwd.py", "secrets"),
    ("config/master.key", "secrets"),
    ("certs/Server.PEM", "secrets"),
    ("deploy/terraform.tfstate", "secrets"),
    ("keys/id_ed25519", "secrets"),
    ("kube/kubeconfig", "secrets"),
    ("store.p12/x.py", "secrets"),
    ("pkg/tokenizer.py", None),
    ("pkg/keys.py", None),
    ("pkg/monkey.py", None),
    ("keyboard/layout.txt", None),
    # Firebase's private key file, and a key's ending before another
    ("serviceAccountKey.json", "secrets"),
    ("config/service-account.json", "secrets"),
    ("certs/server.pem.js", "secrets"),
    ("keys/private-key.json", "secrets"),
    ("pkg/key.value.js", None),
    ("pkg/hotkey.js", None),
    # spelled as Windows opens them: trailing dots and spaces, alternate data streams, case
    ("keys/id_rsa.", "secrets"),
    ("config/master.key ", "secrets"),
    ("certs/server.pem::$DATA", "secrets"),
    ("KEYS/ID_RSA", "secrets"),
    ("Credentials.JSON", "secrets"),
    ("pkg/notes.txt:stream", None),
    # pnpm's store of packages is read; nothing hidden or secret-looking inside it is
    ("node_modules/.pnpm/left-pad@1.3.0/node_modules/left-pad/index.js", None),
    ("node_modules/.pnpm/x@1.0.0/node_modules/x/.env", "hidden"),
    ("node_modules/.pnpm/x@1.0.0/node_modules/x/secrets.js", "secrets"),
    ("src/.pnpm/a.js", "hidden"),
    (".pnpm/a.js", "hidden"),
    ("node_modules/.cache/a.js", "hidden"),
    # so is the site-packages of the workspace's virtual environment, and nothing else of it
    (".venv/lib/python3.12/site-packages/attr/__init__.py", None),
    (".venv/Lib/site-packages/attr/__init__.py", None),
    (".venv/pyvenv.cfg", "hidden"),
    (".venv/bin/activate", "hidden"),
    (".venv/lib/site-packages/x.py", "hidden"),
    (".venv/lib/python3.12/site-packages/.env", "hidden"),
    (".venv/lib/python3.12/site-packages/pkg/secrets.py", "secrets"),
    ("src/.venv/lib/python3.12/site-packages/x.py", "hidden"),
])
def test_one_rule_for_the_files_a_version_or_an_agent_reads(rel: str, why: str | None) -> None:
    refusal = workspace_refusal(PurePosixPath(rel))
    assert (refusal is None) if why is None else (refusal is not None and why in refusal)


def test_windows_name_is_the_file_windows_opens() -> None:
    assert windows_name("id_rsa. . ") == "id_rsa"
    assert windows_name("server.key::$DATA") == "server.key"
    assert windows_name("plain.py") == "plain.py"


def test_a_workspace_file_is_read_only_where_its_links_stay_allowed(
        tmp_path: Path, folder_way: str) -> None:
    root = tmp_path.resolve()
    (root / ".env").write_text("TOKEN=1\n")
    (root / "ok.py").write_text("X = 1\n")
    (root / "link.py").symlink_to(root / ".env")
    os.mkfifo(root / "fifo.py")
    assert read_workspace_file(root, root / "ok.py", 100) == (root / "ok.py", b"X = 1\n")
    for name, why in (("link.py", "hidden"), ("fifo.py", "a FIFO, not a regular file"),
                      ("ok.py", "over the 3")):
        with pytest.raises(RefusedFile, match=why):
            read_workspace_file(root, root / name, 3 if name == "ok.py" else 100)
    with pytest.raises(FileNotFoundError):
        read_workspace_file(root, root / "nope.py", 100)
