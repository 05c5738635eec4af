"""Configuration files: discovery, per-command tables, precedence, refused keys, messages."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from codequorum.cli.main import main, parse_arguments
from codequorum.options.config_file import ConfigError, find_project_config, workspace_defaults


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user-level folder of the test's own, no endpoint variables, the project as the
    current folder."""
    config_home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    monkeypatch.delenv("CODEQUORUM_BASE_URL", raising=False)
    monkeypatch.delenv("CODEQUORUM_MODEL", raising=False)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return config_home


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def user_file(home: Path, text: str) -> Path:
    return write(home / "codequorum" / "config.toml", text)


def refused_key(argv: list[str]) -> str:
    """The one warning of a command whose project file holds a key only the user may set:
    the command is read all the same, without the key."""
    notes = parse_arguments(argv).config_notes
    assert len(notes) == 1, notes
    assert "\n" not in notes[0]
    return str(notes[0])


def config_error(argv: list[str]) -> str:
    with pytest.raises(ConfigError) as info:
        parse_arguments(argv)
    assert info.value.exit_code == 2
    message = str(info.value)
    assert "\n" not in message
    return message


# ----------------------------------------------------------------------------- discovery


def test_no_file_keeps_the_built_in_defaults() -> None:
    args = parse_arguments(["check", "."])
    assert (args.tsed, args.fail_on, args.min_versions) == (True, "warning", 2)


def test_pyproject_table_gives_defaults_with_typed_values() -> None:
    write(Path("pyproject.toml"), '[project]\nname = "x"\n\n[tool.codequorum]\n'
          'no-tsed = true\nmax-depth = 12\njobs = 2\ncluster-threshold = 0.25\n')
    args = parse_arguments(["score", "in.jsonl"])
    assert (args.tsed, args.max_depth, args.jobs, args.cluster_threshold) == (False, 12, 2,
                                                                               0.25)


def test_closest_file_wins_from_the_input_path(tmp_path: Path) -> None:
    write(Path("pyproject.toml"), "[tool.codequorum]\nmin-samples = 3\n")
    write(Path("pkg/sub/codequorum.toml"), "min-versions = 5\n")
    write(Path("pkg/sub/deep/mod.py"), "x = 1\n")
    assert parse_arguments(["check", "pkg/sub/deep/mod.py"]).min_versions == 5
    assert parse_arguments(["check", "pkg"]).min_versions == 3
    found = find_project_config(Path("pkg/sub/deep"))
    assert found is not None and found.path == (Path.cwd() / "pkg/sub/codequorum.toml")


def test_codequorum_toml_beats_pyproject_in_the_same_folder() -> None:
    write(Path("pyproject.toml"), "[tool.codequorum]\nmin-samples = 3\n")
    write(Path("codequorum.toml"), "min-versions = 4\n")
    assert parse_arguments(["check", "."]).min_versions == 4


def test_a_byte_order_mark_is_read_as_windows_editors_write_it() -> None:
    Path("codequorum.toml").write_bytes("\ufeffmin-versions = 4\n".encode())
    Path("sub").mkdir()
    Path("sub/pyproject.toml").write_bytes(
        "\ufeff[tool.codequorum]\nmax-depth = 12\n".encode())
    assert parse_arguments(["check", "."]).min_versions == 4
    assert parse_arguments(["check", "sub"]).max_depth == 12


def test_pyproject_without_the_table_is_skipped(tmp_path: Path) -> None:
    write(Path("codequorum.toml"), "min-samples = 7\n")
    write(Path("app/pyproject.toml"), '[tool.ruff]\nline-length = 100\n')
    assert parse_arguments(["check", "app"]).min_versions == 7


def test_commands_without_paths_search_from_the_current_folder() -> None:
    write(Path("codequorum.toml"), "no-tsed = true\n")
    assert parse_arguments(["demo"]).tsed is False
    assert parse_arguments(["score", "-"]).tsed is False


# ----------------------------------------------------------------------------- precedence


