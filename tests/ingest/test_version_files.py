"""Reading sample sets: codequorum JSONL, HumanEval sample rows, bigcode generations."""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path
from typing import IO, Any, cast

import jsonschema
import pytest

from codequorum.core.errors import UnknownFormatError, UnknownLanguageError, UserError
from codequorum.core.model import VersionSet
from codequorum.ingest.version_files import (
    ReadError,
    ReadOptions,
    detect_format,
    load_problems,
    read_many,
    read_version_sets,
)

REPO = Path(__file__).resolve().parents[2]
PROMPT = "def add(a, b):\n"


def _write_lines(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def _sets(results: list[VersionSet | ReadError]) -> list[VersionSet]:
    return [r for r in results if isinstance(r, VersionSet)]


def _errors(results: list[VersionSet | ReadError]) -> list[ReadError]:
    return [r for r in results if isinstance(r, ReadError)]


@pytest.fixture(scope="module")
def version_set_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((REPO / "shared" / "sample-set.schema.json").read_text())
    return schema


def test_jsonl_rows_become_sample_sets(tmp_path: Path, version_set_schema: dict[str, Any]) -> None:
    rows = [
        {"task_id": "t/0", "samples": ["x = 1\n", "y = 2\n"], "language": "py"},
        {"task_id": 7, "prompt": PROMPT, "samples": ["    return a + b\n"],
         "sample_format": "completion (append to prompt)", "entry_point": "add",
         "tests": "def check(candidate):\n    assert candidate(1, 2) == 3\n"},
        {"task_id": "t/2", "samples": [{"code": "a = 1", "label": "first", "model": "m",
                                        "temperature": 0.2, "seed": 3}, "b = 2"],
         "tests": [{"args": [1, 2], "expected": 3}, {"kind": "stdio", "stdin": "1 2\n",
                                                     "expected": "3\n"}]},
    ]
    for row in rows:
        jsonschema.validate(row, version_set_schema)
    results = list(read_version_sets(_write_lines(tmp_path / "s.jsonl", rows)))
    assert not _errors(results)
    a, b, c = _sets(results)
    assert (a.task_id, a.language, a.codes, a.source_line) == ("t/0", "python",
                                                               ["x = 1\n", "y = 2\n"], 1)
    assert b.task_id == "7"
    assert b.codes == [PROMPT + "    return a + b\n"]  # completions joined
    assert b.entry_point == "add"
    assert b.tests[0].kind == "check" and "candidate(1, 2)" in (b.tests[0].source or "")
    assert c.versions[0].label == "first" and c.versions[0].temperature == 0.2
    assert c.versions[0].seed == 3 and c.versions[1].label == "v2"
    assert c.tests[0].kind == "call" and c.tests[0].args == (1, 2)
    assert c.tests[0].has_expected and c.tests[0].expected == 3
    assert c.tests[1].kind == "stdio" and c.tests[1].stdin == "1 2\n"


def test_a_set_names_the_model_of_its_versions(tmp_path: Path) -> None:
    rows = [{"task_id": "a", "model": "m-7b", "samples": ["x = 1\n", {"code": "y = 2\n",
                                                                      "model": "other"}]},
            {"task_id": "b", "model": 7, "samples": ["x = 1\n"]}]
    a, b = _sets(list(read_version_sets(_write_lines(tmp_path / "s.jsonl", rows))))
    assert [s.model for s in a.versions] == ["m-7b", "other"]  # a version's own name wins
    assert [s.model for s in b.versions] == [None]  # not a name


def test_completions_switch(tmp_path: Path) -> None:
    rows = [{"task_id": "a", "prompt": PROMPT, "samples": ["    return a + b\n"]},
            {"task_id": "b", "prompt": PROMPT, "samples": ["    return b + a\n"],
             "sample_format": "completion"}]
    path = _write_lines(tmp_path / "s.jsonl", rows)
    auto = _sets(list(read_version_sets(path)))
    assert auto[0].codes == [PROMPT + "    return a + b\n"]  # no sample_format: it completes
    assert auto[1].codes == [PROMPT + "    return b + a\n"]
    empty = _write_lines(tmp_path / "e.jsonl", [{"task_id": "e", "prompt": PROMPT,
                                                 "sample_format": "completion",
                                                 "samples": ["    return 1\n", ""]}])
    assert _sets(list(read_version_sets(empty)))[0].codes == [PROMPT + "    return 1\n", ""]
    joined = _sets(list(read_version_sets(path, ReadOptions(completions=True))))
    assert [s.codes[0].startswith(PROMPT) for s in joined] == [True, True]
    never = _sets(list(read_version_sets(path, ReadOptions(completions=False))))
    assert [s.codes[0].startswith(PROMPT) for s in never] == [False, False]


JS_PROMPT = ("//Return list of all prefixes from shortest to longest of the input string\n"
             "// >>> all_prefixes(\"abc\")\n// [\"a\", \"ab\", \"abc\"]\n"
             "function all_prefixes(string){\n")
JS_BODY = "  return [...string].map((_, i) => string.slice(0, i + 1));\n}\n"
JS_WHOLE = "function all_prefixes(s) {\n  return [s];\n}\n"


def test_a_row_that_does_not_say_joins_the_versions_that_complete_its_prompt(
        tmp_path: Path) -> None:
    rows = [{"task_id": "js", "language": "javascript", "prompt": JS_PROMPT,
             "versions": [JS_BODY, JS_WHOLE, ""]},
            {"task_id": "ts", "language": "typescript",
             "prompt": "function twice(n: number): number {\n",
             "versions": ["  return 2 * n;\n}\n"]},
            {"task_id": "chat", "prompt": "Write a function.\nThe signature: def f(a):",
             "versions": ["def f(a):\n    return a\n", "    return a\n"]}]
    js, ts, chat = _sets(list(read_version_sets(_write_lines(tmp_path / "s.jsonl", rows))))
    assert js.codes == [JS_PROMPT + JS_BODY, JS_WHOLE, ""]  # a whole function stays whole
    assert ts.codes == ["function twice(n: number): number {\n  return 2 * n;\n}\n"]
    # a prompt in words is no start of a function: nothing is joined to it
    assert chat.codes == ["def f(a):\n    return a\n", "    return a\n"]


def test_completion_rows_that_carry_their_prompt_and_language_are_joined(
        tmp_path: Path) -> None:
    rows = [{"task_id": "HumanEval_14_all_prefixes", "language": "js", "prompt": JS_PROMPT,
             "completion": JS_BODY},
            {"task_id": "HumanEval_14_all_prefixes", "completion": JS_WHOLE}]
    (got,) = _sets(list(read_version_sets(_write_lines(tmp_path / "c.jsonl", rows))))
    assert got.language == "javascript" and got.prompt == JS_PROMPT
    assert got.codes == [JS_PROMPT + JS_BODY, JS_WHOLE]


def test_a_multipl_e_problem_file_is_one_set(tmp_path: Path) -> None:
    path = tmp_path / "HumanEval_14_all_prefixes.json.gz"
    harness = "const assert = require('node:assert');\nfunction test() {}\n"
    with gzip.open(path, "wt") as f:
        json.dump({"name": "HumanEval_14_all_prefixes", "language": "js", "prompt": JS_PROMPT,
                   "tests": harness, "completions": [JS_BODY, JS_BODY]}, f)
    (got,) = _sets(list(read_version_sets(path)))
    assert got.task_id == "HumanEval_14_all_prefixes" and got.language == "javascript"
    assert got.codes == [JS_PROMPT + JS_BODY] * 2
    assert [t.source for t in got.tests] == [harness]


def test_a_row_of_multipl_e_published_completions_is_one_set(tmp_path: Path) -> None:
    """MultiPL-E's published completions name the problem ``problem`` and the model, its
    sampling and the benchmark ``experiment``; their run's statuses are not read."""
    harness = "const assert = require('node:assert');\nfunction test() {}\n"
    row = {"experiment": "humaneval-js-davinci-0.2-reworded",
           "problem": "HumanEval_14_all_prefixes", "language": "js", "prompt": JS_PROMPT,
           "tests": harness,
           "completions": [JS_BODY, JS_BODY], "programs": [JS_PROMPT + JS_BODY + harness] * 2,
           "statuses": ["OK", "Exception"], "exit_codes": [0, 1], "stop_tokens": ["\n//"]}
    (got,) = _sets(list(read_version_sets(_write_lines(tmp_path / "c.jsonl", [row]))))
    assert got.task_id == "HumanEval_14_all_prefixes" and got.language == "javascript"
    assert got.codes == [JS_PROMPT + JS_BODY] * 2
    assert [v.model for v in got.versions] == ["humaneval-js-davinci-0.2-reworded"] * 2
    assert [t.source for t in got.tests] == [harness]
    row["model"] = "davinci"
    (named,) = _sets(list(read_version_sets(_write_lines(tmp_path / "m.jsonl", [row]))))
    assert [v.model for v in named.versions] == ["davinci"] * 2


def test_broken_line_is_named_and_the_others_are_read(tmp_path: Path) -> None:
    rows: list[Any] = [{"task_id": "a", "samples": ["x = 1"]}, '{"task_id": "b", "samples": [',
                       {"task_id": "c", "samples": ["y = 2"]}]
    results = list(read_version_sets(_write_lines(tmp_path / "s.jsonl", rows)))
    assert [s.task_id for s in _sets(results)] == ["a", "c"]
    (error,) = _errors(results)
    assert error.line == 2 and error.source.endswith("s.jsonl")
    assert str(error).startswith(f"{tmp_path / 's.jsonl'}:2: broken JSON")
    assert error.exit_code == 1


def test_non_utf8_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"task_id": "a", "samples": ["x = 1"]}\n'
                     b'{"task_id": "b", "samples": ["s = \'caf\xe9\'"]}\n'
                     b'{"task_id": "c", "samples": ["y = 2"]}\n')
    results = list(read_version_sets(path))
    assert [s.task_id for s in _sets(results)] == ["a", "c"]
    (error,) = _errors(results)
    assert error.line == 2 and "not valid UTF-8 (byte 0xe9" in error.message


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"samples": ["x"]}, "missing 'task_id'"),
        ({"task_id": "a", "samples": "x = 1"},
         "'samples' must be a list of code strings, not a string"),
        ({"task_id": "a", "code": ["x = 1"]}, "missing 'versions'"),
        ({"task_id": None, "samples": ["x"]}, "'task_id' must be a string, not null"),
        ({"task_id": "a", "samples": [1, 2]}, "samples[0] must be a string"),
        ({"task_id": "a", "samples": ["x"], "prompt": 3}, "'prompt' must be a string"),
        ({"task_id": "a", "samples": ["x"], "tests": [{"kind": "fuzz"}]}, "unknown kind"),
        (["not", "an", "object"], "expected a JSON object"),
    ],
)
def test_bad_rows_are_errors(tmp_path: Path, row: Any, message: str,
                             version_set_schema: dict[str, Any]) -> None:
    path = _write_lines(tmp_path / "s.jsonl", [{"task_id": "ok", "samples": ["x = 1"]}, row])
    results = list(read_version_sets(path))
    assert [s.task_id for s in _sets(results)] == ["ok"]
    (error,) = _errors(results)
    assert error.line == 2 and message in error.message
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(row, version_set_schema)


