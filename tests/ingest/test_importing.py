"""Importing versions from sample-set files, JSON lists and directories into the store."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from codequorum.core.errors import UserError
from codequorum.ingest.importing import import_versions, read_candidates
from codequorum.ingest.store import VersionStore

GOOD_1 = "def add(a, b):\n    return a + b\n"
GOOD_2 = "def add(a, b):\n    total = a\n    total += b\n    return total\n"
BROKEN = "def add(a, b):\n    return (a +\n"
OTHER = "def sub(a, b):\n    return a - b\n"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[VersionStore]:
    s = VersionStore.open(tmp_path / "ws" / ".codequorum" / "samples.sqlite3")
    yield s
    s.close()


def test_jsonl_by_entry_point_from_real_data(store: VersionStore, shared_dir: Path) -> None:
    data = shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl"
    report = import_versions(store, data, "src/close.py", "python", "has_close_elements")
    assert report.task_id == "HumanEval/0"
    assert len(report.stored) + len(report.skipped) == 100
    assert all(reason.startswith("code does not parse") for _, reason in report.skipped)
    rows = store.versions_for("src/close.py", "has_close_elements")
    # every version counts, identical ones too
    assert len(rows) == report.added == len(report.stored) > len(set(report.stored))
    assert report.duplicates == 0
    assert sorted(r.id for r in rows) == sorted(report.stored)
    for row in rows:
        assert row.origin == "imported" and row.language == "python"
        tree = ast.parse(row.code)
        assert len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef)
        assert tree.body[0].name == "has_close_elements"
    # Importing again adds nothing new.
    again = import_versions(store, data, "src/close.py", "python", "has_close_elements")
    assert again.added == 0 and again.duplicates == len(again.stored)
    assert "0 versions" in again.summary() and "already stored" in again.summary()


def _row(shared_dir: Path, task_id: str) -> dict[str, object]:
    with (shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl").open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["task_id"] == task_id:
                return dict(row)
    raise KeyError(task_id)


def test_completions_are_joined_to_their_prompt(
    store: VersionStore, shared_dir: Path, tmp_path: Path
) -> None:
    real = _row(shared_dir, "HumanEval/0")
    prompt, bodies = str(real["prompt"]), list(real["samples"])[:3]  # type: ignore[call-overload]
    whole = GOOD_1.replace("add", "has_close_elements")
    path = tmp_path / "ours.jsonl"
    # our JSONL with completions: no sample_format, no entry_point
    row = {"task_id": real["task_id"], "prompt": prompt, "samples": [*bodies, whole, ""]}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    candidates, task = read_candidates(path, "python", entry_point="has_close_elements")
    assert task == "HumanEval/0"
    assert [c.version.code for c in candidates] == [prompt + b for b in bodies] + [whole, ""]
    report = import_versions(store, path, "src/close.py", "python", "has_close_elements")
    assert len(report.stored) == 4
    assert [label for label, _ in report.skipped] == ["HumanEval/0#5"]
    rows = store.versions_for("src/close.py", "has_close_elements")
    assert rows[0].code.startswith("def has_close_elements(numbers: List[float]")
    assert bodies[0].strip() in rows[0].code


def test_jsonl_by_task_id_for_a_renamed_function(store: VersionStore, tmp_path: Path) -> None:
    path = tmp_path / "sets.jsonl"
    rows = [
        {"task_id": "t/1", "entry_point": "add", "samples": [GOOD_1, BROKEN]},
        {"task_id": "t/2", "entry_point": "add", "samples": [GOOD_2, OTHER], "language": "python"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(UserError, match="several sample sets have entry_point 'add'"):
        import_versions(store, path, "m.py", "python", "add")
    report = import_versions(store, path, "m.py", "python", "add", task_id="t/2")
    assert [r.code for r in store.versions_for("m.py", "add")] == [GOOD_2]
    assert report.skipped == [("t/2#2", "does not define `add`")]
    with pytest.raises(UserError, match="no sample set with task_id 't/9'"):
        import_versions(store, path, "m.py", "python", "add", task_id="t/9")


def test_json_list_of_code_strings(store: VersionStore, tmp_path: Path) -> None:
    path = tmp_path / "versions.json"
    path.write_text(json.dumps([GOOD_1, BROKEN, "import os\n\n" + GOOD_2]))
    report = import_versions(store, path, "m.py", "python", "add")
    assert [r.code for r in store.versions_for("m.py", "add")] == [GOOD_1, GOOD_2]
    assert report.skipped == [
        ("versions.json[1]", "code does not parse: line 2 ('(' was never closed)")
    ]
    assert report.summary() == "imported 2 versions of `add` (1 skipped)"


def test_directory_of_files(store: VersionStore, tmp_path: Path) -> None:
    folder = tmp_path / "versions"
    folder.mkdir()
    (folder / "a.py").write_text("class Calc:\n    def add(self, a, b):\n        return a + b\n")
    (folder / "b.py").write_text("def add(self, a, b):\n    return b + a\n")
    (folder / ".hidden.py").write_text(GOOD_1)
    report = import_versions(store, folder, "calc.py", "python", "Calc.add")
    codes = [r.code for r in store.versions_for("calc.py", "Calc.add")]
    assert codes == [
        "def add(self, a, b):\n    return a + b\n",
        "def add(self, a, b):\n    return b + a\n",
    ]
    assert [r.label for r in store.versions_for("calc.py", "Calc.add")] == ["a", "b"]
    assert report.added == 2 and not report.skipped


def test_chat_answers_in_a_directory_are_their_fenced_code(
        store: VersionStore, tmp_path: Path) -> None:
    folder = tmp_path / "answers"
    folder.mkdir()
    (folder / "1.md").write_text("Here is a cleaner version:\n\n```ts\nconst SEP = '-';\n"
                                 "export function slug(t: string): string {\n"
                                 "  return t.split(' ').join(SEP);\n}\n```\n\nIt splits.\n")
    (folder / "2.ts").write_text("export function slug(t: string): string {\n"
                                 "  return t.replace(/ /g, '-');\n}\n")
    report = import_versions(store, folder, "s.ts", "typescript", "slug")
    assert report.added == 2 and not report.skipped
    assert [r.label for r in store.versions_for("s.ts", "slug")] == ["1", "2"]
    assert "Here is" not in store.versions_for("s.ts", "slug")[0].code


def test_one_file_of_code_or_one_chat_answer_is_one_version(
        store: VersionStore, tmp_path: Path) -> None:
    code = tmp_path / "mine.py"
    code.write_text("import math\n\n" + GOOD_1)
    answer = tmp_path / "answer.txt"
    answer.write_text("Sure! Try this:\n\n```python\n" + GOOD_2 + "```\n")
    first = import_versions(store, code, "m.py", "python", "add")
    second = import_versions(store, answer, "m.py", "python", "add")
    assert (first.added, second.added, first.task_id) == (1, 1, None)
    assert [r.code for r in store.versions_for("m.py", "add")] == [GOOD_1, GOOD_2]
    prose = tmp_path / "prose.md"
    prose.write_text("I cannot help with that.\n")
    report = import_versions(store, prose, "m.py", "python", "add")
    assert report.skipped == [("prose.md", "code does not parse: line 1 (invalid syntax)")]
    refusal = tmp_path / "refusal.md"
    refusal.write_text("```text\nI cannot help with that.\n```\n")
    report = import_versions(store, refusal, "m.py", "python", "add")
    assert report.skipped == [("refusal.md", "no code in the answer")]


def test_unreadable_inputs_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file or directory"):
        read_candidates(tmp_path / "missing.jsonl", "python")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UserError, match="holds no files"):
        read_candidates(empty, "python")
    binary = tmp_path / "blob.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(UserError, match="not UTF-8"):
        read_candidates(binary, "python")
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"task_id": "x", "samples": 3}\n')
    with pytest.raises(UserError, match="no sample sets could be read"):
        read_candidates(junk, "python")


def test_summary_counts_one_version() -> None:
    from codequorum.ingest.importing import ImportReport

    report = ImportReport(source="v.json", file="m.py", qualified_name="add", stored=[7])
    assert report.summary() == "imported 1 version of `add`"


def test_identical_generations_are_all_kept(store: VersionStore, tmp_path: Path) -> None:
    path = tmp_path / "versions.json"
    path.write_text(json.dumps([GOOD_1] * 6))
    report = import_versions(store, path, "m.py", "python", "add")
    assert report.summary() == "imported 6 versions of `add`"
    assert store.count("m.py", "add") == 6 and len(store.versions_for("m.py", "add")) == 6
    path.write_text(json.dumps([GOOD_1] * 7 + [GOOD_2]))
    again = import_versions(store, path, "m.py", "python", "add")
    assert again.summary() == "imported 2 versions of `add` (6 already stored)"
    assert store.count("m.py", "add") == 8
