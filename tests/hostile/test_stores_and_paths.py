"""What codequorum writes is the user's choice: a repository's symlinks, files and settings
cannot lead a write, a rename or a new store out of the workspace, and a file that is not
provably a store of codequorum's own is never written, moved or replaced.

Each case runs the real command (``check``, ``sample``, ``score -o``) as a subprocess, or the
real language server over stdio, in a hostile repository beside a fake home folder.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest
from lsprotocol import types

from codequorum.ingest.store import VersionStore

from ..lsp.conftest import lsp_session
from ..lsp.helpers import command, open_document, wait_for
from .conftest import QUICK, SOURCE, Hostile, one_line_error

VERSIONS = ["def f(x):\n    return x + 1\n", "def f(x):\n    return 1 + x\n",
            "def f(x):\n    y = x\n    return y + 1\n"]


def _store(hostile: Hostile) -> Path:
    return hostile.repo / ".codequorum" / "samples.sqlite3"


def _no_corrupt_copies(root: Path) -> None:
    assert [p for p in root.rglob("*") if ".corrupt-" in p.name or ".partial" in p.name] == []


# ----------------------------------------------------------------------------- the store


@pytest.mark.parametrize("target", [".config/gh/hosts.yml", "empty.db", "new-file.sqlite3"])
def test_a_symlinked_store_file_is_refused(hostile: Hostile, target: str) -> None:
    _store(hostile).parent.mkdir()
    _store(hostile).symlink_to(hostile.home / target)
    before = hostile.home_snapshot()
    for argv in (["check", "src"], ["sample", "src/mod.py", "-f", "f", "--from", "samples.jsonl"]):
        result = hostile.run(*argv)
        assert result.returncode != 0, result.stderr
        one_line_error(result, f"{_store(hostile)} is a symlink out of the workspace",
                       str(hostile.home / target))
    assert hostile.home_snapshot() == before
    assert not (hostile.home / "new-file.sqlite3").exists()
    _no_corrupt_copies(hostile.home)


def test_a_symlinked_store_folder_is_refused(hostile: Hostile) -> None:
    (hostile.repo / ".codequorum").symlink_to(hostile.home / ".config")
    before = hostile.home_snapshot()
    result = hostile.run("sample", "src/mod.py", "-f", "f", "--from", "samples.jsonl")
    assert result.returncode != 0
    one_line_error(result, f"{hostile.repo / '.codequorum'} is a symlink out of the workspace")
    assert hostile.home_snapshot() == before


def _foreign_sqlite(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE cookies (host TEXT, value TEXT)")
        db.execute("INSERT INTO cookies VALUES ('example.com', 'secret')")
        db.execute("PRAGMA user_version = 2")
    db.close()


@pytest.mark.parametrize(("make", "said"), [
    (lambda p: p.write_bytes(b""), "an empty file"),
    (lambda p: p.write_text("github.com:\n  oauth_token: x\n"), "not an SQLite database"),
    (_foreign_sqlite, "an SQLite database of another program"),
    (os.mkfifo, "a FIFO"),
    (os.mkdir, "a folder"),
])
def test_what_is_not_a_store_of_codequorums_own_is_never_written_nor_moved(
        hostile: Hostile, make: object, said: str) -> None:
    store = _store(hostile)
    store.parent.mkdir()
    make(store)  # type: ignore[operator]
    before = (store.stat().st_mode, store.read_bytes() if store.is_file() else b"")
    started = time.monotonic()
    result = hostile.run("sample", "src/mod.py", "-f", "f", "--from", "samples.jsonl",
                         timeout=QUICK)
    assert time.monotonic() - started < QUICK
    assert result.returncode != 0
    one_line_error(result, str(store), said, "not a codequorum version store")
    assert (store.stat().st_mode, store.read_bytes() if store.is_file() else b"") == before
    assert sorted(p.name for p in store.parent.iterdir()) == ["samples.sqlite3"]


def test_a_symlinked_side_file_of_a_real_store_is_refused(hostile: Hostile) -> None:
    store = _store(hostile)
    VersionStore.open(store).close()
    (store.parent / "samples.sqlite3-wal").symlink_to(hostile.home / ".bashrc")
    before = hostile.home_snapshot()
    result = hostile.run("sample", "src/mod.py", "-f", "f", "--from", "samples.jsonl")
    assert result.returncode != 0
    one_line_error(result, "samples.sqlite3-wal", "a symlink")
    assert hostile.home_snapshot() == before


def test_the_users_own_store_outside_the_workspace_is_the_users_choice(
        hostile: Hostile) -> None:
    mine = hostile.home.parent / "elsewhere" / "versions.sqlite3"
    result = hostile.run("sample", "src/mod.py", "-f", "f", "--from", "samples.jsonl",
                         "--store", str(mine))
    assert result.returncode == 0, result.stderr
    with VersionStore.open(mine) as store:
        assert store.count("src/mod.py", "f") == 3
    checked = hostile.run("check", "src", "--store", str(mine), "--format", "json")
    assert checked.returncode in (0, 1), checked.stderr


# ----------------------------------------------------------------------------- -o


@pytest.mark.parametrize(("link", "target"), [
    ("report.json", ".bashrc"),
    ("report.json", "brand-new.json"),
    ("out", ""),
])
def test_score_output_through_a_symlink_out_of_the_repository_is_refused(
        hostile: Hostile, link: str, target: str) -> None:
    (hostile.repo / link).symlink_to(hostile.home / target)
    output = "out/report.json" if link == "out" else link
    before = hostile.home_snapshot()
    result = hostile.run("score", "samples.jsonl", "--format", "json", "-o", output)
    assert result.returncode == 2
    one_line_error(result, f"{hostile.repo / link} is a symlink out of the workspace")
    assert hostile.home_snapshot() == before


def test_score_output_through_a_symlink_inside_the_repository_is_written(
        hostile: Hostile) -> None:
    (hostile.repo / "runs").mkdir()
    (hostile.repo / "latest.json").symlink_to(hostile.repo / "runs" / "report.json")
    result = hostile.run("score", "samples.jsonl", "--format", "json", "-o", "latest.json")
    assert result.returncode == 0, result.stderr
    assert (hostile.repo / "latest.json").is_symlink()
    assert '"task_id": "t/0"' in (hostile.repo / "runs" / "report.json").read_text()


# ----------------------------------------------------------------------------- the editor


async def test_the_language_server_refuses_a_symlinked_store(hostile: Hostile) -> None:
    (hostile.repo / ".codequorum").mkdir()
    _store(hostile).symlink_to(hostile.home / ".config" / "gh" / "hosts.yml")
    before = hostile.home_snapshot()
    async with lsp_session(hostile.repo, env={"HOME": str(hostile.home)}) as client:
        uri = open_document(client, hostile.repo / "src" / "mod.py", SOURCE)
        with pytest.raises(Exception, match="symlink out of the workspace"):
            await command(client, "codequorum.addVersions", uri, "f", VERSIONS)
        await wait_for(lambda: any("symlink out of the workspace" in m.message
                                   for m in client.messages))
        assert (await command(client, "codequorum.analyze", uri, "f"))["qualifiedName"] == "f"
    assert hostile.home_snapshot() == before
    _no_corrupt_copies(hostile.home)


async def test_the_workspace_cannot_choose_the_servers_store(hostile: Hostile) -> None:
    """Neither the workspace's ``codequorum.toml`` nor a workspace folder's own settings
    (``workspace/configuration`` with its scopeUri: its ``.vscode/settings.json``) move the
    store, the endpoint, the sandbox or what is shown."""
    hosts = hostile.home / ".config" / "gh" / "hosts.yml"
    hostile.write("codequorum.toml", f'[check]\nstore = "{hosts}"\n')
    scoped = {hostile.repo: {"codequorum": {
        "store": {"path": str(hostile.home / "empty.db")},
        "provider": {"baseUrl": "https://collect.example/v1", "apiKeyEnv": "CQ_TEST_KEY"},
        "dynamic": {"sandbox": "weak", "auto": True},
        "diagnostics": {"minSeverity": "error"},
    }}}
    before = hostile.home_snapshot()
    async with lsp_session(hostile.repo, env={"HOME": str(hostile.home)},
                           configuration={"codequorum": {}},
                           folder_configuration=scoped) as client:
        uri = open_document(client, hostile.repo / "src" / "mod.py", SOURCE)
        added = await command(client, "codequorum.addVersions", uri, "f", VERSIONS)
        assert added["total"] == 3
        warnings = await wait_for(lambda: [m.message for m in client.messages
                                           if m.type == types.MessageType.Warning] or None)
        await wait_for(lambda: len([m for m in client.messages
                                    if "workspace folder" in m.message]) >= 6)
        texts = [m.message for m in client.messages]
    assert hostile.home_snapshot() == before
    with VersionStore.open(_store(hostile)) as store:
        assert store.count("src/mod.py", "f") == 3
    assert any('store = "' in t and "cannot choose the version store" in t for t in warnings)
    for key in ("store.path", "provider.baseUrl", "provider.apiKeyEnv", "dynamic.sandbox",
                "dynamic.auto", "diagnostics.minSeverity"):
        assert any(f"codequorum.{key} = " in t and "a workspace's settings cannot" in t
                   for t in texts), key


def _refused_once_made(hostile: Hostile, statements: list[str], said: str) -> None:
    """A store codequorum made, then changed by the repository (``statements``): taking
    versions into it is one line of error saying ``said``, and the file stays as it was."""
    store = _store(hostile)
    VersionStore.open(store).close()
    with sqlite3.connect(store) as db:
        for statement in statements:
            db.execute(statement)
    db.close()
    before = store.read_bytes()
    result = hostile.run("sample", "src/mod.py", "-f", "f", "--from", "samples.jsonl")
    assert result.returncode != 0
    one_line_error(result, said, "not a codequorum version store")
    assert store.read_bytes() == before


def test_a_store_with_objects_codequorum_never_makes_is_refused(hostile: Hostile) -> None:
    """A committed store with codequorum's header and a trigger of the repository's own."""
    _refused_once_made(hostile, [
        "CREATE TABLE loot (x TEXT)",
        "CREATE TRIGGER grab AFTER INSERT ON samples BEGIN INSERT INTO loot VALUES (new.code); "
        "END"], "holds what a codequorum store does not (table loot, trigger grab)")


def test_a_trigger_named_as_sqlite_s_own_is_refused_too(hostile: Hostile) -> None:
    """``PRAGMA writable_schema`` lets a committed store hold a trigger named ``sqlite_*``
    that rewrites every version written: a name is not what makes an object SQLite's."""
    _refused_once_made(hostile, [
        "PRAGMA writable_schema = ON",
        "INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES ('trigger', "
        "'sqlite_evil', 'samples', 0, 'CREATE TRIGGER sqlite_evil AFTER INSERT ON samples "
        "BEGIN UPDATE samples SET code = ''x'' WHERE id = new.id; END')"],
        "holds what a codequorum store does not (trigger sqlite_evil)")


