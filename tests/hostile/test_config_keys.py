"""A repository's configuration cannot act for it: every option says what it can do, and a
project's file (``codequorum.toml``, ``[tool.codequorum]``, a file named by ``--config``,
the user's own file when the repository could have written it) sets analysis choices only.

The commands run as the user would run them, in the repository, with a fake home folder:
no program of the repository runs, nothing under the home folder changes, and a refused
key is one warning line naming the file, the key, why and where the user may set it; the
command goes on as it would without the key.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from codequorum.cli.main import command_parsers, parse_arguments
from codequorum.options.config_file import ConfigError, options_of, workspace_defaults
from codequorum.options.declarations import COMMANDS, Option
from codequorum.options.policy import Reach, undeclared

from .conftest import Hostile, one_line_error, one_warning

SCHEMA = Path(__file__).resolve().parents[2] / "shared" / "settings.schema.json"


# ----------------------------------------------------------------------------- declarations


def test_every_option_of_every_command_says_who_may_set_it() -> None:
    missing = undeclared(command_parsers())
    assert not missing, (
        f"options that do not say what they can do: {', '.join(missing)}. Declare each in "
        "codequorum.options.declarations (an Option, which the parser is built from) with "
        "Reach.ANALYSIS when a project's codequorum.toml may set it (metrics, "
        "depth, thresholds, formats, languages), else the Reach member that names what it "
        "can do (PROGRAM, INTERPRETER, OUTPUT, STORE, WORKSPACE, ENDPOINT, KEY_VARIABLE, "
        "SPENDS_KEY, CLUSTER, SANDBOX, RUNS_CODE, NETWORK, PROJECT_FILE for a file only read), "
        "with project_values=... for the harmless values a project may still give")


def test_every_editor_setting_says_who_may_set_it() -> None:
    from codequorum.lsp.settings import CLIENT_ONLY, SPECS

    declared = {f"codequorum.{s.key}": s.reach for s in SPECS}
    declared.update({f"codequorum.{k}": r for k, r in CLIENT_ONLY.items()})
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))["properties"]
    problems = []
    for name, prop in schema.items():
        reach = declared.get(name)
        said = prop.get("x-codequorum-reach")
        if reach is None or said != reach.name.lower().replace("_", "-"):
            problems.append(f"{name}: schema says {said!r}, server says {reach}")
        elif not reach.project_may_set and prop.get("scope") != "machine":
            problems.append(f"{name}: only the user may set it, but its scope is "
                            f"{prop.get('scope')!r}, not \"machine\"")
    assert not problems, (
        "; ".join(problems) + ". Every setting declares what it can do: reach=Reach.X on "
        "its Setting in server/codequorum/options/declarations.py; then run "
        "scripts/generate")
    assert set(declared) == set(schema)


def _user_only() -> list[tuple[str, str, Option]]:
    """(command, key, declaration) of every option only the user may set."""
    out = []
    for command in sorted(COMMANDS):
        for key, option in sorted(options_of(command).items()):
            if key.startswith("no-") and option.kind == "either":
                continue
            if not option.reach.project_may_set:
                out.append((command, key, option))
    return out


def _forbidden_value(option: Option) -> object:
    """A value of ``option`` no project may give."""
    if option.kind in ("flag", "either", "off"):
        return True
    if option.kind == "count":
        return 1
    allowed = option.project_values
    if option.type not in (None, str, Path):
        return 600
    for value in option.choices or ["tools/evil"]:
        if allowed is None or not allowed(value):
            return value
    raise AssertionError(f"no value of {option.option_strings} is refused")


def _set_to(option: Option, value: object) -> object:
    """What the key set to ``value`` makes the option's attribute (``no-x = true``: False)."""
    return not value if option.kind == "off" else value


def _toml(value: object) -> str:
    return json.dumps(value) if not isinstance(value, bool) else str(value).lower()


USER_ONLY = _user_only()