def test_command_table_wins_over_the_top_level() -> None:
    write(Path("pyproject.toml"), '[tool.codequorum]\nmax-depth = 10\nsamples = 3\n'
          '[tool.codequorum.score]\nmax-depth = 20\n[tool.codequorum.check]\n'
          'fail-on = "error"\n')
    score = parse_arguments(["score", "x.jsonl"])
    check = parse_arguments(["check", "."])
    demo = parse_arguments(["demo"])
    assert (score.max_depth, check.max_depth, demo.max_depth) == (20, 10, 10)
    assert (score.versions, demo.versions, check.fail_on) == (3, 3, "error")


def test_flags_override_the_file() -> None:
    write(Path("codequorum.toml"), 'no-tsed = true\njobs = 2\n[check]\nfail-on = "error"\n'
          'format = "json"\n')
    score = parse_arguments(["score", "x.jsonl", "--jobs", "1"])
    assert (score.jobs, score.tsed) == (1, False)
    check = parse_arguments(["check", ".", "--fail-on", "never", "--format", "sarif"])
    assert (check.fail_on, check.output_format) == ("never", "sarif")


def test_a_flag_silences_the_options_it_excludes() -> None:
    write(Path("codequorum.toml"), "quiet = true\n")
    assert parse_arguments(["check", "."]).quiet is True
    args = parse_arguments(["check", ".", "-v"])
    assert (args.quiet, args.verbose) == (False, 1)


def test_boolean_options_both_ways() -> None:
    write(Path("codequorum.toml"), "[score]\nno-completions = true\ntextual = true\n")
    args = parse_arguments(["score", "x.jsonl"])
    assert (args.completions, args.dynamic, args.textual) == (False, False, True)


def test_a_project_cannot_switch_the_users_dynamic_run_off(home: Path) -> None:
    """The user's own ``dynamic = true`` holds over a project's ``dynamic = false``."""
    user_file(home, "[check]\ndynamic = true\n")
    write(Path("codequorum.toml"), "[check]\ndynamic = false\n")
    note = refused_key(["check", "."])
    assert "dynamic = false: ignored: a project's configuration file cannot make " in note
    assert parse_arguments(["check", "."]).dynamic is True
    write(Path("codequorum.toml"), "[score]\ncompletions = true\n")
    assert parse_arguments(["score", "x.jsonl"]).completions is True


def test_paths_are_relative_to_the_file(home: Path) -> None:
    user_file(home, '[check]\nstore = "data/samples.sqlite3"\n')
    write(Path("codequorum.toml"), '[score]\ncompare = "runs/base.json"\n')
    write(Path("runs/base.json"), "{}\n")
    write(Path("src/mod.py"), "x = 1\n")
    args = parse_arguments(["check", "src/mod.py"])
    assert args.store == home / "codequorum" / "data" / "samples.sqlite3"
    assert parse_arguments(["score", "x.jsonl"]).compare == str(Path.cwd() / "runs" / "base.json")


def test_config_option_names_the_file(tmp_path: Path) -> None:
    write(Path("codequorum.toml"), "min-samples = 3\n")
    other = write(tmp_path / "elsewhere" / "ci.toml", "min-samples = 9\n")
    assert parse_arguments(["check", ".", "--config", str(other)]).min_versions == 9
    shared = write(tmp_path / "elsewhere" / "pyproject.toml",
                   "[tool.codequorum.check]\nmin-samples = 6\n")
    assert parse_arguments(["check", ".", "--config", str(shared)]).min_versions == 6


def test_config_option_missing_file() -> None:
    assert config_error(["check", ".", "--config", "nope.toml"]) == "nope.toml: no such file"


def test_isolated_ignores_every_file(home: Path) -> None:
    write(Path("codequorum.toml"), 'min-samples = 3\nfail-on = "loud"\n')
    user_file(home, "[check]\nmin-samples = 4\n")
    assert parse_arguments(["check", ".", "--isolated"]).min_versions == 2


def test_config_and_isolated_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", ".", "--config", "x.toml", "--isolated"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


# ----------------------------------------------------------------------------- user file