@pytest.mark.parametrize("column", [
    "ALTER TABLE samples ADD COLUMN pad BLOB GENERATED ALWAYS AS (zeroblob(50000000)) VIRTUAL",
    "ALTER TABLE runs ADD COLUMN pad BLOB GENERATED ALWAYS AS (zeroblob(50000000)) VIRTUAL",
])
def test_a_table_that_computes_on_every_write_is_refused(hostile: Hostile, column: str) -> None:
    """A generated column (or a ``CHECK``) of the file's own runs on every row written and
    does not show in ``PRAGMA table_info``: the tables' SQL must be ours word for word."""
    _refused_once_made(hostile, [column],
                       f"its {column.split()[2]} table is not as codequorum makes it")


def test_check_skips_special_files_and_symlinks_out_of_the_walked_folder(
        hostile: Hostile) -> None:
    """``check src`` walks the repository's folder: a FIFO, a symlink to ``/dev/zero`` or to
    a file in the home folder, named like source files, are skipped at once, never read."""
    src = hostile.repo / "src"
    os.mkfifo(src / "pipe.py")
    (src / "zero.py").symlink_to("/dev/zero")
    (src / "profile.py").symlink_to(hostile.home / ".bashrc")
    with (src / "huge.py").open("wb") as fh:
        fh.truncate(2 * 1024**3)
    VersionStore.open(_store(hostile)).close()
    started = time.monotonic()
    result = hostile.run("check", "src", "-v", timeout=QUICK)
    assert time.monotonic() - started < QUICK
    assert result.returncode == 0, result.stderr
    for said in ("pipe.py is a FIFO, not a regular file; skipped",
                 "zero.py: a symlink out of src, skipped",
                 "profile.py: a symlink out of src, skipped",
                 "huge.py is larger than 2 MB; skipped"):
        assert said in result.stderr, (said, result.stderr)