def test_the_options_only_the_user_may_set() -> None:
    """What a project's file can no longer reach, by name (a new one must be added here on
    purpose)."""
    keys = sorted({key for _, key, _ in USER_ONLY})
    assert keys == ["api-key-env", "base-url", "concurrency", "dynamic", "if-needed", "interpreter",
                    "jobs", "log-file", "max-retries", "max-tokens", "model", "no-current",
                    "output", "prepare", "propose-inputs", "resume", "samples", "sandbox",
                    "scheduler", "store", "tcp", "timeout", "versions", "workspace"]


@pytest.mark.parametrize("form", ["codequorum.toml table", "codequorum.toml dotted",
                                  "pyproject table", "top level"])
@pytest.mark.parametrize(("command", "key", "option"), USER_ONLY,
                         ids=[f"{c}-{k}" for c, k, _ in USER_ONLY])
def test_a_project_file_cannot_set_a_user_only_option(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str, command: str, key: str,
        option: Option) -> None:
    """The key is left out with one warning line; the command is read all the same."""
    monkeypatch.chdir(tmp_path)
    value = _toml(_forbidden_value(option))
    name, text = {
        "codequorum.toml table": ("codequorum.toml", f"[{command}]\n{key} = {value}\n"),
        "codequorum.toml dotted": ("codequorum.toml", f"{command}.{key} = {value}\n"),
        "pyproject table": ("pyproject.toml", f"[tool.codequorum.{command}]\n{key} = {value}\n"),
        "top level": ("codequorum.toml", f"{key} = {value}\n"),
    }[form]
    (tmp_path / name).write_text(text, encoding="utf-8")
    argv = {"check": ["check", "."], "sample": ["sample", "m.py", "-f", "f"],
            "score": ["score", "x.jsonl"]}.get(command, [command])
    args = parse_arguments(argv)
    (message,) = args.config_notes
    reach = option.reach
    assert message.startswith(f"{name}: ") and f"{key} = {value}: ignored: a project's " \
        f"configuration file {reach.refusal}; set it in your own " in message, message
    assert "\n" not in message
    assert str(getattr(args, option.attribute)) != str(_set_to(option, _forbidden_value(option)))


@pytest.mark.parametrize(("command", "key", "option"), USER_ONLY,
                         ids=[f"{c}-{k}" for c, k, _ in USER_ONLY])
def test_the_users_own_file_may_set_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, key: str,
        option: Option) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    value = _forbidden_value(option)
    user = tmp_path / "xdg" / "codequorum" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text(f"[{command}]\n{key} = {_toml(value)}\n", encoding="utf-8")
    argv = {"check": ["check", "."], "sample": ["sample", "m.py", "-f", "f"],
            "score": ["score", "x.jsonl"]}.get(command, [command])
    got = getattr(parse_arguments(argv), option.attribute)
    expected = _set_to(option, value)
    assert got == expected or str(got).endswith(str(expected))


# ----------------------------------------------------------------------------- the commands


def test_a_project_interpreter_never_runs_on_plain_score(hostile: Hostile) -> None:
    hostile.program("tools/python3")
    hostile.write("codequorum.toml", 'interpreter = "./tools/python3"\n')
    before = hostile.home_snapshot()
    result = hostile.run("score", "samples.jsonl", "--format", "json")
    assert result.returncode == 0, result.stderr
    one_warning(result, "codequorum.toml: interpreter = \"./tools/python3\": ignored",
                "cannot name an interpreter for codequorum to run", "or pass --interpreter")
    assert json.loads(result.stdout)["sets"][0]["task_id"] == "t/0"
    assert not hostile.marker.exists()
    assert hostile.home_snapshot() == before


@pytest.mark.parametrize(("name", "text", "argv"), [
    ("pyproject.toml", '[tool.codequorum.demo]\ninterpreter = "tools/python3"\n', ["demo"]),
    ("codequorum.toml", '[doctor]\ninterpreter = "tools/python3"\n', ["doctor"]),
    ("codequorum.toml", 'score.interpreter = "tools/python3"\n', ["score", "samples.jsonl"]),
])
def test_no_command_runs_a_project_interpreter(hostile: Hostile, name: str, text: str,
                                               argv: list[str]) -> None:
    """The command runs as it runs without the file: same status, same output."""
    hostile.program("tools/python3")
    hostile.write(name, text)
    result = hostile.run(*argv)
    mine = hostile.run(*argv, "--isolated")
    assert (result.returncode, result.stdout) == (mine.returncode, mine.stdout)
    one_warning(result, f"{name}: ", "interpreter = ", "cannot name an interpreter")
    assert not hostile.marker.exists()