def test_unknown_language(tmp_path: Path) -> None:
    rows = [{"task_id": "a", "samples": ["x"], "language": "klingon"},
            {"task_id": "b", "samples": ["x"]}]
    path = _write_lines(tmp_path / "s.jsonl", rows)
    results = list(read_version_sets(path))
    (error,) = _errors(results)
    assert error.exit_code == 2 and error.task_id == "a" and "klingon" in error.message
    assert [s.task_id for s in _sets(results)] == ["b"]
    with pytest.raises(UnknownLanguageError):
        list(read_version_sets(path, ReadOptions(language="klingon")))
    js = _sets(list(read_version_sets(path, ReadOptions(language="js"))))
    assert js[0].language == "javascript"


def test_formats_are_detected(tmp_path: Path) -> None:
    assert detect_format(b'{"task_id": "a", "samples": []}\n') == "jsonl"
    assert detect_format(b'\n{broken\n{"task_id": "a", "completion": "x"}\n') == "humaneval"
    assert detect_format(b'  [["x = 1"]]') == "bigcode"
    assert detect_format(b"\n  \n") == "jsonl"  # empty: nothing to tell, nothing to read
    with pytest.raises(UnknownFormatError, match="cannot tell the input format"):
        detect_format(b'{"hello": 1}\n', "f.jsonl")
    with pytest.raises(UnknownFormatError, match="unknown input format 'xml'"):
        list(read_version_sets(tmp_path / "x", ReadOptions(input_format="xml")))


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        list(read_version_sets(tmp_path / "nope.jsonl"))
    with pytest.raises(UserError, match="is a directory"):
        list(read_version_sets(tmp_path))


