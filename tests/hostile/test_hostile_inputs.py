"""Hostile input files: JSON nested past the decoder's stack, a bigcode document nested as
deep, HumanEval rows with bad lines, a 100 MB line, a gzip bomb, binary junk, special
files in a repository. Each run ends normally with one line per bad set (or file) and
the good sets scored, within the memory and time bounds."""

from __future__ import annotations

import gzip
import json
import os
import random
from pathlib import Path

import pytest

from codequorum.core.limits import MAX_JSON_DEPTH

from ._pathological import GOOD, run_cli, scored_ids, write_jsonl

DEEP = "[" * 200_000 + "]" * 200_000


def test_a_jsonl_line_nested_deeply_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text('{"task_id": "deep", "samples": ' + DEEP + "}\n"
                    + '{"task_id": "args", "samples": ["x = 1", "x = 2"], "tests": [{"args": ['
                    + "[" * 150 + "]" * 150 + "]}]}\n" + json.dumps(GOOD) + "\n",
                    encoding="utf-8")
    run = run_cli(["score", str(path), "--format", "json"])
    run.bounded()
    assert run.status == 1 and scored_ids(run) == ["good"]
    assert [line.split(": ", 2)[2] for line in run.error_lines] == [
        f"{path}:1: JSON nested more than {MAX_JSON_DEPTH} levels deep",
        f"{path}:2: JSON nested more than {MAX_JSON_DEPTH} levels deep",
    ]


def test_a_deep_bigcode_entry_costs_that_entry(tmp_path: Path) -> None:
    path = tmp_path / "generations.json"
    path.write_text("[\n" + json.dumps(GOOD["samples"]) + ",\n" + DEEP + ",\n"
                    + json.dumps(GOOD["samples"]) + "\n]", encoding="utf-8")
    run = run_cli(["score", str(path), "--format", "json"])
    run.bounded()
    assert run.status == 1 and scored_ids(run) == ["task/0", "task/2"]
    (line,) = run.error_lines
    assert line.endswith(f"{path}:3 (task/1): JSON nested more than {MAX_JSON_DEPTH} levels "
                         "deep; entry skipped")


def test_a_bigcode_document_is_read_an_entry_at_a_time(tmp_path: Path) -> None:
    # 40 MB on one line, as json.dump writes it: no line or whole-document bound refuses it
    path = tmp_path / "generations.json"
    comment = "# " + "y" * 400_000 + "\n"
    with path.open("w", encoding="utf-8") as f:
        f.write("[")
        for k in range(100):
            entry = [f"def f(x):\n    return x + {k}\n{comment}", "def f(x):\n    return x\n"]
            f.write(("," if k else "") + json.dumps(entry))
        f.write("]")
    assert path.stat().st_size > 40_000_000
    run = run_cli(["score", str(path), "--format", "json", "--no-tsed"])
    run.bounded()
    assert run.status == 0 and len(scored_ids(run)) == 100
    assert run.peak_mb < 600  # the document is never held whole


def test_humaneval_rows_with_bad_lines(tmp_path: Path) -> None:
    rows = [json.dumps({"task_id": "T/0", "completion": "    return x\n"}),
            '{"task_id": "T/1", "completion": ' + DEEP + "}",
            '{"task_id": "T/2", "completion": ' + "9" * 5000 + "}",
            "\x00\x01\x02 not json",
            json.dumps({"task_id": "T/0", "completion": "    return x + 0\n"})]
    path = tmp_path / "samples.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    run = run_cli(["score", str(path), "--input-format", "humaneval", "--format", "json"])
    run.bounded()
    assert run.status == 1 and scored_ids(run) == ["T/0"]
    messages = [line.split(f"{path}:", 1)[1] for line in run.error_lines]
    assert messages[0] == f"2: JSON nested more than {MAX_JSON_DEPTH} levels deep"
    assert messages[1].startswith("3: unreadable JSON: Exceeds the limit")
    assert messages[2].startswith("4: broken JSON")