@pytest.mark.parametrize("output", ["../home/.bashrc", "~/.bashrc", "/dev/stdout"])
def test_a_project_cannot_choose_where_score_writes(hostile: Hostile, output: str) -> None:
    hostile.write("codequorum.toml", f'[score]\noutput = "{output}"\nformat = "json"\n')
    before = hostile.home_snapshot()
    result = hostile.run("score", "samples.jsonl")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["sets"][0]["task_id"] == "t/0"  # written where it goes
    one_warning(result, f'[score] output = "{output}": ignored',
                "cannot choose a file codequorum writes", "or pass --output")
    assert hostile.home_snapshot() == before


@pytest.mark.parametrize("text", [
    '[check]\nstore = "../home/.config/gh/hosts.yml"\n',
    '[check]\nstore = "~/.config/gh/hosts.yml"\n',
    'check.workspace = "../home"\n',
    '[sample]\nstore = "../home/empty.db"\n',
])
def test_a_project_cannot_choose_the_store(hostile: Hostile, text: str) -> None:
    hostile.write("codequorum.toml", text)
    before = hostile.home_snapshot()
    imported = hostile.run("sample", "src/mod.py", "-f", "f", "--from", "samples.jsonl")
    assert imported.returncode == 0, imported.stderr
    one_warning(imported, "codequorum.toml: ", "ignored: a project's configuration file "
                "cannot choose the")
    assert (hostile.repo / ".codequorum" / "samples.sqlite3").is_file()  # the user's own
    checked = hostile.run("check", "src", "--format", "json")
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["functions"], checked.stdout  # read from that store
    one_warning(checked, "codequorum.toml: ", "cannot choose the")
    after = hostile.home_snapshot()  # the store made is recorded among the user's approvals
    assert {k: v for k, v in after.items() if not k.startswith(".config/codequorum")} == before


@pytest.mark.parametrize(("text", "said"), [
    ('[sample]\nbase-url = "https://collect.example/v1"\n', "cannot choose where the API key"),
    ('api-key-env = "GITHUB_TOKEN"\n', "cannot choose which API key is sent"),
    ('[score]\nscheduler = "tcp://203.0.113.9:8786"\n', "cannot choose a remote cluster"),
    ('[score]\nsandbox = "weak"\n', "cannot weaken the sandbox"),
    ('[score]\ndynamic = true\n', "cannot make codequorum run the versions"),
    ('[check]\ndynamic = true\ntimeout = 600\n', "cannot make codequorum run the versions"),
    ('[score]\npropose-inputs = true\n', "cannot have your endpoint asked"),
    ('[lsp]\ntcp = "0.0.0.0:2087"\n', "cannot open a network port"),
    ('[lsp]\nlog-file = "../home/.bashrc"\n', "cannot choose a file codequorum writes"),
    ('[sample]\nsamples = 100000\n', "cannot choose how many tokens your API key pays for"),
    ('[score]\njobs = 100000\n', "cannot start more processes at once than this machine"),
    ('[score]\nscheduler = "local:100000"\n', "nor more local workers than this machine"),
    ('[sample]\nmax-retries = 1000000\n', "cannot choose how many tokens your API key"),
])
def test_endpoint_key_cluster_sandbox_and_running_are_the_users(hostile: Hostile, text: str,
                                                                said: str) -> None:
    """Each key is one warning, and the command ends as it ends without the file."""
    hostile.write("pyproject.toml", "[tool.codequorum]\n" + text.replace(
        "[", "[tool.codequorum.") if text.startswith("[") else "[tool.codequorum]\n" + text)
    before = hostile.home_snapshot()
    command = text[1:text.index("]")] if text.startswith("[") else "check"
    argv = {"score": ["score", "samples.jsonl"], "check": ["check", "src"],
            "sample": ["sample", "src/mod.py", "-f", "f", "--print-prompt"],
            "lsp": ["lsp"]}[command]
    result = hostile.run(*argv, timeout=60)
    mine = hostile.run(*argv, "--isolated", timeout=60)
    assert (result.returncode, result.stdout) == (mine.returncode, mine.stdout), result.stderr
    one_warning(result, "pyproject.toml: ", said)
    assert hostile.home_snapshot() == before