def test_humaneval_rows_with_problems(tmp_path: Path) -> None:
    rows = [{"task_id": "HumanEval/0", "completion": "    return False\n"},
            {"task_id": "HumanEval/2", "completion": "    return number % 1.0\n"},
            {"task_id": "HumanEval/0", "completion": "    return True\n"},
            {"task_id": "Nope/1", "completion": "pass\n"},
            {"task_id": "HumanEval/2"}]
    path = _write_lines(tmp_path / "samples.jsonl", rows)
    problems = load_problems("humaneval")
    assert len(problems) == 164
    results = list(read_version_sets(path, ReadOptions(problems=problems)))
    sets = _sets(results)
    assert [s.task_id for s in sets] == ["HumanEval/0", "HumanEval/2"]
    prompt0 = problems["HumanEval/0"].prompt
    assert sets[0].codes == [prompt0 + "    return False\n", prompt0 + "    return True\n"]
    assert sets[0].entry_point == "has_close_elements"
    assert sets[0].tests[0].kind == "check" and "def check" in (sets[0].tests[0].source or "")
    errors = _errors(results)
    assert {(e.line, e.task_id) for e in errors} == {(5, "HumanEval/2"), (4, "Nope/1")}
    bare = _sets(list(read_version_sets(path)))
    assert bare[0].codes == ["    return False\n", "    return True\n"]
    assert [s.task_id for s in bare] == ["HumanEval/0", "HumanEval/2", "Nope/1"]


