"""`codequorum sample`: regenerate into the store from a real endpoint, import, errors."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from codequorum.cli.commands.sample import outcome_line
from codequorum.cli.main import main
from codequorum.core.model import Version
from codequorum.generate.endpoint import Rejected, RequestError
from codequorum.ingest.store import VersionStore
from tests.support.chat_server import ChatServer, RecordedTask, code_answer, no_code

SOURCE = '''from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    """ Check if in given list of numbers, are any two numbers closer to each other than
    given threshold.
    """
    return False
'''


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / "src").mkdir()
    (ws / "src" / "close.py").write_text(SOURCE)
    return ws


def store_rows(ws: Path) -> list[tuple[str, str | None, int | None]]:
    with VersionStore.open(ws / ".codequorum" / "samples.sqlite3") as store:
        return [
            (r.origin, r.model, r.seed)
            for r in store.versions_for("src/close.py", "has_close_elements")
        ]


def test_regenerates_into_the_workspace_store(
    workspace: Path, shared_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = RecordedTask.load("HumanEval/0", shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl")
    with ChatServer(default=task) as server:
        code = main(
            [
                "sample",
                str(workspace / "src" / "close.py"),
                "--function",
                "has_close_elements",
                "--base-url",
                server.base_url,
                "--model",
                "codegen",
                "--api-key-env",
                "",
                "--samples",
                "4",
                "--seed",
                "30",
                "--timeout",
                "5",
            ]
        )
    out = capsys.readouterr().out
    assert code == 0
    assert "version 1 (seed 30): accepted" in out
    assert "4 of 4 versions accepted" in out
    assert sorted(store_rows(workspace)) == [("regenerated", "codegen", s) for s in range(30, 34)]
    prompt = server.chat_requests[0].body["messages"][1]["content"]
    assert "has_close_elements" in prompt and "return False" not in prompt


def test_rejections_are_printed_and_exit_non_zero(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ChatServer(default=no_code()) as server:
        code = main(
            [
                "sample",
                str(workspace / "src" / "close.py"),
                "-f",
                "has_close_elements",
                "--base-url",
                server.base_url,
                "--samples",
                "2",
                "--api-key-env",
                "",
            ]
        )
    captured = capsys.readouterr()
    assert code == 1
    assert "version 1: rejected — no code in the answer" in captured.out
    assert "I'm sorry" not in captured.out  # the answer's text only with -v
    assert "0 of 2 versions accepted; 2 answers had no code; nothing stored" in captured.out
    assert captured.err.strip() == ("codequorum: error: no usable version of "
                                    "`has_close_elements` arrived (2 answers had no code)")
    assert not (workspace / ".codequorum").exists()  # nothing kept, no store made


def test_endpoint_down_exits_with_a_clear_message(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = main(
        [
            "sample",
            str(workspace / "src" / "close.py"),
            "-f",
            "has_close_elements",
            "--base-url",
            f"http://127.0.0.1:{port}/v1",
            "--samples",
            "2",
            "--timeout",
            "2",
        ]
    )
    captured = capsys.readouterr()
    assert code == 1
    assert captured.err.strip() == (
        f"codequorum: error: cannot reach http://127.0.0.1:{port}/v1: connection refused — "
        "is the server running?"
    )
    assert "0 of 2 versions accepted; 2 could not connect; nothing stored" in captured.out
    assert not (workspace / ".codequorum").exists()  # the endpoint refused: no store made


def test_unknown_function_lists_the_known_ones(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["sample", str(workspace / "src" / "close.py"), "-f", "nope", "--print-prompt"])
    assert code == 1
    assert (
        "no function `nope`; functions in the file: has_close_elements" in capsys.readouterr().err
    )


def test_a_function_a_syntax_error_hides_is_said_to_be_hidden_by_it(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = workspace / "src" / "broken.py"
    broken.write_text("def ok():\n    return 1\n\n\ndef half(x:\n    return x / 2\n",
                      encoding="utf-8")
    code = main(["sample", str(broken), "-f", "half", "--print-prompt"])
    assert code == 1
    assert capsys.readouterr().err.strip().endswith(
        "no function `half`; functions in the file: ok; the file does not parse at line 5 "
        "('(' was never closed), which may hide it")


def test_print_prompt_sends_nothing(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ChatServer(default=code_answer("def x():\n    pass\n")) as server:
        code = main(
            [
                "sample",
                str(workspace / "src" / "close.py"),
                "-f",
                "has_close_elements",
                "--base-url",
                server.base_url,
                "--print-prompt",
            ]
        )
    out = capsys.readouterr().out
    assert code == 0 and "--- system ---" in out and "--- user ---" in out
    assert server.requests == []


def test_import_from_a_sample_set_file(
    workspace: Path, shared_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = shared_dir / "data" / "humaneval_codegen16b_t0.8.jsonl"
    store = workspace / "custom.sqlite3"
    code = main(
        [
            "sample",
            str(workspace / "src" / "close.py"),
            "-f",
            "has_close_elements",
            "--from",
            str(data),
            "--store",
            str(store),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "imported" in out
    with VersionStore.open(store) as s:
        rows = s.versions_for("src/close.py", "has_close_elements")
    assert len(rows) > 50 and {r.origin for r in rows} == {"imported"}


def test_a_line_per_answer_and_an_unreachable_endpoint_once() -> None:
    version = Version(code="def f():\n    return 1\n", origin="regenerated", seed=7)
    assert outcome_line(0, version, set()) == "  version 1 (seed 7): accepted, 2 lines"
    unseeded = Version(code="def f(): pass", origin="regenerated")
    assert outcome_line(2, unseeded, set()) == "  version 3: accepted, 0 lines"
    rejected = Rejected(1, "no code block", "prose")
    assert outcome_line(1, rejected, {"no code block"}) == (
        "  version 2: rejected — no code block")
    error = RequestError(3, "HTTP 500\x1b[0m", kind="refused")
    assert outcome_line(3, error, set()) == "  version 4: HTTP 500\\x1b[0m"
    assert outcome_line(3, error, {"HTTP 500\x1b[0m"}) == "  version 4: HTTP 500\\x1b[0m"
    down = RequestError(4, "cannot reach x", kind="unreachable")
    assert outcome_line(4, down, set()) == "  version 5: cannot reach x"
    assert outcome_line(4, down, {"cannot reach x"}) is None  # the others were never sent


def test_verbose_shows_each_rejected_answer_escaped_and_bounded(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_prose = "Sure!\x1b[2J Here is nothing useful.\n" + "blah " * 1000
    with ChatServer(default=no_code(long_prose)) as server:
        code = main(["sample", str(workspace / "src" / "close.py"), "-f", "has_close_elements",
                     "--base-url", server.base_url, "--samples", "1", "--api-key-env", "", "-v"])
    out = capsys.readouterr().out
    assert code == 1
    assert "  version 1: rejected — no code in the answer\n      | Sure!\\x1b[2J Here is" in out
    assert "\x1b" not in out
    shown = [line for line in out.splitlines() if line.startswith("      | ")]
    assert len(shown) == 2 and len(shown[1]) < 2100 and shown[1].endswith(")")  # cut, says so


def test_a_store_made_by_sample_is_approved_for_the_editor(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from codequorum.options.approvals import Approvals

    with ChatServer(default=code_answer("def has_close_elements(n, t):\n    return True\n")
                    ) as server:
        code = main(["sample", str(workspace / "src" / "close.py"), "-f", "has_close_elements",
                     "--base-url", server.base_url, "--samples", "2", "--api-key-env", ""])
    assert code == 0
    path = workspace / ".codequorum" / "samples.sqlite3"
    with VersionStore.open(path) as store:
        assert not store.created
        assert Approvals.default().store_approved(path, store.store_id)
    # A store that was there already (one that came with a repository) is not approved.
    other = workspace / "cloned.sqlite3"
    VersionStore.open(other).close()
    with ChatServer(default=code_answer("def has_close_elements(n, t):\n    return 1\n")
                    ) as server:
        assert main(["sample", str(workspace / "src" / "close.py"), "-f", "has_close_elements",
                     "--base-url", server.base_url, "--samples", "1", "--api-key-env", "",
                     "--store", str(other)]) == 0
    with VersionStore.open(other) as store:
        assert not Approvals.default().store_approved(other, store.store_id)


def test_an_import_without_a_version_makes_no_store(
    workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "versions.json"
    source.write_text('["def other():\\n    pass\\n"]')
    code = main(["sample", str(workspace / "src" / "close.py"), "-f", "has_close_elements",
                 "--from", str(source)])
    captured = capsys.readouterr()
    assert code == 1 and "skipped versions.json[0]: does not define" in captured.out
    assert not (workspace / ".codequorum").exists()


def test_concurrency_and_max_tokens_come_from_the_user_never_from_the_project(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    from tests.support.chat_server import Answer, slow

    project = workspace / "pyproject.toml"
    project.write_text("[tool.codequorum.sample]\nconcurrency = 64\nmax-tokens = 100000\n"
                       "timeout = 30\n")  # a project may set the timeout, not the others
    argv = ["sample", str(workspace / "src" / "close.py"), "-f", "has_close_elements",
            "--samples", "3", "--api-key-env", ""]

    user = Path(os.environ["XDG_CONFIG_HOME"]) / "codequorum" / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("[sample]\nconcurrency = 2\nmax-tokens = 77\n")
    late = slow(0.3, Answer(("```python\ndef has_close_elements(n, t):\n    return 1\n```",)))
    with ChatServer(default=late) as server:
        assert main([*argv, "--base-url", server.base_url]) == 0
    assert server.max_in_flight == 2
    assert {r.body["max_tokens"] for r in server.chat_requests} == {77}
    err = capsys.readouterr().err
    assert ("concurrency = 64: ignored: a project's configuration file cannot choose how hard "
            "your endpoint is asked") in err
    assert "max-tokens = 100000: ignored: a project's configuration file cannot choose how " \
        "many tokens your API key pays for" in err


def test_the_request_is_read_from_the_parsed_arguments(tmp_path: Path) -> None:
    from codequorum.cli.commands.sample import sample_request
    from codequorum.cli.main import parse_arguments

    args = parse_arguments([
        "sample", str(tmp_path / "app.py"), "-f", "Cart.total", "--language", "python",
        "--from", str(tmp_path / "v.jsonl"), "--task", "T/1", "--workspace", str(tmp_path),
        "--store", str(tmp_path / "s.sqlite3"), "--print-prompt", "--base-url",
        "http://127.0.0.1:9/v1", "--model", "m", "--api-key-env", "KEY", "--samples", "3",
        "--temperature", "0.2", "--seed", "7", "--timeout", "5", "--concurrency", "2",
        "--max-tokens", "300", "--max-retries", "4", "--use-n", "--context-lines", "4",
        "-v", "--isolated"])
    request = sample_request(args)
    assert (request.file, request.function) == (tmp_path / "app.py", "Cart.total")
    assert (request.language, request.source, request.task) == (
        "python", tmp_path / "v.jsonl", "T/1")
    assert (request.workspace, request.store) == (tmp_path, tmp_path / "s.sqlite3")
    assert (request.print_prompt, request.context_lines) == (True, 4)
    assert (request.quiet, request.verbose) == (False, True)
    provider = request.provider
    assert (provider.base_url, provider.model, provider.api_key_env) == (
        "http://127.0.0.1:9/v1", "m", "KEY")
    assert (provider.versions, provider.temperature, provider.seed) == (3, 0.2, 7)
    assert (provider.timeout, provider.concurrency, provider.max_tokens) == (5.0, 2, 300)
    assert (provider.max_retries, provider.use_n) == (4, True)


@pytest.mark.parametrize("flag", ["--versions", "--samples", "-n"])
def test_versions_to_ask_for_has_one_name_and_its_older_spelling(tmp_path: Path,
                                                                 flag: str) -> None:
    from codequorum.cli.commands.sample import sample_request
    from codequorum.cli.main import parse_arguments

    args = parse_arguments(["sample", str(tmp_path / "app.py"), "-f", "f", flag, "7",
                            "--isolated"])
    assert sample_request(args).provider.versions == 7


@pytest.mark.parametrize("key", ["versions", "samples"])
def test_a_project_asks_for_at_most_fifty_versions_under_either_key(
        tmp_path: Path, key: str) -> None:
    from codequorum.cli.commands.sample import sample_request
    from codequorum.cli.main import parse_arguments

    (tmp_path / "codequorum.toml").write_text(f"[sample]\n{key} = 7\n")
    args = parse_arguments(["sample", str(tmp_path / "app.py"), "-f", "f",
                            "--config", str(tmp_path / "codequorum.toml")])
    assert sample_request(args).provider.versions == 7
    (tmp_path / "codequorum.toml").write_text(f"[sample]\n{key} = 51\n")
    args = parse_arguments(["sample", str(tmp_path / "app.py"), "-f", "f",
                            "--config", str(tmp_path / "codequorum.toml")])
    assert sample_request(args).provider.versions != 51
    (note,) = args.config_notes
    assert f"{key} = 51: ignored: a project's configuration file cannot choose how many " \
        "tokens" in note


CHAT_PY = '''Here is a version that builds each chunk by hand:

def chunk(items, n):
    out = []
    for i in range(0, len(items), n):
        out.append(items[i:i + n])
    return out

It keeps the last, shorter chunk.
'''

CHAT_JS = '''You can write it as a plain function:

```js
function chunk(items, n) {
	const out = [];
	for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
	return out;
}
```

It keeps the last, shorter chunk.
'''

SOURCES = {"python": ("mod.py", "def chunk(items, n):\n    return [items[i:i + n] for i in "
                                 "range(0, len(items), n)]\n", CHAT_PY),
           "javascript": ("mod.js", "export function chunk(items, n) {\n\treturn [];\n}\n",
                          CHAT_JS)}


@pytest.mark.parametrize("language", ["python", "javascript"])
def test_chat_answers_saved_as_files_import_as_their_code(tmp_path: Path, language: str) -> None:
    """A chat answer pasted into a file, prose around the function, fenced or not, is
    imported as the function alone, as ``sample`` takes an endpoint's answer."""
    import subprocess
    import sys

    name, source, answer = SOURCES[language]
    (tmp_path / ".git").mkdir()
    (tmp_path / name).write_text(source)
    (tmp_path / "answers").mkdir()
    (tmp_path / "answers" / "answer.md").write_text(answer)
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([str(Path(sys.executable).parent / "codequorum"), "sample", name, "-f",
                           "chunk", "--from", "answers"], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120, check=False)
    said = done.stdout + done.stderr
    assert done.returncode == 0 and "skipped" not in said, said
    with VersionStore.open(tmp_path / ".codequorum" / "samples.sqlite3") as store:
        [stored] = store.versions_for(name, "chunk")
    assert stored.code.startswith("function chunk(" if language == "javascript" else "def chunk(")
    assert "It keeps" not in stored.code and "Here is" not in stored.code


def test_a_chat_answer_without_code_is_said_to_hold_none(tmp_path: Path) -> None:
    """A refusal saved to a file is skipped as an endpoint's refusal is, "no code in the
    answer", not as code that does not parse."""
    import subprocess
    import sys

    (tmp_path / ".git").mkdir()
    (tmp_path / "mod.py").write_text(SOURCES["python"][1])
    (tmp_path / "answer.txt").write_text("I cannot write that function, sorry.\n")
    done = subprocess.run([str(Path(sys.executable).parent / "codequorum"), "sample", "mod.py",
                           "-f", "chunk", "--from", "answer.txt"], capture_output=True,
                          text=True, env={"XDG_CONFIG_HOME": str(tmp_path / "config"),
                                          "PATH": "/usr/bin:/bin"},
                          cwd=tmp_path, timeout=120, check=False)
    assert done.returncode == 1
    assert "skipped answer.txt: no code in the answer" in done.stdout + done.stderr