def test_a_file_named_by_config_is_a_projects(hostile: Hostile) -> None:
    hostile.program("tools/python3")
    evil = hostile.write("ci/codequorum.toml", '[score]\ninterpreter = "../tools/python3"\n')
    result = hostile.run("score", "samples.jsonl", "--config", str(evil))
    assert result.returncode == 0, result.stderr
    one_warning(result, "ci/codequorum.toml: [score] interpreter")
    assert not hostile.marker.exists()


def test_a_user_file_the_repository_provides_is_read_as_a_projects(hostile: Hostile) -> None:
    """The user's config.toml is a symlink into the repository, or ``XDG_CONFIG_HOME``
    points into it: the repository wrote it, so it sets analysis choices only."""
    hostile.program("tools/python3")
    hostile.write("dotfiles/codequorum/config.toml",
                  f'interpreter = "{hostile.repo / "tools" / "python3"}"\n')
    own = hostile.home / ".config" / "codequorum"
    own.mkdir(parents=True)
    (own / "config.toml").symlink_to(hostile.repo / "dotfiles" / "codequorum" / "config.toml")
    for extra in ({}, {"XDG_CONFIG_HOME": str(hostile.repo / "dotfiles")}):
        result = hostile.run("score", "samples.jsonl", env=extra)
        assert result.returncode == 0, result.stderr
        one_warning(result, "config.toml: interpreter = ", "cannot name an interpreter",
                    "your own file is read as a project's: it lies inside the project")
    assert not hostile.marker.exists()


def test_key_tricks_are_unknown_keys_not_a_way_round(hostile: Hostile) -> None:
    hostile.program("tools/python3")
    for text in ('Interpreter = "tools/python3"\n', '"--interpreter" = "tools/python3"\n',
                 '[SCORE]\ninterpreter = "tools/python3"\n'):
        hostile.write("codequorum.toml", text)
        result = hostile.run("score", "samples.jsonl")
        assert result.returncode == 2
        one_line_error(result, "codequorum.toml: ", "unknown")
    hostile.write("codequorum.toml", '[score.interpreter]\npath = "tools/python3"\n')
    result = hostile.run("score", "samples.jsonl")
    assert result.returncode == 0
    one_warning(result, "codequorum.toml: [score] interpreter = {...}: ignored")
    assert not hostile.marker.exists()


def test_a_project_file_outside_read_paths_is_refused_inside_ones_work(hostile: Hostile) -> None:
    (hostile.repo / "link.json").symlink_to(hostile.home / ".ssh" / "id_ed25519")
    for value in ("../home/.ssh/id_ed25519", "link.json", "~/.ssh/id_ed25519"):
        hostile.write("codequorum.toml", f'[score]\ncompare = "{value}"\nformat = "html"\n')
        result = hostile.run("score", "samples.jsonl")
        assert result.returncode == 0, result.stderr
        assert "<html" in result.stdout and "BEGIN OPENSSH" not in result.stdout
        one_warning(result, f'compare = "{value}": ignored',
                    "cannot name a file outside the project")
    hostile.write("runs/base.json", "{}\n")
    hostile.write("codequorum.toml", '[score]\nformat = "json"\nmax-depth = 12\nno-tsed = true\n'
                  '[check]\nfail-on = "never"\n')
    result = hostile.run("score", "samples.jsonl")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["sets"][0]["task_id"] == "t/0"


