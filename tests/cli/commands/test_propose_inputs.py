"""`score` and `check` with `--dynamic --propose-inputs`: call inputs asked from a real
chat-completions server on 127.0.0.1, run in the sandbox, named as the model's in the
report; an endpoint that is down, slow or answers garbage is one note and the rest is
scored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codequorum.cli.main import main, parse_arguments
from codequorum.core.model import Version
from codequorum.ingest.store import VersionStore, default_store_path
from tests.support.chat_server import ChatServer, answer, no_code, not_json, slow

ADD = "def combine(a, b):\n    return a + b\n"
SWAPPED = "def combine(a, b):\n    return b + a\n"
TESTED = {"task_id": "tested", "entry_point": "f",
          "samples": ["def f(x):\n    return x\n", "def f(x):\n    return x + 0\n"],
          "tests": [{"args": [1], "expected": 1}]}
INPUTS = "Here you are:\n```python\n[(1, 2), ('x', 'y')]\n```"


@pytest.fixture(autouse=True)
def _environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A key variable of the test's own, no user configuration, no endpoint variables."""
    monkeypatch.setenv("CQ_TEST_KEY", "sk-test")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CODEQUORUM_BASE_URL", raising=False)
    monkeypatch.delenv("CODEQUORUM_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)


def _sets(path: Path, *rows: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _untyped(task_id: str) -> dict[str, Any]:
    return {"task_id": task_id, "entry_point": "combine", "samples": [ADD, SWAPPED]}


def _score(capsys: pytest.CaptureFixture[str], path: Path, base_url: str,
           *extra: str) -> tuple[int, dict[str, Any], str]:
    code = main(["score", str(path), "--dynamic", "--no-tsed", "--format", "json",
                 "--base-url", base_url, "--model", "test-model", "--api-key-env",
                 "CQ_TEST_KEY", *extra])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_score_asks_for_inputs_and_names_them_in_the_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _sets(tmp_path / "sets.jsonl", _untyped("untyped"), TESTED)
    with ChatServer(default=answer(INPUTS)) as chat:
        code, doc, err = _score(capsys, path, chat.base_url, "--propose-inputs")
        # a set's tests only add inputs: the tested set asks as it would without them
        request, tested_request = chat.chat_requests
    assert code == 0, err
    assert err == ""
    assert request.authorization == "Bearer sk-test"
    assert request.body["model"] == "test-model"
    prompt = request.body["messages"][1]["content"]
    assert "def combine(a, b)" in prompt and "never the expected results" in prompt
    untyped, tested = doc["sets"]
    inputs = untyped["dynamic"]["inputs"]
    assert [(i["source"], i["label"], i["graded"]) for i in inputs[:2]] == [
        ("model", "combine(1, 2)", False), ("model", "combine('x', 'y')", False)]
    assert untyped["dynamic"]["inputs_source"][0] == "model"
    assert untyped["dynamic"]["outcomes"][0][:2] == [["3", None, None], ["'xy'", None, None]]
    assert untyped["dynamic"]["outcomes"][1][:2] == [["3", None, None], ["'yx'", None, None]]
    [divergent] = [v for v in untyped["verdicts"] if v["code"] == "divergent-outputs"]
    assert divergent["message"] == ("versions 1 and 2 disagree on combine('x', 'y') (an input "
                                    "from the model): 'xy' vs 'yx'")
    assert "def f(x)" in tested_request.body["messages"][1]["content"]
    assert tested["dynamic"]["inputs_source"][:2] == ["tests", "model"]


def test_off_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _sets(tmp_path / "sets.jsonl", _untyped("untyped"))
    with ChatServer(default=answer(INPUTS)) as chat:
        code, doc, err = _score(capsys, path, chat.base_url)
        assert chat.requests == []
    assert code == 0, err
    assert doc["sets"][0]["dynamic"]["inputs"] == []
    assert main(["score", "--help"]) == 0
    usage = " ".join(capsys.readouterr().out.split())
    assert "--propose-inputs, --no-propose-inputs with --dynamic: ask the endpoint" in usage
    assert "(default: off)" in usage and "(default: 30)" in usage


def test_an_endpoint_that_is_down_is_one_note(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ChatServer() as chat:
        base_url = chat.base_url  # closed when the block ends: nothing listens there
    path = _sets(tmp_path / "sets.jsonl", _untyped("one"), _untyped("two"), TESTED)
    code, doc, err = _score(capsys, path, base_url, "--propose-inputs")
    assert code == 0
    failure = f"no inputs from the model at {base_url}: cannot connect"
    assert err == f"codequorum: {failure}; the rest was scored without them\n"
    one, two, tested = doc["sets"]
    assert one["dynamic"]["notes"][0] == failure
    assert two["dynamic"]["notes"][0] == f"{failure} (not asked again)"
    assert one["status"] == two["status"] == "ok"  # scored without behaviour figures
    assert tested["summary"]["pass_rate_mean"] == 1.0


@pytest.mark.parametrize(("behaviour", "note"), [
    (slow(5.0, answer(INPUTS)), "no answer within 0.5 s"),
    (not_json(), "no answer text (not a chat completion)"),
])
def test_a_slow_or_broken_endpoint_is_asked_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], behaviour: Any, note: str) -> None:
    path = _sets(tmp_path / "sets.jsonl", _untyped("one"), _untyped("two"))
    with ChatServer(default=behaviour) as chat:
        code, doc, err = _score(capsys, path, chat.base_url, "--propose-inputs",
                                "--propose-timeout", "0.5")
        assert len(chat.chat_requests) == 1
    assert code == 0
    assert err == (f"codequorum: no inputs from the model at {chat.base_url}: {note}; the rest "
                   "was scored without them\n")
    assert [s["status"] for s in doc["sets"]] == ["ok", "ok"]


def test_an_answer_that_is_not_data_is_a_note_and_the_endpoint_is_asked_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _sets(tmp_path / "sets.jsonl", _untyped("one"), _untyped("two"))
    with ChatServer(script=[no_code(), answer("[__import__('os').getcwd()]")]) as chat:
        code, doc, err = _score(capsys, path, chat.base_url, "--propose-inputs")
        assert len(chat.chat_requests) == 2
    assert code == 0 and err == ""
    for s in doc["sets"]:
        assert s["dynamic"]["inputs"] == []
        assert s["dynamic"]["notes"][0] == ("the model's answer is not a Python list literal: no "
                                            "inputs taken")


def test_not_with_a_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _sets(tmp_path / "sets.jsonl", _untyped("one"))
    code = main(["score", str(path), "--dynamic", "--propose-inputs", "--scheduler", "local:1"])
    assert code == 1
    assert "--propose-inputs works without --scheduler" in capsys.readouterr().err


def _repository(tmp_path: Path) -> Path:
    """A repository whose ops.py has two stored versions of `combine`; the file's path."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    source = root / "ops.py"
    source.write_text(ADD, encoding="utf-8")
    with VersionStore.open(default_store_path(root)) as store:
        store.add("ops.py", "python", "combine", [Version(code=SWAPPED), Version(code=ADD)])
    return source


def test_check_asks_for_inputs_of_the_stored_versions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _repository(tmp_path)
    with ChatServer(default=answer(INPUTS)) as chat:
        code = main(["check", str(source), "--format", "json", "--dynamic", "--no-tsed",
                     "--propose-inputs", "--base-url", chat.base_url, "--api-key-env",
                     "CQ_TEST_KEY"])
        out, err = capsys.readouterr()
        [request] = chat.chat_requests
    assert code == 1, err
    assert request.authorization == "Bearer sk-test"
    doc = json.loads(out)
    [divergent] = [f for f in doc["findings"] if f["code"] == "divergent-outputs"]
    assert "disagree on combine('x', 'y') (an input from the model)" in divergent["message"]
    assert doc["notes"] == []


def test_check_with_an_endpoint_that_is_down(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _repository(tmp_path)
    with ChatServer() as chat:
        base_url = chat.base_url
    code = main(["check", str(source), "--format", "json", "--dynamic", "--no-tsed",
                 "--propose-inputs", "--base-url", base_url, "--api-key-env", ""])
    out, err = capsys.readouterr()
    note = (f"no inputs from the model at {base_url}: cannot connect; the rest was checked "
            "without them")
    # nothing else gave an input either: the run that ran nothing says so too
    not_run = f"{source}: `combine`: behaviour not run: no inputs"
    assert json.loads(out)["notes"] == [not_run, note]
    assert err == f"codequorum: {not_run}\ncodequorum: {note}\n"
    assert code == 0  # the versions are alike in shape and nothing ran to tell them apart


def test_the_user_file_turns_it_on_a_project_file_cannot(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "xdg" / "codequorum" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text('propose-inputs = true\n[score]\nbase-url = "http://127.0.0.1:9/v1"\n'
                    'propose-timeout = 5\n', encoding="utf-8")
    args = parse_arguments(["score", "x.jsonl"])
    assert (args.propose_inputs, args.base_url, args.propose_timeout) == (
        True, "http://127.0.0.1:9/v1", 5.0)
    assert parse_arguments(["score", "x.jsonl", "--no-propose-inputs"]).propose_inputs is False
    assert parse_arguments(["check", "."]).propose_inputs is True
    work = tmp_path / "work"  # a project beside the user's folder, not around it
    work.mkdir()
    monkeypatch.chdir(work)
    project = work / "codequorum.toml"
    project.write_text("propose-inputs = false\n", encoding="utf-8")
    assert parse_arguments(["score", "x.jsonl"]).propose_inputs is False
    project.write_text("[score]\nno-propose-inputs = false\n", encoding="utf-8")
    # the key is one warning and the user's own value holds; the run goes on (and stops
    # on the missing file, as it would without the project's file)
    assert parse_arguments(["score", "x.jsonl"]).propose_inputs is True
    capsys.readouterr()
    assert main(["score", "x.jsonl"]) == 1
    assert capsys.readouterr().err == (
        "codequorum: warning: codequorum.toml: [score] no-propose-inputs = false: ignored: a "
        "project's configuration file cannot have your endpoint asked with your API key; set "
        f"it in your own {user}, or pass --propose-inputs\n"
        "codequorum: error: x.jsonl: no such file\n")
