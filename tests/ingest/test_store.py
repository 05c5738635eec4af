"""The SQLite version store: persistence, dedupe, renames, threads, damaged files."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from codequorum.core.model import Version
from codequorum.ingest.store import (
    MAX_RUN_CHARS,
    RUNS_PER_FUNCTION,
    SCHEMA_VERSION,
    StoreError,
    VersionStore,
    content_hash,
    default_store_path,
)

CODE_A = "def f(x):\n    return x + 1\n"
CODE_B = "def f(x):\n    return 1 + x\n"
CODE_C = "def f(x):\n    y = x\n    return y + 1\n"


def regenerated(code: str, seed: int) -> Version:
    return Version(
        code=code,
        origin="regenerated",
        label=f"s{seed}",
        provider="http://127.0.0.1:1/v1",
        model="m",
        temperature=0.7,
        seed=seed,
    )


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return default_store_path(tmp_path / "ws")


def test_open_creates_folder_wal_and_schema(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        assert store.recovered_from is None
        assert store.warnings == []
    assert store_path.is_file()
    assert store_path.parent.name == ".codequorum"
    conn = sqlite3.connect(store_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    indices = {r[1] for r in conn.execute("PRAGMA index_list(samples)")}
    assert "samples_by_function" in indices
    conn.close()


def test_add_and_read_back_with_metadata(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        ids = store.add(
            "pkg/mod.py",
            "python",
            "f",
            [regenerated(CODE_A, 1), regenerated(CODE_B, 2)],
            prompt_hash="abc",
        )
        assert len(ids) == 2 and ids[0] != ids[1]
        rows = store.versions_for("pkg/mod.py", "f")
    assert [r.code for r in rows] == [CODE_A, CODE_B]
    first = rows[0]
    assert first.id == ids[0]
    assert (first.origin, first.provider, first.model) == (
        "regenerated",
        "http://127.0.0.1:1/v1",
        "m",
    )
    assert (first.temperature, first.seed, first.prompt_hash, first.label) == (0.7, 1, "abc", "s1")
    assert first.language == "python" and first.qualified_name == "f"
    assert first.created > 1_600_000_000
    assert first.content_hash == content_hash(CODE_A)
    assert first.to_version() == regenerated(CODE_A, 1)


def test_identical_code_is_one_row_counting_its_copies(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        [a] = store.add("m.py", "python", "f", [Version(CODE_A)])
        # Same code with CRLF and trailing blanks: the same row, one more copy.
        variant = CODE_A.replace("\n", "  \r\n")
        ids = store.add("m.py", "python", "f", [Version(variant), Version(CODE_B)])
        assert ids[0] == a and ids[1] != a
        assert store.count("m.py", "f") == 3
        assert [(r.id, r.code) for r in store.versions_for("m.py", "f")] == [
            (a, CODE_A), (a, CODE_A), (ids[1], CODE_B)]
        # one copy deleted per id given; the row goes with its last copy
        assert store.delete([a]) == 1 and store.count("m.py", "f") == 2
        assert store.delete([a, a]) == 1 and store.count("m.py", "f") == 1
        # The same code for another function is a separate row.
        [other] = store.add("m.py", "python", "g", [Version(CODE_A)])
        assert other not in (a, ids[1])


def test_reopen_persists(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        store.add("m.py", "python", "C.f", [Version(CODE_A, origin="imported")])
    with VersionStore.open(store_path) as store:
        rows = store.versions_for("m.py", "C.f")
        assert [(r.code, r.origin) for r in rows] == [(CODE_A, "imported")]
        assert store.functions_with_versions("m.py") == ["C.f"]
        assert store.files() == ["m.py"]


def test_functions_with_samples_and_clear(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        store.add("m.py", "python", "g", [Version(CODE_A), Version(CODE_B)])
        store.add("m.py", "python", "f", [Version(CODE_A)])
        store.add("n.py", "python", "f", [Version(CODE_C)])
        assert store.functions_with_versions("m.py") == ["f", "g"]
        assert store.clear("m.py", "g") == 2
        assert store.functions_with_versions("m.py") == ["f"]
        assert store.clear("m.py") == 1
        assert store.functions_with_versions("m.py") == []
        assert store.versions_for("n.py", "f")[0].code == CODE_C


def test_rename_function_moves_members_and_merges_duplicates(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        store.add("m.py", "python", "Old", [Version(CODE_A)])
        store.add("m.py", "python", "Old.method", [Version(CODE_B)])
        store.add("m.py", "python", "Older", [Version(CODE_C)])  # shares a prefix, not a member
        store.add("m.py", "python", "New", [Version(CODE_A)])  # already has CODE_A
        moved = store.rename_function("m.py", "Old", "New")
        assert moved == 1  # Old.method moved; Old's CODE_A merged into New's existing row
        assert store.functions_with_versions("m.py") == ["New", "New.method", "Older"]
        assert [r.code for r in store.versions_for("m.py", "New")] == [CODE_A, CODE_A]
        assert [r.code for r in store.versions_for("m.py", "New.method")] == [CODE_B]
        assert store.rename_function("m.py", "New", "New") == 0


def test_move_file(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        store.add("a.py", "python", "f", [Version(CODE_A), Version(CODE_B)])
        store.add("b.py", "python", "f", [Version(CODE_A)])
        assert store.move_file("a.py", "b.py") == 1
        assert store.files() == ["b.py"]
        # by id; a.py's copy of CODE_A joins b.py's row
        assert [r.code for r in store.versions_for("b.py", "f")] == [CODE_B, CODE_A, CODE_A]


def test_delete_by_id(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        ids = store.add("a.py", "python", "f", [Version(CODE_A), Version(CODE_B)])
        assert store.delete([ids[0], 9999]) == 1
        assert [r.code for r in store.versions_for("a.py", "f")] == [CODE_B]


def test_unknown_origin_is_refused(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        bad = Version(CODE_A, origin="invented")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="origin"):
            store.add("a.py", "python", "f", [bad])
        assert store.count("a.py", "f") == 0


def test_threads_write_and_read_concurrently(store_path: Path) -> None:
    store = VersionStore.open(store_path)
    errors: list[BaseException] = []

    def worker(t: int) -> None:
        try:
            for i in range(25):
                store.add("m.py", "python", f"f{t}", [Version(f"def f{t}():\n    return {i}\n")])
                store.versions_for("m.py", f"f{t}")
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert [store.count("m.py", f"f{t}") for t in range(6)] == [25] * 6
    store.close()


def test_two_stores_on_one_file_see_each_other(store_path: Path) -> None:
    with VersionStore.open(store_path) as a, VersionStore.open(store_path) as b:
        a.add("m.py", "python", "f", [Version(CODE_A)])
        assert [r.code for r in b.versions_for("m.py", "f")] == [CODE_A]


def _damaged(store_path: Path) -> bytes:
    """A store of codequorum's own whose pages after the header are garbage."""
    VersionStore.open(store_path).close()
    data = store_path.read_bytes()
    damaged = data[:100] + b"\xde\xad" * (len(data) // 2)
    store_path.write_bytes(damaged)
    return damaged


def test_a_damaged_store_of_its_own_is_moved_aside(store_path: Path) -> None:
    damaged = _damaged(store_path)
    with VersionStore.open(store_path) as store:
        assert store.recovered_from is not None
        assert store.recovered_from.name.startswith("samples.sqlite3.corrupt-")
        assert store.recovered_from.read_bytes() == damaged
        assert len(store.warnings) == 1 and "moved to" in store.warnings[0]
        store.add("m.py", "python", "f", [Version(CODE_A)])
        assert store.count("m.py", "f") == 1


@pytest.mark.parametrize(("content", "said"), [
    (b"this is not a database\x00\xff" * 300, "not an SQLite database"),
    (b"", "an empty file"),
    (b"github.com:\n  oauth_token: gho_secret\n", "not an SQLite database"),
])
def test_a_file_that_is_not_a_store_is_never_written_nor_moved(
        store_path: Path, content: bytes, said: str) -> None:
    store_path.parent.mkdir(parents=True)
    store_path.write_bytes(content)
    with pytest.raises(StoreError) as info:
        VersionStore.open(store_path)
    assert str(info.value).startswith(f"{store_path}: {said}: not a codequorum version store")
    assert store_path.read_bytes() == content
    assert sorted(p.name for p in store_path.parent.iterdir()) == ["samples.sqlite3"]


def test_truncated_database_is_moved_aside(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        for i in range(300):
            store.add("m.py", "python", "f", [Version(f"def f():\n    return {i}\n" + "#" * 200)])
    # Fold the WAL into the main file, then cut the file in half.
    conn = sqlite3.connect(store_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    data = store_path.read_bytes()
    assert len(data) > 8192
    store_path.write_bytes(data[: len(data) // 2])
    with VersionStore.open(store_path) as store:
        assert store.recovered_from is not None
        assert store.recovered_from.stat().st_size == len(data) // 2
        assert store.count("m.py", "f") == 0


def test_another_programs_database_is_left_as_it_is(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(store_path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('keep me')")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    before = store_path.read_bytes()
    with pytest.raises(StoreError, match="an SQLite database of another program "
                       r"\(application id 0x0, user version 1\): not a codequorum"):
        VersionStore.open(store_path)
    assert store_path.read_bytes() == before


def test_a_store_of_a_newer_codequorum_is_left_as_it_is(store_path: Path) -> None:
    VersionStore.open(store_path).close()
    conn = sqlite3.connect(store_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = store_path.read_bytes()
    with pytest.raises(StoreError, match="newer than this codequorum's"):
        VersionStore.open(store_path)
    assert store_path.read_bytes() == before
    assert sorted(p.name for p in store_path.parent.iterdir()) == [
        ".gitignore", "samples.sqlite3"]


def test_directory_in_the_way_is_a_clear_error(store_path: Path) -> None:
    store_path.mkdir(parents=True)
    with pytest.raises(StoreError, match="a folder: not a codequorum version store"):
        VersionStore.open(store_path)


def test_closed_store_says_so(store_path: Path) -> None:
    store = VersionStore.open(store_path)
    assert not store.closed
    store.close()
    store.close()
    assert store.closed
    with pytest.raises(StoreError, match="closed"):
        store.versions_for("m.py", "f")


def test_a_new_store_has_an_identity_and_says_it_made_the_file(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        assert store.created is True
        assert len(store.store_id) == 32
        first = store.store_id
    with VersionStore.open(store_path) as again:
        assert again.created is False
        assert again.store_id == first
    other = store_path.parent / "other.sqlite3"
    with VersionStore.open(other) as store:
        assert store.store_id != first


def test_a_store_from_before_identities_gets_one_and_is_not_taken_as_made_here(
    store_path: Path,
) -> None:
    with VersionStore.open(store_path) as store:
        store.add("a.py", "python", "f", [Version(code=CODE_A, origin="relayed")])
    conn = sqlite3.connect(store_path)
    conn.execute("DROP TABLE meta")
    conn.commit()
    conn.close()
    with VersionStore.open(store_path) as store:
        assert store.created is False
        assert len(store.store_id) == 32
        assert store.count("a.py", "f") == 1


def test_a_replaced_damaged_store_counts_as_made_here(store_path: Path) -> None:
    _damaged(store_path)
    with VersionStore.open(store_path) as store:
        assert store.recovered_from is not None
        assert store.created is True and store.store_id


def test_new_store_folder_is_kept_out_of_git(store_path: Path, tmp_path: Path) -> None:
    VersionStore.open(store_path).close()
    ignore = store_path.parent / ".gitignore"
    assert ignore.read_text(encoding="utf-8") == (
        "# Made by codequorum: this folder is per user; do not commit it.\n*\n")
    ignore.write_text("!samples.sqlite3\n", encoding="utf-8")  # the user's choice stays
    VersionStore.open(store_path).close()
    assert ignore.read_text(encoding="utf-8") == "!samples.sqlite3\n"
    elsewhere = tmp_path / "data" / "mine.sqlite3"
    VersionStore.open(elsewhere).close()
    assert not (elsewhere.parent / ".gitignore").exists()


def test_schema_1_store_is_upgraded_in_place(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(store_path)
    conn.executescript(
        "CREATE TABLE samples (id INTEGER PRIMARY KEY AUTOINCREMENT, file TEXT NOT NULL,"
        " language TEXT NOT NULL, qualified_name TEXT NOT NULL, code TEXT NOT NULL,"
        " content_hash TEXT NOT NULL, origin TEXT NOT NULL, label TEXT NOT NULL DEFAULT '',"
        " provider TEXT, model TEXT, temperature REAL, seed INTEGER, prompt_hash TEXT,"
        " created REAL NOT NULL, UNIQUE (file, qualified_name, content_hash));"
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "PRAGMA user_version = 1;"
    )
    conn.execute(
        "INSERT INTO samples (file, language, qualified_name, code, content_hash, origin,"
        " created) VALUES ('m.py', 'python', 'f', ?, ?, 'imported', 0)",
        (CODE_A, content_hash(CODE_A)),
    )
    conn.commit()
    conn.close()
    with VersionStore.open(store_path) as store:
        assert store.recovered_from is None
        assert [r.code for r in store.versions_for("m.py", "f")] == [CODE_A]
        store.add("m.py", "python", "f", [Version(CODE_A)])
        assert store.count("m.py", "f") == 2
    conn = sqlite3.connect(store_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    conn.close()


def test_schema_2_store_takes_the_assistants_versions_after_its_upgrade(
        store_path: Path) -> None:
    """A store made before origin ``assistant`` refuses it in its CHECK; opened now, it is
    rebuilt with the new origins, its rows, ids, copies and identity as they were."""
    VersionStore.open(store_path).close()
    conn = sqlite3.connect(store_path)
    conn.executescript(
        "DROP TABLE samples;"
        "CREATE TABLE samples (id INTEGER PRIMARY KEY AUTOINCREMENT, file TEXT NOT NULL,"
        " language TEXT NOT NULL, qualified_name TEXT NOT NULL, code TEXT NOT NULL,"
        " content_hash TEXT NOT NULL, origin TEXT NOT NULL CHECK (origin IN ('regenerated',"
        " 'relayed', 'imported', 'current')), label TEXT NOT NULL DEFAULT '', provider TEXT,"
        " model TEXT, temperature REAL, seed INTEGER, prompt_hash TEXT, created REAL NOT NULL,"
        " copies INTEGER NOT NULL DEFAULT 1 CHECK (copies >= 1),"
        " UNIQUE (file, qualified_name, content_hash));"
        "CREATE INDEX samples_by_function ON samples (file, qualified_name);"
        "PRAGMA user_version = 2;"
    )
    conn.execute(
        "INSERT INTO samples (id, file, language, qualified_name, code, content_hash, origin,"
        " created, copies) VALUES (7, 'm.py', 'python', 'f', ?, ?, 'regenerated', 0, 3)",
        (CODE_A, content_hash(CODE_A)),
    )
    conn.commit()
    with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
        conn.execute("INSERT INTO samples (file, language, qualified_name, code, content_hash,"
                     " origin, created) VALUES ('m.py', 'python', 'f', 'x', 'h', 'assistant', 0)")
    conn.close()
    store_id = ""
    with VersionStore.open(store_path) as store:
        store_id = store.store_id
        assert store.recovered_from is None and not store.created
        rows = store.versions_for("m.py", "f")
        assert [(r.id, r.origin) for r in rows] == [(7, "regenerated")] * 3
        ids = store.add("m.py", "python", "f", [Version(CODE_B, origin="assistant")])
        assert ids[0] > 7
        assert [r.origin for r in store.versions_for("m.py", "f")][-1] == "assistant"
    conn = sqlite3.connect(store_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    objects = {tuple(r) for r in conn.execute("SELECT type, name FROM sqlite_master")}
    assert {("table", "samples"), ("index", "samples_by_function"), ("table", "meta")} <= objects
    assert not any("samples_v3" in str(name) for _, name in objects)
    conn.close()
    with VersionStore.open(store_path) as again:
        assert again.store_id == store_id and again.count("m.py", "f") == 4


def test_a_store_another_process_makes_meanwhile_is_opened_not_replaced(
        store_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two openers race to make the store: the one that comes second opens the first's."""
    import codequorum.ingest.store as module

    build = module._build
    raced: list[Path] = []

    def build_while_another_makes_it(path: Path) -> Path:
        partial = build(path)
        if not raced:
            raced.append(path)
            with VersionStore.open(path) as other:  # the other process wins the race
                other.add("m.py", "python", "f", [Version(CODE_A)])
        return partial

    monkeypatch.setattr(module, "_build", build_while_another_makes_it)
    with VersionStore.open(store_path) as store:
        assert store.created is False
        assert store.count("m.py", "f") == 1
    assert sorted(p.name for p in store_path.parent.iterdir() if ".partial" in p.name) == []


def test_runs_are_remembered_beside_the_versions(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        store.add("m.py", "python", "f", [Version(CODE_A), Version(CODE_B)])
        assert not store.has_runs("m.py", "f")
        assert store.put_run("m.py", "f", "key1", '{"a": 1}', versions="v1")
        assert store.has_runs("m.py", "f")
        assert store.has_runs("m.py", "f", "v1") and not store.has_runs("m.py", "f", "v2")
        assert store.run_record("m.py", "f", "key1") == '{"a": 1}'
        assert store.run_record("m.py", "f", "key2") is None
        assert store.run_record("m.py", "g", "key1") is None
        for k in range(RUNS_PER_FUNCTION + 3):  # only the newest are kept
            store.put_run("m.py", "f", f"more{k}", "{}")
        kept = [k for k in range(RUNS_PER_FUNCTION + 3)
                if store.run_record("m.py", "f", f"more{k}") is not None]
        assert kept == list(range(3, RUNS_PER_FUNCTION + 3))
        assert not store.put_run("m.py", "f", "big", "x" * (MAX_RUN_CHARS + 1))
        store.clear("m.py", "f")
        assert not store.has_runs("m.py", "f")


def test_a_run_record_from_elsewhere_is_read_only_within_its_bounds(store_path: Path) -> None:
    """A store may come with a repository: a record that is too long or not text is not
    read (the caller validates the rest)."""
    VersionStore.open(store_path).close()
    conn = sqlite3.connect(store_path)
    conn.execute("INSERT INTO runs VALUES ('m.py', 'f', 'long', '', ?, 0)",
                 ("x" * (MAX_RUN_CHARS + 1),))
    conn.execute("INSERT INTO runs VALUES ('m.py', 'f', 'blob', '', ?, 0)", (b"\x00" * 10,))
    conn.commit()
    conn.close()
    with VersionStore.open(store_path) as store:
        assert store.run_record("m.py", "f", "long") is None
        assert store.run_record("m.py", "f", "blob") is None


def test_a_store_of_schema_3_gains_the_runs_table_in_place(store_path: Path) -> None:
    with VersionStore.open(store_path) as store:
        store.add("m.py", "python", "f", [Version(CODE_A)])
        store_id = store.store_id
    conn = sqlite3.connect(store_path)
    conn.executescript("DROP TABLE runs; PRAGMA user_version = 3;")
    conn.close()
    with VersionStore.open(store_path) as store:
        assert store.store_id == store_id and not store.created
        assert [s.code for s in store.versions_for("m.py", "f")] == [CODE_A]
        assert store.put_run("m.py", "f", "k", "{}")
    conn = sqlite3.connect(store_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    conn.close()


def test_a_runs_table_with_other_columns_is_not_a_store_of_ours(store_path: Path) -> None:
    VersionStore.open(store_path).close()
    conn = sqlite3.connect(store_path)
    conn.executescript("DROP TABLE runs; CREATE TABLE runs (file TEXT, payload BLOB);")
    conn.close()
    with VersionStore.open(store_path) as store:  # moved aside as damaged, a new one made
        assert store.recovered_from is not None
        assert store.put_run("m.py", "f", "k", "{}")
