"""A version store that comes with a repository holds values of the wrong type in its
columns (SQLite keeps whatever it is given): a blob for the code, text for a number, a
number for a name. Each value is read as its column's type, so such a row costs that value,
never the run: every function is checked, the server and the agent's tool answer, and no
traceback is shown."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from codequorum.core.model import Version
from codequorum.ingest.store import (
    MAX_FIELD_CHARS,
    MAX_FILE_FUNCTIONS,
    StoreError,
    VersionStore,
    default_store_path,
)

from ..agents.conftest import call, mcp_session, text_of
from ..support.hostile_names import raw_characters
from ._pathological import run_cli

SOURCE = "def f(x):\n    return x + 1\n\n\ndef g(x):\n    return x\n"
#: One column of f's first row each, given a value of another type (no constraint breaks).
MISTYPED = {
    "created": "'yesterday'", "temperature": "'hot'", "seed": "'abc'",
    "model": "X'1b5d303b7807'", "provider": "X'ff'", "code": "X'00ff41'",
    "language": "X'ff'", "content_hash": "5", "label": "X'1b5b324a'", "prompt_hash": "1.5",
}


def _repository(root: Path, column: str, value: str) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / "m.py").write_text(SOURCE, encoding="utf-8")
    store = default_store_path(root)
    with VersionStore.open(store) as opened:
        opened.add("m.py", "python", "f", [Version(code=c) for c in (
            "def f(x):\n    return x + 1\n", "def f(x):\n    return 1 + x\n",
            "def f(x):\n    return x * 3\n")])
        opened.add("m.py", "python", "g", [Version(code=c) for c in (
            "def g(x):\n    return x\n", "def g(x):\n    return -x\n")])
    with sqlite3.connect(store) as db:
        db.execute(f"UPDATE samples SET {column} = {value} WHERE id = "
                   "(SELECT min(id) FROM samples WHERE qualified_name = 'f')")
    db.close()
    return root


@pytest.mark.parametrize("column", sorted(MISTYPED))
def test_a_mistyped_stored_value_costs_that_value_not_the_check(tmp_path: Path,
                                                                 column: str) -> None:
    root = _repository(tmp_path / "repo", column, MISTYPED[column])
    run = run_cli(["check", str(root), "--format", "json", "--fail-on", "never"])
    assert run.status == 0, run.err
    assert "Traceback" not in run.err and "could not be analysed" not in run.err, run.err
    summary = json.loads(run.out)["summary"]
    assert summary["functions_checked"] == 2, summary
    assert raw_characters(run.out, newlines=True) == []


async def test_the_agents_tool_reads_a_mistyped_store(tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo", "created", "'yesterday'")
    with sqlite3.connect(default_store_path(root)) as db:
        db.execute("UPDATE samples SET temperature = 'hot', model = X'1b5d303b7807'")
    db.close()
    async with mcp_session(root) as session:
        for name in ("f", "g"):
            result = await call(session, "check_function", {"path": "m.py", "function": name})
            assert not result.is_error, text_of(result)
            assert result.structured_content is not None
            assert result.structured_content["versions"] == (3 if name == "f" else 2)


@pytest.mark.parametrize("key", ["m\0.py", "a" * 300 + ".py", "a" * 300 + "/m.py"])
def test_a_stored_file_key_no_file_can_have_costs_only_its_current_code(
        tmp_path: Path, key: str) -> None:
    """A store's file key is the repository's to write: one holding a NUL byte, or a name
    longer than a file name may be, made ``export`` stop with a traceback when it read that
    file's current code; it is exported without it, with a note, beside the others."""
    root = _repository(tmp_path / "repo", "created", "created")
    with sqlite3.connect(default_store_path(root)) as db:
        db.execute("UPDATE samples SET file = ? WHERE qualified_name = 'g'", (key,))
    db.close()
    run = run_cli(["export", "--workspace", str(root), "-o", "-"])
    assert run.status == 0, run.err
    assert "Traceback" not in run.err, run.err
    exported = [json.loads(line) for line in run.out.splitlines()]
    assert sorted(row["qualified_name"] for row in exported) == ["f", "g"]


#: A label, a model name, a hash of 20 MB: a store that git holds in a few KB.
HUGE = 20 * 1024 * 1024


@pytest.mark.parametrize("column", ["label", "provider", "model", "language", "content_hash",
                                    "prompt_hash"])
def test_a_huge_stored_value_is_read_only_so_far(tmp_path: Path, column: str) -> None:
    root = _repository(tmp_path / "repo", column, f"printf('%.*c', {HUGE}, 'x')")
    with VersionStore.open(default_store_path(root)) as store:
        versions = store.versions_for("m.py", "f")
    assert len(versions) == 3
    value = getattr(versions[0], column)
    assert value == "x" * MAX_FIELD_CHARS


def test_names_no_function_has_and_names_past_any_count_are_not_read(tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo", "label", "'plain'")
    store = default_store_path(root)
    with sqlite3.connect(store) as db:
        db.execute("INSERT INTO samples (file, language, qualified_name, code, content_hash,"
                   " origin, label, created) VALUES ('m.py', 'python', printf('%.*c', ?, 'n'),"
                   " 'def f(): pass', 'h', 'imported', '', 0)", (HUGE,))
        db.executemany(
            "INSERT INTO samples (file, language, qualified_name, code, content_hash, origin,"
            " label, created) VALUES (?, 'python', ?, 'def f(): pass', 'h', 'imported', '', 0)",
            [(f"w{i}.py" if i % 2 else "m.py", f"f{i}") for i in range(2 * MAX_FILE_FUNCTIONS)])
        db.execute("INSERT INTO samples (file, language, qualified_name, code, content_hash,"
                   " origin, label, created) VALUES (printf('%.*c', ?, 'p'), 'python', 'f',"
                   " 'def f(): pass', 'h', 'imported', '', 0)", (HUGE,))
    db.close()
    with VersionStore.open(store) as opened:
        names = opened.functions_with_versions("m.py")
        files = opened.files()
    assert len(names) == MAX_FILE_FUNCTIONS
    assert "f" in names
    assert max(len(n) for n in names) <= MAX_FIELD_CHARS
    assert "m.py" in files and max(len(f) for f in files) <= MAX_FIELD_CHARS


def test_a_store_whose_table_refuses_every_row_is_one_error(tmp_path: Path) -> None:
    """The table has codequorum's columns, but a constraint of the repository's making
    refuses every row: the store is refused at once, one error naming it (its table is not
    as codequorum makes it), never an internal one, and nothing is written."""
    store = tmp_path / "samples.sqlite3"
    with VersionStore.open(store):
        pass
    with sqlite3.connect(store) as db:
        sql = db.execute("SELECT sql FROM sqlite_master WHERE name = 'samples'").fetchone()[0]
        db.executescript(
            "PRAGMA writable_schema = ON;"
            "UPDATE sqlite_master SET sql = " + "'" + sql.replace("'", "''").replace(
                "UNIQUE (", "CHECK (length(code) < 0),\n    UNIQUE (") + "'"
            " WHERE name = 'samples';"
            "PRAGMA writable_schema = OFF;")
    db.close()
    before = store.read_bytes()
    with pytest.raises(StoreError, match="its samples table is not as codequorum makes it: "
                       "not a codequorum version store"):
        VersionStore.open(store)
    assert store.read_bytes() == before