def test_user_file_sets_the_endpoint_and_the_project_overrides_it(home: Path) -> None:
    user_file(home, '[sample]\nbase-url = "http://localhost:11434/v1"\napi-key-env = ""\n'
              'model = "qwen2.5-coder:7b"\nsamples = 8\n')
    write(Path("codequorum.toml"), "[sample]\nsamples = 3\n")
    write(Path("app.py"), "def f():\n    return 1\n")
    args = parse_arguments(["sample", "app.py", "-f", "f"])
    assert (args.base_url, args.api_key_env, args.model, args.versions) == (
        "http://localhost:11434/v1", "", "qwen2.5-coder:7b", 3)


def test_environment_wins_over_the_user_file(home: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    user_file(home, '[sample]\nbase-url = "http://localhost:11434/v1"\n')
    monkeypatch.setenv("CODEQUORUM_BASE_URL", "http://localhost:8000/v1")
    write(Path("app.py"), "def f():\n    return 1\n")
    # the parser reads the variable when it is built, so build it after setting it
    assert parse_arguments(["sample", "app.py", "-f", "f"]).base_url == (
        "http://localhost:8000/v1")


def test_user_file_may_weaken_the_sandbox(home: Path) -> None:
    user_file(home, 'sandbox = "weak"\nscheduler = "tcp://10.0.0.5:8786"\n')
    args = parse_arguments(["score", "x.jsonl"])
    assert (args.sandbox, args.scheduler) == ("weak", "tcp://10.0.0.5:8786")


def test_relative_xdg_config_home_is_ignored(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    write(Path("relative/codequorum/config.toml"), "[check]\nmin-samples = 4\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative")
    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))
    assert parse_arguments(["check", "."]).min_versions == 2


# ----------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(("text", "expected"), [
    ('[tool.codequorum.sample]\nbase-url = "https://evil.example/v1"\n',
     'pyproject.toml: [tool.codequorum.sample] base-url = "https://evil.example/v1": '
     "ignored: a project's configuration file cannot choose where the API key is sent; "
     "set it in your "
     "own {user} or $CODEQUORUM_BASE_URL, or pass --base-url"),
    ('[tool.codequorum]\napi-key-env = "GITHUB_TOKEN"\n',
     'pyproject.toml: [tool.codequorum] api-key-env = "GITHUB_TOKEN": ignored: a '
     "project's configuration file cannot choose which API key is sent; set it in your "
     "own {user}, or "
     "pass --api-key-env"),
    ('[tool.codequorum.score]\nsandbox = "weak"\n',
     'pyproject.toml: [tool.codequorum.score] sandbox = "weak": ignored: a project\'s '
     "configuration file cannot weaken the sandbox; set it in your own {user}, or pass "
     "--sandbox weak"),
    ('[tool.codequorum]\npropose-inputs = true\n',
     "pyproject.toml: [tool.codequorum] propose-inputs = true: ignored: a project's "
     "configuration "
     "file cannot have your endpoint asked with your API key; set it in your own {user}, or pass "
     "--propose-inputs"),
    ('[tool.codequorum.score]\nscheduler = "tcp://203.0.113.9:8786"\n',
     'pyproject.toml: [tool.codequorum.score] scheduler = "tcp://203.0.113.9:8786": '
     "ignored: a project's configuration file cannot choose a remote cluster to send the "
     "samples to, "
     "nor more local workers than this machine has cores; set it in your own {user}, or pass "
     "--scheduler tcp://203.0.113.9:8786"),
])
def test_project_file_cannot_choose_the_endpoint_or_weaken_the_sandbox(
        home: Path, text: str, expected: str) -> None:
    write(Path("pyproject.toml"), text)
    message = refused_key(["check", "."])
    assert message == expected.format(user=home / "codequorum" / "config.toml")


def test_project_file_may_ask_for_the_strict_sandbox_and_local_workers() -> None:
    write(Path("codequorum.toml"), '[score]\nsandbox = "strict"\nscheduler = "local:2"\n')
    args = parse_arguments(["score", "x.jsonl"])
    assert (args.sandbox, args.scheduler) == ("strict", "local:2")


def test_a_file_named_by_config_is_a_project_file(tmp_path: Path) -> None:
    other = write(tmp_path / "ci.toml", '[sample]\napi-key-env = "AWS_SECRET_ACCESS_KEY"\n')
    message = refused_key(["check", ".", "--config", str(other)])
    assert message.startswith(f'{other}: [sample] api-key-env = "AWS_SECRET_ACCESS_KEY": '
                              "ignored: a project's configuration file cannot choose")