def test_a_hundred_megabyte_line_is_skipped_unread(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    with path.open("w", encoding="utf-8") as f:
        f.write('{"task_id": "long", "samples": ["')
        for _ in range(100):
            f.write("x" * (1 << 20))
        f.write('"]}\n' + json.dumps(GOOD) + "\n")
    run = run_cli(["score", str(path), "--format", "json"])
    run.bounded()
    assert run.status == 1 and scored_ids(run) == ["good"]
    (line,) = run.error_lines
    assert line.endswith(f"{path}:1: line longer than 32 MB; skipped (at most 32 MB are read a "
                         "line)")
    assert run.peak_mb < 350  # the line was never held, let alone decoded


def test_a_gzip_bomb_on_standard_input(tmp_path: Path) -> None:
    buffer = tmp_path / "bomb.jsonl.gz"
    with gzip.open(buffer, "wb", compresslevel=9) as f:
        f.write(b'{"task_id": "bomb", "samples": ["')
        block = b"0" * (1 << 20)
        for _ in range(300):
            f.write(block)
        f.write(b'"]}\n' + json.dumps(GOOD).encode() + b"\n")
    assert buffer.stat().st_size < 2_000_000
    run = run_cli(["score", "-", "--format", "json"], stdin=buffer.read_bytes())
    run.bounded()
    assert scored_ids(run) == ["good"]
    (line,) = run.error_lines
    assert "<stdin>:1: line longer than 32 MB" in line
    assert run.peak_mb < 350


def test_a_binary_file_as_input(tmp_path: Path) -> None:
    rng = random.Random(11)
    path = tmp_path / "blob.jsonl"
    path.write_bytes(bytes(rng.randrange(256) for _ in range(300_000)) + b"\x00" * 1000)
    run = run_cli(["score", str(path), str(write_jsonl(tmp_path / "good.jsonl", [GOOD]))])
    run.bounded()
    assert run.status == 2  # the format cannot be told: the other file is still scored
    assert "cannot tell the input format" in run.err and "good" in run.out


def test_a_deep_problems_file_is_one_error(tmp_path: Path) -> None:
    problems = tmp_path / "problems.jsonl"
    problems.write_text('{"task_id": "T/0", "prompt": ' + DEEP + "}\n", encoding="utf-8")
    versions = write_jsonl(tmp_path / "s.jsonl", [{"task_id": "T/0", "completion": "x"}])
    run = run_cli(["score", str(versions), "--problems", str(problems)])
    run.bounded()
    assert run.status == 1
    assert run.err.strip() == (f"codequorum: error: {problems}:1: JSON nested more than "
                               f"{MAX_JSON_DEPTH} levels deep")


def test_check_skips_special_files_in_a_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".codequorum").mkdir()
    os.mkfifo(repo / "pipe.py")  # nobody ever writes to it
    (repo / "zero.py").symlink_to("/dev/zero")
    (repo / "big.py").write_text("x = 1\n" * 500_000, encoding="utf-8")
    (repo / "ok.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    from codequorum.ingest.store import VersionStore, default_store_path

    VersionStore.open(default_store_path(repo)).close()
    run = run_cli(["check", str(repo)], timeout=120)
    run.bounded()
    assert run.status == 0
    notes = sorted(line for line in run.err.splitlines() if "skipped" in line)
    assert notes == [
        f"codequorum: {repo / 'big.py'} is larger than 2 MB; skipped",
        f"codequorum: {repo / 'pipe.py'} is a FIFO, not a regular file; skipped",
        f"codequorum: {repo / 'zero.py'}: a symlink out of {repo}, skipped",
    ]


@pytest.mark.parametrize("fmt", ["jsonl", "humaneval"])
def test_a_line_past_the_bound_of_bad_utf8_and_nul(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "mixed.jsonl"
    good = json.dumps(GOOD if fmt == "jsonl" else {"task_id": "good", "completion": "x = 1"})
    path.write_bytes(b"\xff\xfe\x00garbage\n" + b"\x00" * 100 + b"\n" + good.encode() + b"\n")
    run = run_cli(["score", str(path), "--input-format", fmt, "--format", "json"])
    run.bounded()
    assert scored_ids(run) == ["good"]
    assert len(run.error_lines) == 2 and "not valid UTF-8" in run.error_lines[0]


def test_a_gzip_bomb_of_many_lines_stops_at_what_score_holds(tmp_path: Path) -> None:
    # 200 lines of 1.5 MB sets, 300 MB once decompressed: score reads every set before
    # scoring them, so it stops reading at what it holds at once, in one error line
    path = tmp_path / "many.jsonl.gz"
    line = (json.dumps({"task_id": "t", "samples": ["#" * 1_500_000, "x = 1"]}) + "\n").encode()
    with gzip.open(path, "wb", compresslevel=9) as f:
        f.write(json.dumps(GOOD).encode() + b"\n")
        for _ in range(200):
            f.write(line)
    assert path.stat().st_size < 2_000_000
    run = run_cli(["score", str(path), "--format", "json"])
    run.bounded()
    assert run.status == 1 and scored_ids(run) == ["good"]
    assert run.error_lines[0].endswith("stopped reading: the sets hold more than 256 MB of "
                                        "text, as much as score holds at once; the rest is not "
                                        "scored (score --scheduler local:2 streams inputs of "
                                        "any size)")
    assert all("version 1 is 1.4 MB of code" in e for e in run.error_lines[1:])
    assert run.peak_mb < 700