def test_humaneval_x_generation_rows_take_their_language_from_the_task_id(
        tmp_path: Path) -> None:
    # HumanEval-X's samples: ``generation`` for ``completion``, the language in the id
    js_prompt = "/* Add.\n  >>> add(1, 2)\n  3\n  */\nconst add = (a, b) => {\n"
    harness = "const t = () => {\n  console.assert(add(2, 2) === 4)\n}\nt()\n"
    problems = _write_lines(tmp_path / "humaneval_js.jsonl", [
        {"task_id": "JavaScript/0", "prompt": js_prompt, "test": harness,
         "declaration": "const add = (a, b) => {\n", "canonical_solution": "  return a + b;\n}"}])
    samples = _write_lines(tmp_path / "samples.jsonl", [
        {"task_id": "JavaScript/0", "prompt": js_prompt, "generation": "  return a + b;\n}"},
        {"task_id": "JavaScript/0", "prompt": js_prompt, "generation": "  return a - b;\n}"},
        {"task_id": "Python/0", "generation": "    return 1\n"}])
    assert detect_format(samples.read_bytes()) == "humaneval"
    sets = _sets(list(read_version_sets(samples)))
    assert [(s.task_id, s.language) for s in sets] == [("JavaScript/0", "javascript"),
                                                      ("Python/0", "python")]
    assert sets[0].codes == [js_prompt + "  return a + b;\n}", js_prompt + "  return a - b;\n}"]
    results = list(read_version_sets(samples, ReadOptions(problems=load_problems(str(problems)))))
    joined = _sets(results)
    assert [(s.task_id, s.language) for s in joined] == [("JavaScript/0", "javascript")]
    assert joined[0].tests[0].kind == "check" and "console.assert" in (joined[0].tests[0].source
                                                                        or "")
    assert [(e.task_id, e.message) for e in _errors(results)] == [
        ("Python/0", "task not found in the problems")]


