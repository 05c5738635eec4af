"""Reading the inputs of ``score``: files, and folders of them."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from codequorum.ingest.version_files import ReadOptions
from codequorum.pipeline.score import read_inputs


def _row(task: str) -> str:
    return json.dumps({"task_id": task, "versions": ["x = 1\n", "x = 2\n"]}) + "\n"


def test_a_folder_is_read_as_its_sample_set_files_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "b.jsonl").write_text(_row("b"))
    with gzip.open(folder / "a.json.gz", "wt") as f:
        f.write(_row("a"))
    (folder / "notes.txt").write_text(_row("not read"))
    (folder / "inner").mkdir()
    (folder / "inner" / "c.jsonl").write_text(_row("not read"))
    secret = tmp_path / "secret.jsonl"
    secret.write_text(_row("secret"))
    (folder / "link.jsonl").symlink_to(secret)  # a link in a folder is not followed
    sets, sources, errors = read_inputs([str(folder), str(secret)], ReadOptions())
    assert [s.task_id for s in sets] == ["a", "b", "secret"]
    assert sources == [str(folder / "a.json.gz"), str(folder / "b.jsonl"), str(secret)]
    assert errors == []


def test_a_folder_without_sample_set_files_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "other.jsonl").write_text(_row("other"))
    sets, _sources, errors = read_inputs([str(tmp_path / "empty"), str(tmp_path / "other.jsonl")],
                                         ReadOptions())
    assert [s.task_id for s in sets] == ["other"]  # the other input is still read
    (error,) = errors
    assert error.source == str(tmp_path / "empty")
    assert error.message == ("no sample-set files in this folder (.jsonl, .json, .jsonl.gz, "
                             ".json.gz)")
