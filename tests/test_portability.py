"""codequorum where POSIX is missing: every front end run in a Python from which what Windows
lacks was taken away before anything was imported (``tests/support/without_posix``: no
``O_NOFOLLOW``, ``getuid``, ``fork``, ``wait4``, ``killpg``, ``fcntl``, ``resource``,
``SIGALRM``/``SIGKILL``, ``AF_UNIX`` ...). The real CLI, language server and MCP server, each
in such a process: the strict sandbox says why it cannot run, ``auto`` picks the portable
one, and the answers are those of an ordinary run.

What this cannot show: Windows itself (``os.name`` stays ``posix`` here, and the guests'
own processes start isolated, ``-I``, without the shim; ``test_processes.py`` strips them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codequorum.behaviour.sandbox.portable import interpreter as wasm
from codequorum.cli.main import main
from codequorum.lsp.markdown import md_text
from tests.agents.conftest import call, mcp_session, server_env, text_of
from tests.lsp.conftest import REPO, lsp_session
from tests.lsp.helpers import command, hover_text, open_document, position_of, wait_for

SHIM = Path(__file__).resolve().parent / "support" / "without_posix"
DEMO = REPO / "server" / "codequorum" / "data" / "humaneval_demo.jsonl.gz"
#: What a report says where the strict sandbox cannot run for want of POSIX.
PICKED = ("the strict sandbox is not available here (this system has none: it needs Linux): "
          "versions run in the portable sandbox")

DOC = '''def clamp(x, lo, hi):
    """x kept between lo and hi.

    >>> clamp(5, 0, 3)
    3
    """
    return max(lo, min(x, hi))
'''
CRLF_DOC = DOC.replace("\n", "\r\n")
VERSIONS = [
    "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n"
    "        return hi\n    return x\n",
    "def clamp(x, lo, hi):\n    return sorted([lo, x, hi])[1]\n",
    "def clamp(x, lo, hi):\n    return min(lo, max(x, hi))\n",  # the bounds swapped
]


def shim_env(**extra: str) -> dict[str, str]:
    """This process's environment with the shim first on ``PYTHONPATH``."""
    path = os.pathsep.join([str(SHIM), str(REPO / "server")])
    return {**os.environ, "PYTHONPATH": path, "PYTHONUNBUFFERED": "1", **extra}