def test_problems_from_a_file(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "problems.jsonl", [
        {"task_id": "X/0", "prompt": PROMPT, "entry_point": "add", "test": "def check(c): pass"}])
    problems = load_problems(str(path))
    assert problems["X/0"].prompt == PROMPT and problems["X/0"].entry_point == "add"
    _write_lines(tmp_path / "bad.jsonl", [{"task_id": "X/0"}])
    with pytest.raises(UserError, match="needs 'task_id' and 'prompt'"):
        load_problems(str(tmp_path / "bad.jsonl"))


def test_bigcode_generations(tmp_path: Path) -> None:
    path = tmp_path / "generations.json"
    path.write_text(json.dumps([["def f():\n    return 1\n", "def f():\n    return 2\n"],
                                "oops", ["x = 1"]]))
    results = list(read_version_sets(path))
    sets = _sets(results)
    assert [s.task_id for s in sets] == ["task/0", "task/2"]
    assert sets[0].codes[1] == "def f():\n    return 2\n"
    (error,) = _errors(results)
    assert "entry 1 is not a list of strings" in error.message
    with_problems = _sets(list(read_version_sets(
        path, ReadOptions(problems=load_problems("humaneval")))))
    assert [s.task_id for s in with_problems] == ["HumanEval/0", "HumanEval/2"]
    assert with_problems[0].codes[0] == "def f():\n    return 1\n"  # prompt already inside
    broken = tmp_path / "broken.json"
    broken.write_text('[\n  ["x"],\n  ["y",\n')
    # read an entry at a time: the entry before the break is still a set
    first, err = list(read_version_sets(broken, ReadOptions(input_format="bigcode")))
    assert isinstance(first, VersionSet) and first.codes == ["x"] and first.source_line == 2
    assert isinstance(err, ReadError) and err.line == 4 and "broken JSON" in err.message


def test_gzip_stdin_limit_and_samples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [{"task_id": f"t{k}", "samples": [f"x = {i}" for i in range(5)]} for k in range(4)]
    raw = "".join(json.dumps(r) + "\n" for r in rows).encode()
    gz = tmp_path / "s.jsonl.gz"
    gz.write_bytes(gzip.compress(raw))
    sets = _sets(list(read_version_sets(gz, ReadOptions(limit=2, max_versions=3))))
    assert [s.task_id for s in sets] == ["t0", "t1"]
    assert [len(s.versions) for s in sets] == [3, 3]

    class _Stdin:
        buffer = io.BytesIO(raw)

    monkeypatch.setattr(sys, "stdin", _Stdin())
    from_stdin = list(read_version_sets("-"))
    assert [s.task_id for s in _sets(from_stdin)] == ["t0", "t1", "t2", "t3"]
    both = list(read_many([gz, gz], ReadOptions(limit=6)))
    assert [s.task_id for s in _sets(both)] == ["t0", "t1", "t2", "t3", "t0", "t1"]


def test_the_real_data_file(shared_dir: Path, version_set_schema: dict[str, Any]) -> None:
    path = shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl"
    with path.open() as f:
        first = json.loads(f.readline())
    jsonschema.validate(first, version_set_schema)
    results = list(read_version_sets(path))
    sets = _sets(results)
    assert len(sets) == 164 and not _errors(results)
    assert all(len(s.versions) == 100 for s in sets)
    assert sets[0].codes[0] == first["prompt"] + first["samples"][0]
    assert sets[0].entry_point == first["entry_point"]
    assert sets[0].tests[0].source == first["tests"]
    # CodeGen sometimes wrote nothing: those completions stay empty (left out when scored)
    with path.open() as f:
        empty = sum(1 for line in f for c in json.loads(line)["samples"] if not c.strip())
    assert empty > 0
    assert sum(1 for s in sets for c in s.codes if not c.strip()) == empty