@pytest.mark.parametrize("make", ["deep", "fifo"])
def test_a_compare_report_the_project_names_is_read_bounded(hostile: Hostile, make: str) -> None:
    """``compare`` may come from a project's file: a report nested 200,000 levels deep is
    one line (not a RecursionError traceback), a FIFO in its place does not hang."""
    report = hostile.repo / "other.json"
    if make == "deep":
        report.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    hostile.write("codequorum.toml", '[score]\ncompare = "other.json"\nformat = "html"\n')
    if make == "fifo":
        os.mkfifo(report)
        hostile.write("codequorum.toml", '[score]\nformat = "html"\n')
    args = ["score", "samples.jsonl", "-o", str(hostile.home.parent / "out.html")]
    result = hostile.run(*args, *(["--compare", "other.json"] if make == "fifo" else []),
                         timeout=QUICK)
    assert result.returncode != 0
    one_line_error(result, "--compare ", "other.json")


@pytest.mark.parametrize("place", ["file", "from", "from-folder"])
def test_sample_reads_only_bounded_regular_files(hostile: Hostile, place: str) -> None:
    """``sample``'s FILE, its ``--from`` file and each file of a ``--from`` folder: a FIFO
    or a 3 GB sparse file in their place is one line at once, never read whole."""
    hostile.write("versions/a.py", SOURCE)
    special = {"file": hostile.repo / "src" / "big.py",
               "from": hostile.repo / "big.jsonl",
               "from-folder": hostile.repo / "versions" / "b.py"}[place]
    with special.open("wb") as fh:
        fh.truncate(3 * 10**9)
    argv = {"file": ["sample", "src/big.py", "-f", "f", "--from", "samples.jsonl"],
            "from": ["sample", "src/mod.py", "-f", "f", "--from", "big.jsonl"],
            "from-folder": ["sample", "src/mod.py", "-f", "f", "--from", "versions"]}[place]
    result = hostile.run(*argv, timeout=QUICK)
    assert result.returncode != 0
    one_line_error(result, special.name, "larger than")
    special.unlink()
    os.mkfifo(special)
    result = hostile.run(*argv, timeout=QUICK)
    if place == "from-folder":  # a FIFO in a folder is not a file to import: skipped
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode != 0
        one_line_error(result, special.name, "a FIFO")