# ----------------------------------------------------------------------------- messages


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("pyproject.toml", '[tool.codequorum.check]\nfail-on = "loud"\n',
     'pyproject.toml: [tool.codequorum.check] fail-on = "loud": expected one of error, '
     "warning, information, not-run, never"),
    ("codequorum.toml", '[check]\nfail_on = "error"\n',
     'codequorum.toml: [check] unknown key "fail_on"; did you mean fail-on? (keys are the '
     "long options of `codequorum check --help`)"),
    ("codequorum.toml", "tsed = false\n",
     'codequorum.toml: unknown key "tsed"; did you mean no-tsed? (keys are the long options '
     "of the commands (`codequorum COMMAND --help`), or a command's table)"),
    ("codequorum.toml", "[chek]\njobs = 2\n",
     'codequorum.toml: unknown table "chek": expected one of the commands check, demo, '
     "doctor, export, lsp, mcp, sample, score, or an option = value; did you mean [check]?"),
    ("pyproject.toml", "[tool.codequorum.scroe]\njobs = 2\n",
     'pyproject.toml: [tool.codequorum] unknown table "scroe": expected one of the commands '
     "check, demo, doctor, export, lsp, mcp, sample, score, or an option = value; did you "
     "mean [tool.codequorum.score]?"),
    ("codequorum.toml", "[lint]\njobs = 2\n",
     'codequorum.toml: unknown table "lint": expected one of the commands check, demo, '
     "doctor, export, lsp, mcp, sample, score, or an option = value"),
    ("codequorum.toml", 'no-tsed = "yes"\n',
     'codequorum.toml: no-tsed = "yes": expected true or false'),
    ("codequorum.toml", "jobs = 0\n", "codequorum.toml: jobs = 0: expected at least 1, got 0"),
    ("codequorum.toml", "jobs = true\n", "codequorum.toml: jobs = true: expected a value like N"),
    ("codequorum.toml", "[score]\nstable-jsd = \"high\"\n",
     'codequorum.toml: [score] stable-jsd = "high": expected a number'),
    ("codequorum.toml", "[check]\nmin-samples = \"3\"\nmax-depth = [1]\n",
     'codequorum.toml: [check] max-depth = [...]: expected a value like D'),
    ("codequorum.toml", '[score]\ncolor = "rainbow"\n',
     'codequorum.toml: [score] color = "rainbow": expected one of auto, always, never'),
    ("codequorum.toml", '[check]\nlanguage = "cobol"\n',
     "codequorum.toml: [check] language = \"cobol\": unknown language 'cobol'; known: "),
    ("codequorum.toml", "[sample]\nfunction = \"f\"\n",
     'codequorum.toml: [sample] unknown key "function"'),
    ("codequorum.toml", "jobs = \n", "codequorum.toml: not valid TOML: "),
    ("pyproject.toml", '[tool]\ncodequorum = "on"\n',
     'pyproject.toml: tool.codequorum = "on": expected a table ([tool.codequorum])'),
])
def test_every_mistake_is_one_line_naming_file_key_and_what_is_allowed(
        home: Path, name: str, text: str, expected: str) -> None:
    """A wrong value in a project's file is a warning (the key left out, its default
    applies); in the user's own file, and any other mistake anywhere, it is an error."""
    write(Path(name), text)
    if not _is_value_mistake(expected):
        assert config_error(["check", "."]).startswith(expected)
        return
    note = refused_key(["check", "."])
    assert note.startswith(expected) and note.endswith("; left out: the default applies"), note
    Path(name).unlink()
    if name == "codequorum.toml":  # the user's own file: the user's mistake to fix
        user_file(home, text)
        assert config_error(["check", "."]).startswith(
            expected.replace("codequorum.toml", str(home / "codequorum" / "config.toml"), 1))


def _is_value_mistake(message: str) -> bool:
    """``file: [table] key = value: ...``: a wrong value of a known key."""
    return re.match(r"^\S+: (\[[^\]]+\] )?[a-z-]+ = ", message) is not None