def test_bigcode_entries_are_read_whatever_the_stream_hands_over() -> None:
    # a pipe or a gzip stream hands over a few bytes at a time: entries, numbers and
    # characters split across reads still come out whole, with their lines
    from codequorum.ingest.version_files import _array_entries

    class Trickle(io.RawIOBase):
        def __init__(self, data: bytes, step: int) -> None:
            self.data, self.pos, self.step = data, 0, step

        def read(self, n: int = -1) -> bytes:
            out = self.data[self.pos : self.pos + (self.step if n < 0 else min(n, self.step))]
            self.pos += len(out)
            return out

    doc = json.dumps([[f"def f():\n    return {k}\n", "é"] for k in range(30)] + [123456789],
                     indent=1)
    for step in (1, 3, 64, 1 << 20):
        entries = list(_array_entries(cast(IO[bytes], Trickle(doc.encode(), step)), "g.json"))
        assert [e[1] for e in entries] == json.loads(doc)  # type: ignore[index]
        assert [e[0] for e in entries][:2] == [2, 6]  # type: ignore[index]
    broken = list(_array_entries(cast(IO[bytes], Trickle(b'[\n ["x"],\n ["y",\n', 2)),
                                 "g.json"))
    assert broken[0] == (2, ["x"])
    assert isinstance(broken[1], ReadError) and broken[1].line == 4


def test_versions_is_the_key_and_samples_its_older_spelling(
        tmp_path: Path, version_set_schema: dict[str, Any]) -> None:
    rows = [{"task_id": "new", "versions": ["x = 1", "x = 2"]},
            {"task_id": "old", "samples": ["y = 1"]},
            {"task_id": "both", "versions": ["z = 1"], "samples": ["ignored = 1", "too = 2"]}]
    results = list(read_version_sets(_write_lines(tmp_path / "s.jsonl", rows)))
    assert [(s.task_id, s.codes) for s in _sets(results)] == [
        ("new", ["x = 1", "x = 2"]), ("old", ["y = 1"]), ("both", ["z = 1"])]
    for row in rows:
        jsonschema.validate(row, version_set_schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"task_id": "none"}, version_set_schema)


def test_versions_given_as_chat_answers_are_read_as_their_code(tmp_path: Path) -> None:
    """A set of a chat model's raw answers (prose around a fenced block) is scored on the
    code, as ``sample`` takes it from an endpoint; plain code and completions stay as given."""
    code = "def add(a, b):\n    return a + b\n"
    answer = f"Sure:\n```python\n{code}```\nThis adds them."
    path = _write_lines(tmp_path / "s.jsonl", [
        {"task_id": "t", "samples": [answer, code]},
        {"task_id": "c", "samples": ["    return a + b\n", answer], "prompt": PROMPT,
         "sample_format": "completion"}])
    whole, completed = _sets(list(read_version_sets(path)))
    assert [v.code for v in whole.versions] == [code, code]
    assert [v.code for v in completed.versions] == [PROMPT + "    return a + b\n", code]


def test_an_exported_sets_current_code_is_kept_only_where_it_is_a_version(
        tmp_path: Path) -> None:
    """``current`` names the version that is the function's code as its file holds it;
    one that is no position among the versions read (past them, negative, a flag, text,
    or cut off by ``--max-versions``) is left out, and the location stays."""
    from codequorum.core.model import FunctionLocation
    from codequorum.ingest.version_files import ReadOptions
    from codequorum.pipeline.score import current_of

    base = {"file": "src/a.py", "qualified_name": "f", "versions": ["def f(): 1", "def f(): 2"]}
    rows = [{**base, "task_id": str(k), "current": c}
            for k, c in enumerate([1, 2, -1, True, "1", None])]
    sets = _sets(list(read_version_sets(_write_lines(tmp_path / "s.jsonl", rows))))
    assert [s.location for s in sets] == [FunctionLocation("src/a.py", "f", 1)] + [
        FunctionLocation("src/a.py", "f")] * 5
    assert [current_of(s) for s in sets] == [1, None, None, None, None, None]
    [cut] = _sets(list(read_version_sets(_write_lines(tmp_path / "c.jsonl", rows[:1]),
                                         ReadOptions(max_versions=1))))
    assert cut.location == FunctionLocation("src/a.py", "f") and current_of(cut) is None
