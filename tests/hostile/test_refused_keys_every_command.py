"""A repository's configuration cannot switch codequorum off: a project file holding a key of
every reach only the user may set (each in its command's table, in ``codequorum.toml`` or in
``pyproject.toml``) leaves every command running as it runs without the file (same status,
same output), with one warning line per key; the language server and the MCP server start
in that repository, and on a broken file too, and answer.

Everything is decided from outside: the real commands as subprocesses, the real servers
over stdio.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
from lsprotocol import types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from pytest_lsp import LanguageClient
from pytest_lsp.client import make_test_lsp_client

from codequorum.options.policy import Reach

from ..lsp.helpers import hover_once, open_document, wait_for
from .conftest import SOURCE, Hostile, one_warning

#: One key of every reach a project's file may not set, in the table of a command that
#: has it (PROGRAM names only an editor's own setting, never a file's key).
REFUSED: dict[Reach, tuple[str, str, str]] = {
    Reach.STORE: ("check", "store", '"../home/.config/gh/hosts.yml"'),
    Reach.WORKSPACE: ("export", "workspace", '"../home"'),
    Reach.RUNS_CODE: ("check", "dynamic", "true"),
    Reach.SANDBOX: ("score", "sandbox", '"weak"'),
    Reach.SPENDS_KEY: ("score", "propose-inputs", "true"),
    Reach.ENDPOINT: ("mcp", "base-url", '"https://collect.example/v1"'),
    Reach.MODEL: ("sample", "model", '"their-model"'),
    Reach.KEY_VARIABLE: ("mcp", "api-key-env", '"GITHUB_TOKEN"'),
    Reach.ENDPOINT_LOAD: ("sample", "concurrency", "64"),
    Reach.TOKEN_SPEND: ("mcp", "max-tokens", "100000"),
    Reach.INTERPRETER: ("doctor", "interpreter", '"tools/python3"'),
    Reach.OUTPUT: ("demo", "output", '"../home/.bashrc"'),
    Reach.PROCESSES: ("demo", "jobs", "100000"),
    Reach.CLUSTER: ("score", "scheduler", '"tcp://203.0.113.9:8786"'),
    Reach.NETWORK: ("lsp", "tcp", '"0.0.0.0:2087"'),
    Reach.PROJECT_FILE: ("score", "compare", '"../home/.ssh/id_ed25519"'),
    Reach.CONFIGURATION: ("check", "isolated", "true"),
    Reach.VISIBILITY: ("export", "no-current", "true"),
}

#: Each command as the user runs it in the repository (``--print-prompt``: no endpoint).
COMMANDS: dict[str, list[str]] = {
    "score": ["score", "samples.jsonl", "--format", "json"],
    "check": ["check", "src", "--format", "json"],
    "demo": ["demo", "--format", "json", "--no-tsed"],
    "sample": ["sample", "src/mod.py", "-f", "f", "--print-prompt"],
    "export": ["export", "-o", "-"],
    "doctor": ["doctor", "--format", "json"],
}


def test_every_reach_but_the_editors_program_is_covered() -> None:
    user_only = {r for r in Reach if not r.project_may_set}
    # the editor's settings alone name a program (test_config_keys covers the editor's
    # VISIBILITY settings; export's leaving the current code out is here)
    assert user_only - set(REFUSED) == {Reach.PROGRAM}
    assert Reach.PROJECT_FILE in REFUSED  # and a file named outside the project


def _project_file(hostile: Hostile, form: str) -> str:
    """Every refused key in ``form`` (``codequorum.toml`` or ``pyproject.toml``); the
    file's name."""
    tables: dict[str, list[str]] = {}
    for command, key, value in REFUSED.values():
        tables.setdefault(command, []).append(f"{key} = {value}")
    prefix = "tool.codequorum." if form == "pyproject.toml" else ""
    head = "[tool.codequorum]\n" if prefix else ""
    text = head + "".join(f"[{prefix}{command}]\n" + "\n".join(lines) + "\n"
                          for command, lines in tables.items())
    hostile.program("tools/python3")
    hostile.write(form, text)
    return form


def _warned_keys(stderr: str) -> list[str]:
    """The keys the warning lines name (``path: [table] key = value: ...``)."""
    from codequorum.options.config_file import _key_of

    return [_key_of(line.removeprefix("codequorum: warning: ")).split("] ")[-1]
            for line in stderr.splitlines() if line.startswith("codequorum: warning: ")]