def test_not_utf8_file() -> None:
    Path("codequorum.toml").write_bytes(b"jobs = 2 # \xff\n")
    assert config_error(["check", "."]) == "codequorum.toml: not UTF-8 text"


def test_a_file_outside_the_current_folder_is_named_by_its_full_path(tmp_path: Path) -> None:
    write(tmp_path / "codequorum.toml", "jobs = 0\n")
    write(Path("mod.py"), "x = 1\n")
    assert refused_key(["check", "mod.py"]) == (
        f"{tmp_path / 'codequorum.toml'}: jobs = 0: expected at least 1, got 0; left out: "
        "the default applies")


def test_main_prints_the_error_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    write(Path("pyproject.toml"), '[tool.codequorum.check]\nfail_on = "loud"\n')
    assert main(["check", "."]) == 2
    assert capsys.readouterr().err.startswith(
        'codequorum: error: pyproject.toml: [tool.codequorum.check] unknown key "fail_on"')


def test_every_command_accepts_config_and_isolated(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("check", "score", "sample", "demo", "lsp", "doctor"):
        assert main([command, "--help"]) == 0
        out = capsys.readouterr().out
        assert "--config PATH" in out and "--isolated" in out, command


# ----------------------------------------------------------------------------- editor


def test_workspace_defaults_map_file_keys_to_server_settings(home: Path) -> None:
    user_file(home, 'propose-inputs = true\n[sample]\nbase-url = "http://localhost:8080/v1"\n'
              'api-key-env = ""\nmodel = "qwen2.5-coder:7b"\n'
              '[check]\nstore = "cq/samples.sqlite3"\ntimeout = 4\n')
    write(Path("pyproject.toml"), '[tool.codequorum]\nno-tsed = true\nmax-depth = 12\n'
          'jobs = 2\n'
          '[tool.codequorum.sample]\nsamples = 8\ntimeout = 30\n'
          'temperature = 0.6\nuse-n = true\n')
    assert workspace_defaults(Path.cwd()) == {
        "analysis.tsed": False,
        "analysis.maxDepth": 12,
        "store.path": str(home / "codequorum" / "cq" / "samples.sqlite3"),
        "dynamic.timeout": 4.0,
        "dynamic.proposeInputs": True,
        "provider.baseUrl": "http://localhost:8080/v1",
        "provider.apiKeyEnv": "",
        "provider.model": "qwen2.5-coder:7b",
        "provider.temperature": 0.6,
        "provider.versions": 8,
        "provider.timeout": 30.0,
        "provider.useN": True,
    }


def test_workspace_defaults_without_files_are_empty() -> None:
    assert workspace_defaults(Path.cwd()) == {}


def test_workspace_defaults_refuse_a_project_endpoint() -> None:
    write(Path("codequorum.toml"), '[sample]\nbase-url = "https://evil.example/v1"\n')
    with pytest.raises(ConfigError, match="cannot choose where the API key is sent"):
        workspace_defaults(Path.cwd())
    refused: list[str] = []
    assert workspace_defaults(Path.cwd(), refused) == {}
    assert len(refused) == 1 and "base-url" in refused[0]


@pytest.mark.parametrize("text", ['config = "x.toml"\n', '[check]\nisolated = true\n'])
def test_the_keys_that_pick_the_files_are_left_out_with_a_warning(text: str) -> None:
    write(Path("codequorum.toml"), text + "no-tsed = true\n")
    args = parse_arguments(["check", "."])
    assert args.config is None and args.isolated is False and args.tsed is False
    (note,) = args.config_notes
    assert note.startswith("codequorum.toml: ") and ": ignored: cannot be set in a " \
        "configuration file; pass --" in note


def test_a_top_level_value_some_commands_refuse_is_theirs_to_leave_out() -> None:
    """``format = "sarif"`` is a `check` format only: `check` takes it, the others leave it
    out with one line naming them and the table it belongs in; nothing stops."""
    write(Path("codequorum.toml"), 'format = "sarif"\n')
    args = parse_arguments(["check", "."])
    assert args.output_format == "sarif"
    (note,) = args.config_notes
    assert note == ('codequorum.toml: format = "sarif": expected one of table, json, jsonl, '
                    "csv, html for `demo`; an option of one command goes in its own table, "
                    "here [check]; left out for `demo`, `doctor`, `score`")
    assert parse_arguments(["score", "x.jsonl"]).output_format is None  # a table


def test_a_projects_shared_weak_sandbox_names_no_table_that_would_refuse_it_too(
        home: Path) -> None:
    """``sandbox = "weak"`` at a project's top level is refused by the commands that run
    versions and is no value the agents' server takes: the one warning says why and where
    to set it, and sends nobody to ``[mcp]``, which would refuse it as well."""
    write(Path("codequorum.toml"), 'sandbox = "weak"\n')
    args = parse_arguments(["check", "."])
    assert args.sandbox == "auto"
    (note,) = args.config_notes
    assert note == ('codequorum.toml: sandbox = "weak": ignored: a project\'s configuration '
                    f"file cannot weaken the sandbox; set it in your own "
                    f"{home / 'codequorum' / 'config.toml'}, or pass --sandbox weak")


def test_the_users_weak_sandbox_is_left_out_by_the_agents_server_only(home: Path) -> None:
    """The agents' server never runs versions in the weak sandbox: a user's shared
    ``sandbox = "weak"`` weakens the commands that take it, the agents' server starts as
    ever at its own default and says why it left the key out."""
    user_file(home, 'sandbox = "weak"\n')
    assert parse_arguments(["check", "."]).sandbox == "weak"
    mcp = parse_arguments(["mcp"])
    assert mcp.sandbox == "auto"
    assert any("left out for `mcp`" in note for note in mcp.config_notes)


def test_a_refused_key_leaves_the_users_own_value() -> None:
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "codequorum" / "config.toml"
    write(user, '[check]\nstore = "mine.sqlite3"\n')
    write(Path("codequorum.toml"), '[check]\nstore = "../theirs.sqlite3"\ndynamic = true\n')
    args = parse_arguments(["check", ".", "--dynamic"])
    assert (args.store, args.dynamic) == (user.parent / "mine.sqlite3", True)
    assert [n.split(": ignored: ")[0] for n in args.config_notes] == [
        'codequorum.toml: [check] store = "../theirs.sqlite3"',
        "codequorum.toml: [check] dynamic = true"]


def test_language_server_settings_from_the_files() -> None:
    from codequorum.lsp.settings import file_settings, parse_settings

    write(Path("codequorum.toml"), "no-tsed = true\n[sample]\nmodel = \"llama3\"\n")
    base, warnings = file_settings(str(Path.cwd()))
    # which model the user's key pays for is the user's choice, not the project's
    assert (base.analysis.metrics, base.provider.model) == (("textual",), "gpt-4o-mini")
    assert len(warnings) == 1 and "model" in warnings[0], warnings
    assert "cannot choose which model your API key pays for" in warnings[0]
    editor, _ = parse_settings({"provider": {"model": "gpt-4o-mini"}}, base)
    assert (editor.analysis.metrics, editor.provider.model) == (("textual",), "gpt-4o-mini")
    # a wrong value is left out; the file's other keys still count
    write(Path("codequorum.toml"), "no-tsed = true\njobs = 0\n")
    base, warnings = file_settings(str(Path.cwd()))
    assert (base.analysis.metrics, warnings) == (("textual",), [
        "codequorum.toml: jobs = 0: expected at least 1, got 0; left out: the default "
        "applies"])
    write(Path("codequorum.toml"), "jobz = 0\n")
    base, warnings = file_settings(str(Path.cwd()))
    assert base.analysis.metrics == ("tsed", "textual")
    assert len(warnings) == 1 and warnings[0].endswith(
        "(the file is not read: the server starts with the defaults)"), warnings


def test_a_users_file_others_may_write_is_named_only_where_files_have_posix_owners(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codequorum.options import config_file

    user_file = tmp_path / "config.toml"
    user_file.write_text("")
    user_file.chmod(0o666)
    assert config_file.not_yours_alone(user_file, []) == "others may write it"
    monkeypatch.setattr(config_file, "user_id", lambda: None)  # Windows: ACLs, no uid
    assert config_file.not_yours_alone(user_file, []) == ""
    assert config_file.not_yours_alone(user_file, [tmp_path]).startswith(
        "it lies inside the project")