def test_a_refused_key_in_the_workspace_file_is_one_warning_in_the_editor(tmp_path: Path) -> None:
    """The language server reads the same files with the same rule: a refused key is left
    out (one message per file, a line naming each key), the analysis choices still count."""
    from codequorum.lsp.settings import file_settings

    (tmp_path / "codequorum.toml").write_text(
        'no-tsed = true\n[check]\nstore = "/etc/passwd"\n[sample]\nbase-url = '
        '"https://collect.example/v1"\n[score]\nsandbox = "weak"\n', encoding="utf-8")
    settings, warnings = file_settings(str(tmp_path))
    assert settings.analysis.metrics == ("textual",)
    assert (settings.store.path, settings.provider.base_url, settings.analysis.sandbox) == (
        "", "https://api.openai.com/v1", "auto")
    (message,) = warnings
    summary, *lines = message.splitlines()
    assert summary.startswith(f"{tmp_path / 'codequorum.toml'}: 3 keys ignored ([check] "
                              "store, [sample] base-url, [score] sandbox): only you may set "
                              "them, in your own ")
    assert [w.split(": ignored: a project's", 1)[0] for w in lines] == [
        f'{tmp_path / "codequorum.toml"}: [check] store = "/etc/passwd"',
        f'{tmp_path / "codequorum.toml"}: [sample] base-url = "https://collect.example/v1"',
        f'{tmp_path / "codequorum.toml"}: [score] sandbox = "weak"',
    ]


def test_reach_members_are_a_closed_vocabulary() -> None:
    """Only two members let a project's file set an option."""
    assert [r for r in Reach if r.project_may_set] == [Reach.ANALYSIS, Reach.PROJECT_FILE]


def test_a_huge_or_special_configuration_file_is_not_read(hostile: Hostile) -> None:
    """A 3 GB sparse ``pyproject.toml`` is one line at once; a FIFO or a symlink to
    ``/dev/zero`` named ``codequorum.toml`` is not a configuration file at all."""
    with (hostile.repo / "pyproject.toml").open("wb") as fh:
        fh.truncate(3 * 10**9)
    result = hostile.run("score", "samples.jsonl", timeout=30)
    assert result.returncode == 2
    one_line_error(result, "pyproject.toml: is larger than 1 MB")
    (hostile.repo / "pyproject.toml").unlink()
    os.mkfifo(hostile.repo / "codequorum.toml")
    (hostile.repo / "src" / "codequorum.toml").symlink_to("/dev/zero")
    for cwd in (hostile.repo, hostile.repo / "src"):
        ok = hostile.run("score", str(hostile.repo / "samples.jsonl"), "--format", "json",
                         cwd=cwd, timeout=30)
        assert ok.returncode == 0, ok.stderr


@pytest.mark.parametrize("text", [
    "x = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "x = " + "{a=" * 50_000 + "1" + "}" * 50_000 + "\n",
])
def test_a_configuration_file_nested_too_deep_is_one_line(hostile: Hostile, text: str) -> None:
    """TOML nested a hundred thousand levels (under the size bound) is one line, not a
    traceback from the parser's recursion, on the command line and in the editor."""
    hostile.write("codequorum.toml", text)
    result = hostile.run("score", "samples.jsonl", timeout=30)
    assert result.returncode == 2
    one_line_error(result, "codequorum.toml: ", "nested too deeply")
    refused: list[str] = []
    with pytest.raises(ConfigError, match="nested too deeply"):
        workspace_defaults(hostile.repo, refused)


#: The longest line a message about one key may be.
MESSAGE_CHARS = 1000


@pytest.mark.parametrize(("key", "value"), [
    ("max-depth", '"' + "y" * 300_000 + '"'),             # a wrong type, echoed by its parser
    ("compare", '"/' + "p" * 300_000 + '"'),              # a file outside the project
    ("base-url", '"http://evil.example/' + "x" * 300_000 + '"'),  # a refused key
    ("z" * 300_000, "1"),                                 # an unknown key
])
def test_a_huge_value_or_key_is_one_short_line(hostile: Hostile, key: str, value: str) -> None:
    """The value (or key) a message quotes is shortened wherever the message is made, so
    the command line and the editor get one line of a few hundred characters."""
    hostile.write("pyproject.toml", f'[tool.codequorum]\n"{key}" = {value}\n')
    result = hostile.run("score", "samples.jsonl", "--format", "json", timeout=60)
    lines = [line for line in result.stderr.splitlines() if "pyproject.toml" in line]
    assert len(lines) == 1, result.stderr[:2000]
    assert len(lines[0]) <= MESSAGE_CHARS, lines[0][:2000]
    refused: list[str] = []
    try:
        workspace_defaults(hostile.repo, refused)
    except ConfigError as exc:
        refused.append(str(exc))
    assert refused and all(len(m) <= MESSAGE_CHARS for m in refused), [m[:300] for m in refused]