@pytest.mark.parametrize("form", ["codequorum.toml", "pyproject.toml"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_runs_as_without_the_file(hostile: Hostile, command: str,
                                                form: str) -> None:
    stored = hostile.run("sample", "src/mod.py", "-f", "f", "--from", "samples.jsonl")
    assert stored.returncode == 0, stored.stderr  # versions to check and export
    name = _project_file(hostile, form)
    before = hostile.home_snapshot()
    argv = COMMANDS[command]
    result = hostile.run(*argv, timeout=300)
    mine = hostile.run(*argv, "--isolated", timeout=300)
    assert (result.returncode, result.stdout) == (mine.returncode, mine.stdout), result.stderr
    assert result.returncode != 2, result.stderr
    one_warning(result, f"{name}: ", "store = ", "ignored: a project's configuration file "
                "cannot choose the version store", "or pass --store")
    keys = _warned_keys(result.stderr)
    assert sorted(keys) == sorted(key.split()[0] for _, key, _ in REFUSED.values()), keys
    assert not hostile.marker.exists()
    assert hostile.home_snapshot() == before


def test_a_flag_the_user_passed_wins_over_the_refused_key(hostile: Hostile) -> None:
    """``check --dynamic`` in a repository whose file says ``dynamic = true``: the run goes
    on as the user asked (the file's key is one warning)."""
    hostile.write("pyproject.toml", "[tool.codequorum.check]\ndynamic = true\n")
    result = hostile.run("check", "src", "--dynamic", "--format", "json")
    mine = hostile.run("check", "src", "--dynamic", "--format", "json", "--isolated")
    assert (result.returncode, result.stdout) == (mine.returncode, mine.stdout)
    assert result.returncode == 0, result.stderr
    one_warning(result, "pyproject.toml: [tool.codequorum.check] dynamic = true: ignored")


# ----------------------------------------------------------------------------- the servers


@asynccontextmanager
async def _language_server(hostile: Hostile) -> AsyncIterator[LanguageClient]:
    """``codequorum lsp`` started in the repository (its current folder), as an editor
    starts it there, initialized on it."""
    client = make_test_lsp_client()
    env = {**hostile.env(), "XDG_CACHE_HOME": str(hostile.home.parent / "cache")}
    await client.start_io(sys.executable, "-m", "codequorum", "lsp", env=env,
                          cwd=str(hostile.repo))
    try:
        await asyncio.wait_for(client.initialize_session(types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=hostile.repo.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=hostile.repo.as_uri(),
                                                     name="repo")])), timeout=60)
        yield client
        await asyncio.wait_for(client.shutdown_session(), timeout=20)
    finally:
        # pytest-lsp leaves ``LanguageClient.stop`` unannotated: a coroutine returning None
        stop: Callable[[], Awaitable[None]] = client.stop
        await asyncio.wait_for(stop(), timeout=20)


async def _answers_a_hover(client: LanguageClient, hostile: Hostile) -> None:
    uri = open_document(client, hostile.repo / "src" / "mod.py", SOURCE)
    await hover_once(client, uri, types.Position(line=0, character=4))  # answered
    assert client.error is None


@pytest.mark.parametrize("form", ["codequorum.toml", "pyproject.toml"])
async def test_the_language_server_starts_and_warns_once_per_file(hostile: Hostile,
                                                                   form: str) -> None:
    name = _project_file(hostile, form)
    async with _language_server(hostile) as client:
        await _answers_a_hover(client, hostile)
        await wait_for(lambda: client.messages)
        await asyncio.sleep(0.5)  # anything more it would say about the file
        about = [m.message for m in client.messages if f"{name}: " in m.message]
        assert len(about) == 1, about  # one message for the file, a line per key
        summary, *lines = about[0].splitlines()  # a long message is cut, its summary first
        assert summary.startswith(f"codequorum: {name}: {len(REFUSED)} keys ignored (")
        assert all(f"{command}] {key}" in summary for command, key, _ in REFUSED.values())
        assert lines and ": ignored: a project's configuration file cannot" in lines[0]


@pytest.mark.parametrize(("text", "expected"), [
    ("[check\nfail-on = ", "server starts with the defaults"),          # not TOML
    ('[check]\nfail-on = 3\nmax-depth = "deep"\n',                      # wrong types:
     "ignored ([check] fail-on, [check] max-depth): each line says why"),
    ("[chek]\nnope = 1\n", "server starts with the defaults"),         # unknown table
])
async def test_the_language_server_starts_on_a_broken_file(hostile: Hostile, text: str,
                                                           expected: str) -> None:
    hostile.write("codequorum.toml", text)
    async with _language_server(hostile) as client:
        await _answers_a_hover(client, hostile)
        await wait_for(lambda: client.messages)
        said = [m.message for m in client.messages if "codequorum.toml: " in m.message]
        assert len(said) == 1 and expected in said[0], said


@pytest.mark.parametrize("text", ["", "[mcp\n"])
async def test_the_mcp_server_starts_past_refused_keys_and_a_broken_file(
        hostile: Hostile, text: str) -> None:
    name = _project_file(hostile, "codequorum.toml")
    if text:
        hostile.write(name, text)
    params = StdioServerParameters(command=sys.executable, args=["-m", "codequorum", "mcp"],
                                   cwd=str(hostile.repo), env=hostile.env())
    errlog_path = hostile.home.parent / "mcp.err"
    with errlog_path.open("w") as errlog:
        async with (stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as session):
            await asyncio.wait_for(session.initialize(), 60)
            tools = await asyncio.wait_for(session.list_tools(), 30)
            assert {t.name for t in tools.tools} >= {"check_function", "compare_versions"}
    err = errlog_path.read_text()
    assert "Traceback" not in err
    warned = [line for line in err.splitlines() if line.startswith("codequorum: warning: ")]
    assert warned and all("codequorum.toml: " in line for line in warned), err
    assert not hostile.marker.exists()


def test_reach_table_names_real_keys() -> None:
    """Every key above is a real option of the command it is put under."""
    from codequorum.options.config_file import CONFIGURATION_KEYS, options_of

    for command, key, _ in REFUSED.values():
        assert key in options_of(command) or key in CONFIGURATION_KEYS, (command, key)