def run(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``codequorum ARGS`` in a Python without POSIX's names."""
    return subprocess.run([sys.executable, "-m", "codequorum", *args], cwd=cwd,
                          env=shim_env(), capture_output=True, text=True, timeout=timeout,
                          check=False)


def stored(root: Path, text: str) -> Path:
    """``root`` as a workspace whose ``mod.py`` holds ``text`` (``clamp``) and three stored
    versions of it, stored by ``codequorum sample --from`` in the stripped Python (the
    store made without ``O_NOFOLLOW``)."""
    (root / ".git").mkdir(parents=True)
    (root / "mod.py").write_bytes(text.encode())
    (root / "versions.json").write_text(json.dumps(VERSIONS), encoding="utf-8")
    done = run("sample", "mod.py", "-f", "clamp", "--from", "versions.json", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "now has 3 versions" in done.stdout
    (root / "versions.json").unlink()
    return root


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """:func:`stored` with ``DOC``, shared by the tests that run it."""
    return stored(tmp_path_factory.mktemp("ws"), DOC)


def test_the_shim_takes_away_what_windows_lacks(tmp_path: Path) -> None:
    probe = ("import json, os, signal, socket\n"
             "def imports(name):\n"
             "    try:\n        exec(f'import {name}', {'__name__': 'codequorum.probe'})\n"
             "    except ImportError:\n        return False\n    return True\n"
             "print(json.dumps({'os': [n for n in ('O_NOFOLLOW', 'O_DIRECTORY', 'O_NONBLOCK', "
             "'getuid', 'fork', 'wait4', 'killpg', 'sched_getaffinity') if hasattr(os, n)], "
             "'signal': [n for n in ('SIGALRM', 'SIGKILL') if hasattr(signal, n)], "
             "'unix': hasattr(socket, 'AF_UNIX'), 'dir_fd': len(os.supports_dir_fd), "
             "'imports': [m for m in ('fcntl', 'resource', 'pwd', 'termios') if imports(m)]}))")
    done = subprocess.run([sys.executable, "-c", probe], env=shim_env(), cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"os": [], "signal": [], "unix": False, "dir_fd": 0,
                                       "imports": []}


def test_doctor_says_the_strict_sandbox_is_missing_and_the_portable_one_runs(
        tmp_path: Path) -> None:
    done = run("doctor", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # the default level runs them (portable)
    found = json.loads(done.stdout)
    assert found["uid"] is None
    assert found["strict"]["ok"] is False and found["weak"]["ok"] is False
    assert found["strict"]["detail"].startswith(
        "this system cannot start the strict sandbox's child (it lacks os.wait4, os.waitid, "
        "os.killpg, os.getuid")
    assert found["portable"]["ok"] is True
    assert {"wasm", "fuel", "epoch", "store-limits"} <= set(found["portable"]["layers"])
    assert found["verdict"] == (
        "candidates run in the portable sandbox (the default `auto` picks it: no strict "
        "sandbox here; `--sandbox portable` asks for it by name)")
    assert "JavaScript and TypeScript versions do not run here" in found["node"]


def test_demo_and_score_read_the_bundled_data(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    demo = run("demo", cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert "HumanEval/7 (most alike)" in demo.stdout
    assert "HumanEval/138 (least alike)" in demo.stdout
    scored = run("score", str(DEMO), "--format", "json", "--no-tsed", "--jobs", "2", cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr
    assert main(["score", str(DEMO), "--format", "json", "--no-tsed"]) == 0
    here = capsys.readouterr().out
    document = json.loads(scored.stdout)
    assert len(document["sets"]) == 20 and {s["status"] for s in document["sets"]} == {"ok"}
    assert document == json.loads(here)  # the same figures as with POSIX


def test_check_dynamic_runs_the_versions_in_the_portable_sandbox(workspace: Path) -> None:
    done = run("check", "mod.py", "--dynamic", "--no-tsed", "--format", "json",
               "--timeout", "10", cwd=workspace)
    assert done.returncode == 1, done.stderr  # a finding
    document = json.loads(done.stdout)
    assert document["notes"] == [PICKED]
    [finding] = document["findings"]
    assert finding["code"] == "divergent-outputs"
    assert "versions 1 and 3 disagree on clamp(5, 0, 3): 3 vs 0" in finding["message"]
    assert 0 < finding["report"]["summary"]["oer"] < 1
    [function] = document["functions"]
    assert function["recommended"] != 2 and function["risk"] is not None  # 2: bounds swapped


def test_a_file_with_windows_line_endings_is_checked_as_its_twin(tmp_path: Path) -> None:
    found = {}
    for name, text in (("lf", DOC), ("crlf", CRLF_DOC)):
        root = stored(tmp_path / name, text)
        done = run("check", "mod.py", "--no-tsed", "--format", "json", cwd=root)
        assert done.returncode == 0, done.stderr
        found[name] = json.loads(done.stdout)
    [function] = found["crlf"]["functions"]
    assert (function["function"], function["line"], function["versions"]) == ("clamp", 1, 3)
    assert found["crlf"]["functions"] == found["lf"]["functions"]
    assert found["crlf"]["findings"] == found["lf"]["findings"] == []


async def test_the_language_server_runs_versions_in_the_portable_sandbox(
        tmp_path: Path) -> None:
    root = tmp_path / "lsp-ws"
    root.mkdir()
    env = {"PYTHONPATH": shim_env()["PYTHONPATH"],
           wasm.CACHE_VARIABLE: os.environ[wasm.CACHE_VARIABLE]}
    async with lsp_session(root, env=env) as client:
        uri = open_document(client, root / "clamp.py", CRLF_DOC)  # as Windows editors write
        await command(client, "codequorum.addVersions", uri, "clamp", VERSIONS)

        def ended() -> bool:
            return any((getattr(v, "kind", ""), getattr(v, "message", "")) == ("end", "done")
                       for values in client.progress_reports.values() for v in values)

        await wait_for(ended, timeout=300)
        report = (await command(client, "codequorum.analyze", uri, "clamp"))["report"]
        assert 0 < report["summary"]["oer"] < 1 and report["risk_level"] is not None
        text = await hover_text(client, uri, position_of(CRLF_DOC, "clamp"))
    assert text is not None and md_text(PICKED) in text
    assert md_text(report["trust"]) in text


async def test_the_mcp_server_checks_a_function_in_the_portable_sandbox(
        workspace: Path) -> None:
    env = server_env(PYTHONPATH=shim_env()["PYTHONPATH"],
                     **{wasm.CACHE_VARIABLE: os.environ[wasm.CACHE_VARIABLE]})
    async with mcp_session(workspace, env=env) as session:
        tools = sorted(tool.name for tool in (await session.list_tools()).tools)
        result = await call(session, "check_function",
                            {"path": "mod.py", "function": "clamp", "dynamic": True})
    assert tools == ["check_function", "compare_versions", "sample_versions"]
    assert not result.is_error, text_of(result)
    got: Any = result.structured_content
    assert got["status"] == "ok" and got["versions"] == 3
    assert got["dynamic"]["requested"] is True and got["dynamic"]["ran"] is True
    assert [f["code"] for f in got["findings"]] == ["divergent-outputs"]
    assert "portable sandbox" in text_of(result)