# ----------------------------------------------------------------------------- what is shown

#: Settings that hide findings or turn a view off, each with the value that would.
HIDING: list[tuple[str, object]] = [
    ("diagnostics.enable", False), ("hover.enable", False), ("codeLens.enable", False),
    ("statusBar.enable", False), ("diagnostics.minSeverity", "error"),
    ("diagnostics.minSeverity", "warning"), ("dynamic.enable", False),
    ("dynamic.auto", False), ("watch", "off"), ("analysis.includeCurrent", False),
    ("hover.diffLines", 0), ("codeAction.commands", "never"),
]


def _nested(key: str, value: object) -> dict[str, object]:
    group, _, attr = key.partition(".")
    return {"codequorum": {group: {attr: value}} if attr else {group: value}}


@pytest.mark.parametrize(("key", "value"), HIDING, ids=[f"{k}={v}" for k, v in HIDING])
def test_a_workspace_cannot_hide_findings_or_switch_a_view_off(key: str, value: object) -> None:
    """A workspace folder's own value that would show less is one warning and the user's
    own value (here none: the default) holds; the user's settings still turn it off."""
    from codequorum.lsp.settings import CLIENT_ONLY, folder_settings

    raw = _nested(key, value)
    kept, warnings = folder_settings(raw, {}, "/repo")
    if key in CLIENT_ONLY:  # read by the client: VS Code ignores a workspace's machine setting
        prop = json.loads(SCHEMA.read_text(encoding="utf-8"))["properties"][f"codequorum.{key}"]
        assert (prop["scope"], prop["x-codequorum-reach"]) == ("machine", "visibility")
        return
    assert key not in kept
    (warning,) = warnings
    assert warning.startswith(f"the settings of the workspace folder /repo give "
                              f"codequorum.{key} = {json.dumps(value)}: a workspace's settings "
                              "cannot"), warning
    mine, theirs = folder_settings(raw, raw, "/repo")
    assert (mine, theirs) == ({key: value}, [])


@pytest.mark.parametrize(("key", "value"), [
    ("diagnostics.enable", True), ("hover.enable", True), ("codeLens.enable", True),
    ("diagnostics.minSeverity", "hint"), ("codeAction.commands", "always")])
def test_a_workspace_may_still_show_more(key: str, value: object) -> None:
    """Over the user's own value that shows less, the workspace's that shows more counts."""
    from codequorum.lsp.settings import folder_settings

    user = {"diagnostics.enable": False, "hover.enable": False, "codeLens.enable": False,
            "diagnostics.minSeverity": "error", "codeAction.commands": "never"}[key]
    assert folder_settings(_nested(key, value), _nested(key, user), "/repo") == (
        {key: value}, [])


@pytest.mark.parametrize("kind", ["client", "openai-compatible"])
def test_a_workspace_cannot_choose_who_gets_the_code(kind: str) -> None:
    """``provider.kind`` chooses where a function's code goes (the user's endpoint, with the
    key, or a VS Code language model): a workspace folder's value, either way, is one
    warning and the user's own holds."""
    from codequorum.lsp.settings import folder_settings, parse_settings

    raw = _nested("provider.kind", kind)
    kept, (warning,) = folder_settings(raw, {}, "/repo")
    assert "provider.kind" not in kept
    assert "cannot choose where the API key is sent" in warning, warning
    assert folder_settings(raw, raw, "/repo") == ({"provider.kind": kind}, [])
    settings, warnings = parse_settings(raw)
    assert (settings.provider.kind, warnings) == (kind, [])


def test_the_users_settings_still_switch_the_views_off() -> None:
    from codequorum.lsp.settings import parse_settings

    settings, warnings = parse_settings({"codequorum": {
        "diagnostics": {"enable": False, "minSeverity": "error"}, "hover": {"enable": False},
        "codeLens": {"enable": False}, "dynamic": {"enable": False, "auto": False},
        "watch": "off"}})
    assert warnings == []
    assert (settings.diagnostics.enable, settings.diagnostics.min_severity,
            settings.hover.enable, settings.code_lens.enable, settings.dynamic.enable,
            settings.dynamic.auto, settings.watch.mode) == (
        False, "error", False, False, False, False, "off")


DIVERGENT = [
    "def f(x):\n    total = 0\n    for i in range(x):\n        total += i * i\n    return total\n",
    "def f(x):\n    return sum(i * i for i in range(x))\n",
    "def f(x):\n    if x <= 0:\n        return 0\n    return f(x - 1) + (x - 1) ** 2\n",
    "def f(x):\n    return x + 1\n",
]


async def test_the_servers_findings_still_show_over_a_workspace_that_hides_them(
        hostile: Hostile) -> None:
    """The real language server over stdio: a workspace folder's ``.vscode/settings.json``
    turning diagnostics, hovers and lenses off, raising the least severity and leaving the
    current code out of the comparison (no ``outlier-current`` then) is one
    warning per key; the diagnostics are published all the same, below error too."""
    from lsprotocol import types

    from ..lsp.conftest import lsp_session
    from ..lsp.helpers import code_lenses, command, open_document, published, wait_for
    from .conftest import SOURCE

    scoped = {hostile.repo: {"codequorum": {
        "diagnostics": {"enable": False, "minSeverity": "error"},
        "hover": {"enable": False}, "codeLens": {"enable": False},
        "analysis": {"includeCurrent": False}}}}
    async with lsp_session(hostile.repo, env={"HOME": str(hostile.home)},
                           configuration={"codequorum": {"dynamic": {"auto": False}}},
                           folder_configuration=scoped) as client:
        uri = open_document(client, hostile.repo / "src" / "mod.py", SOURCE)
        added = await command(client, "codequorum.addVersions", uri, "f", DIVERGENT)
        assert added["total"] == len(DIVERGENT)
        await wait_for(lambda: len([m for m in client.messages
                                    if "workspace folder" in m.message]) >= 5)
        found = await wait_for(lambda: published(client, uri))
        lenses = await code_lenses(client, uri)
        texts = [m.message for m in client.messages if "workspace folder" in m.message]
    for key in ("diagnostics.enable", "diagnostics.minSeverity", "hover.enable",
                "codeLens.enable", "analysis.includeCurrent"):
        assert sum(f"codequorum.{key} = " in t and "cannot hide findings" in t
                   for t in texts) == 1, (key, texts)
    assert found and any(d.severity != types.DiagnosticSeverity.Error for d in found), found
    assert lenses


def test_a_wrong_value_in_a_projects_file_does_not_stop_check(hostile: Hostile) -> None:
    """``codequorum check`` as a subprocess: a project's wrong values are one warning each,
    naming the key, and the command runs with the defaults (``fail-on`` stays warning);
    the same mistake in the user's own file, or on the command line, is exit status 2."""
    hostile.write("codequorum.toml", '[check]\nfail-on = "loud"\nmax-depth = 0\n'
                  'no-tsed = true\nformat = "json"\n')
    result = hostile.run("check", "src")
    assert result.returncode == 0, result.stderr
    json.loads(result.stdout)  # the project's valid keys still apply
    lines = [line for line in result.stderr.splitlines() if "codequorum.toml" in line]
    assert [line.split(" = ", 1)[0] for line in lines] == [
        "codequorum: warning: codequorum.toml: [check] fail-on",
        "codequorum: warning: codequorum.toml: [check] max-depth"], result.stderr
    assert 'fail-on = "loud": expected one of error, warning' in lines[0]
    assert all(line.endswith("; left out: the default applies") for line in lines)
    (hostile.repo / "codequorum.toml").unlink()
    user = hostile.home / ".config" / "codequorum" / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('[check]\nfail-on = "loud"\n', encoding="utf-8")
    mine = hostile.run("check", "src")
    assert mine.returncode == 2
    one_line_error(mine, 'config.toml: [check] fail-on = "loud": expected one of error')
    user.unlink()
    flag = hostile.run("check", "src", "--fail-on", "loud")
    assert flag.returncode == 2, flag.stderr
