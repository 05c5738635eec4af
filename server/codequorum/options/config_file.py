"""Option defaults from configuration files: ``codequorum.toml`` or ``[tool.codequorum]`` in
``pyproject.toml``, and the user's own ``$XDG_CONFIG_HOME/codequorum/config.toml``.

A project's file is found as ruff finds its own: from a starting folder upwards, the
closest folder holding a ``codequorum.toml``, or a ``pyproject.toml`` with a
``[tool.codequorum]`` table, wins (``codequorum.toml`` first when a folder has both). Keys
are the commands' long option names (``no-tsed = true``, ``fail-on = "warning"``); a table
named after a command (``[tool.codequorum.check]``) holds options of that command only and
wins over the shared top level. Every value is checked against the option it sets, as the
command line would check it, and the result becomes the parser's defaults, so a flag on
the command line still wins.

Only analysis choices may come from a project's file: every option declares what it can do
(:class:`~codequorum.options.policy.Reach`, next to the option), and an option that names a
program, an interpreter, a file codequorum writes, a store, the workspace, an endpoint, a key
variable or a cluster, or that runs versions or weakens the sandbox, is refused in any file
but the user's own. A file named by ``--config`` is a project's file, and so is the user's
own file when a repository could have written it (it lies inside the project, or others may
write it). A file a project names to be read must lie inside the project. A refused key never stops
a command: it is left out with one warning line naming the file, the key, why, and where
the user may set it (:class:`RefusedKey`, gathered in a ``refused`` list), and the command
goes on with the user's own values. A wrong value (of the wrong type, or not one the option
takes) in a project's file is such a warning too: the key is left out and its default
applies. Any other mistake (a file that is not TOML, an unknown key, a wrong value in the
user's own file) is one line too (:class:`ConfigError`, exit status 2; the servers warn and
start with the defaults instead).
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import os
import tomllib
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codequorum.core.errors import UserError
from codequorum.core.os_features import user_id
from codequorum.core.safe_paths import UnreadableFile, read_regular, real_path
from codequorum.core.user_dirs import config_dir
from codequorum.options.declarations import COMMANDS, Option, editor_settings, keys_of
from codequorum.options.policy import Reach

PROJECT_NAMES = ("codequorum.toml", "pyproject.toml")
USER_FILE = "config.toml"
#: A configuration file larger than this is not read (a repository's may be any size).
MAX_CONFIG_BYTES = 1024 * 1024
#: Keys whose environment variable, when set, wins over every configuration file.
ENVIRONMENT_FIRST: dict[str, str] = {
    "base-url": "CODEQUORUM_BASE_URL",
    "model": "CODEQUORUM_MODEL",
}


class ConfigError(UserError):
    """A configuration file that cannot be read or holds a wrong key or value."""

    exit_code = 2


class RefusedKey(ConfigError):
    """A key only the user may set, found in a project's file: left out with a warning."""


@dataclass(frozen=True)
class ConfigFile:
    """One configuration file: its codequorum table, how messages name that table
    (``tool.codequorum``, or "" for the top level of ``codequorum.toml``), and whether it
    is the user's own file (which may set every option; ``demoted`` says why the user's
    file is read as a project's instead)."""

    path: Path
    table: Mapping[str, Any]
    section: str = ""
    user: bool = False
    demoted: str = ""


# ----------------------------------------------------------------------------- files


def user_config_path() -> Path:
    """The user-level configuration file."""
    return config_dir() / USER_FILE


def read_config(path: Path, *, user: bool = False) -> ConfigFile | None:
    """The codequorum table of ``path``: ``[tool.codequorum]`` of a ``pyproject.toml``
    (None when it has none), the whole file otherwise."""
    where = display_path(path)
    try:
        # "utf-8-sig": a byte-order mark, as Windows editors write one, is not an error
        data = tomllib.loads(read_regular(path, MAX_CONFIG_BYTES).decode("utf-8-sig"))
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such file") from None
    except UnreadableFile as exc:
        if path.is_dir():
            raise ConfigError(f"{where}: is a folder, not a TOML file") from None
        raise ConfigError(f"{where}: {str(exc).removeprefix(str(path)).strip()}") from None
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{where}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per level of arrays and inline tables
        raise ConfigError(f"{where}: not read: its arrays or tables are nested too "
                          "deeply") from None
    if path.name != "pyproject.toml":
        return ConfigFile(path, data, "", user)
    tool = data.get("tool")
    if not isinstance(tool, dict) or "codequorum" not in tool:
        return None
    table = tool["codequorum"]
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: tool.codequorum = {show(table)}: expected a table "
                          "([tool.codequorum])")
    return ConfigFile(path, table, "tool.codequorum", user)


def find_project_config(start: Path) -> ConfigFile | None:
    """The closest project file at or above ``start`` (a folder, or a file's folder)."""
    folder = real_path(start)
    if not _is(folder, Path.is_dir):
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        for name in PROJECT_NAMES:
            path = candidate / name
            if _is(path, Path.is_file):
                found = read_config(path)
                if found is not None:
                    return found
    return None


def _is(path: Path, kind: Callable[[Path], bool]) -> bool:
    """``kind(path)``, False where the path cannot be looked at (a name too long for the
    system: a path on the command line is anyone's)."""
    try:
        return kind(path)
    except OSError:
        return False


def config_files(start: Path, explicit: Path | None = None,
                 isolated: bool = False) -> list[ConfigFile]:
    """The files that give defaults, weakest first: the user-level file, then the project
    file (``explicit`` when given, else the closest one above ``start``); none when
    ``isolated``. A file named by ``explicit`` is a project file: its content may come
    from anyone, so it may set analysis choices only. The user-level file is read as a
    project's too when a repository could have written it (:func:`not_yours_alone`)."""
    if isolated:
        return []
    project = read_config(explicit) if explicit is not None else find_project_config(start)
    files: list[ConfigFile] = []
    user = user_config_path()
    if user.is_file():
        demoted = not_yours_alone(user, _project_roots(start, project))
        found = read_config(user, user=not demoted)
        if found is not None:
            files.append(dataclasses.replace(found, demoted=demoted))
    if project is not None and not (files and _same(project.path, files[0].path)):
        files.append(project)
    return files


def _project_roots(start: Path, project: ConfigFile | None) -> list[Path]:
    """The folders a repository controls here: the project file's folder and the workspace
    (a folder holding ``.git`` or ``.codequorum``) above ``start``."""
    from codequorum.ingest.workspace import marked_workspace

    roots = [project.path.parent] if project is not None else []
    found = marked_workspace(start)
    return [*roots, found] if found is not None else roots


def not_yours_alone(path: Path, roots: Iterable[Path]) -> str:
    """Why the user-level file at ``path`` may hold a repository's words ("" when it is the
    user's alone): it is another user's, others may write it, or it (or a symlink to it,
    or ``$XDG_CONFIG_HOME``) lies inside one of ``roots``, the project's folders. A project
    that holds the user's own configuration folder (a home folder kept in git) is not
    counted: there the user wrote both. Windows has no POSIX owner or mode bits (its files'
    ACLs say who may write): there only the last holds."""
    try:
        info = path.stat()
        real = path.resolve()
    except OSError:
        return ""
    uid = user_id()
    if uid is not None and info.st_uid != uid:
        return "it belongs to another user"
    if uid is not None and info.st_mode & 0o002:
        return "others may write it"
    home_config = (Path.home() / ".config").resolve()
    for root in roots:
        try:
            top = root.resolve()
        except OSError:
            continue
        if real.is_relative_to(top) and not home_config.is_relative_to(top):
            return f"it lies inside the project {top}"
    return ""


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


# ----------------------------------------------------------------------------- options


def options_of(command: str) -> dict[str, Option]:
    """The keys a file may set for ``command``: long option names without ``--`` (not
    required options, nor the options that pick the files)."""
    return keys_of(command)


def command_defaults(files: Iterable[ConfigFile], command: str,
                     refused: list[str] | None = None) -> dict[str, Any]:
    """Parser defaults (dest -> value) for ``command`` from ``files`` (weakest first).

    Every file is checked whole, against every command (a mistake in another command's
    table is still a mistake). Raises :class:`ConfigError`; with ``refused``, a key only the
    user may set is one line added to it and skipped instead."""
    out: dict[str, Any] = {}
    for config in files:
        out.update(check_file(config, refused).get(command, {}))
    return out


def check_file(config: ConfigFile,
               refused: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Per command, the defaults ``config`` gives (dest -> value): the top level first,
    then the command's own table over it. Raises :class:`ConfigError`; a key only the user
    may set goes to ``refused`` (once) when it is given, and is skipped."""

    def skip(exc: RefusedKey) -> None:
        if refused is None:
            raise exc
        if str(exc) not in refused:
            refused.append(str(exc))

    options = {name: options_of(name) for name in COMMANDS}
    shared: dict[str, dict[str, Any]] = {name: {} for name in COMMANDS}
    own: dict[str, dict[str, Any]] = {name: {} for name in COMMANDS}
    for key, value in config.table.items():
        if isinstance(value, dict):
            if key not in options:
                raise ConfigError(_unknown_table(config, key))
            for sub_key, sub_value in value.items():
                where = _join(config.section, key)
                option = options[key].get(sub_key)
                if option is None and sub_key in CONFIGURATION_KEYS:
                    skip(_configuration_key(config, where, sub_key))
                    continue
                if option is None:
                    raise ConfigError(_unknown_key(config, where, sub_key, options[key], key))
                try:
                    dest, converted = _convert(config, where, sub_key, sub_value, option)
                except ConfigError as exc:
                    skip(_left_out(config, exc))
                    continue
                if dest:
                    own[key][dest] = converted
            continue
        owners = [name for name in COMMANDS if key in options[name]]
        if not owners and key in CONFIGURATION_KEYS:
            skip(_configuration_key(config, config.section, key))
            continue
        if not owners:
            every = {k: o for name in COMMANDS for k, o in options[name].items()}
            raise ConfigError(_unknown_key(config, config.section, key, every, None))
        problems: dict[str, ConfigError] = {}
        for name in owners:
            try:
                dest, converted = _convert(config, config.section, key, value,
                                           options[name][key])
            except ConfigError as exc:
                problems[name] = exc
                continue
            if dest:
                shared[name][dest] = converted
        refusals = {n: e for n, e in problems.items() if isinstance(e, RefusedKey)}
        if refusals:  # a key only the user may set, for some command: refused for all
            for name in owners:
                shared[name].pop(options[name][key].attribute, None)
            skip(RefusedKey(str(_shared_problem(config, key, owners, refusals, problems))))
        elif problems and len(problems) < len(owners):  # others take it: left out here
            skip(RefusedKey(f"{_shared_problem(config, key, owners, problems)}; left out for "
                            + ", ".join(f"`{name}`" for name in problems)))
        elif problems:
            skip(_left_out(config, _shared_problem(config, key, owners, problems)))
    return {name: {**shared[name], **own[name]} for name in COMMANDS}


def _left_out(config: ConfigFile, exc: ConfigError) -> RefusedKey:
    """A wrong value in a project's file is a warning (a :class:`RefusedKey`: the key is
    left out and its default applies), so a repository cannot stop a command for everyone
    who runs it; in the user's own file it stays an error the user can fix."""
    if isinstance(exc, RefusedKey):
        return exc
    if config.user:
        raise exc
    return RefusedKey(f"{exc}; left out: the default applies")


#: The keys that pick the configuration files themselves: no file sets them.
CONFIGURATION_KEYS = ("config", "isolated")


def _configuration_key(config: ConfigFile, where: str, key: str) -> RefusedKey:
    """``config`` or ``isolated`` in a file: left out, the flag named."""
    return RefusedKey(f"{_where(config, where)}{key}: ignored: {Reach.CONFIGURATION.refusal}; "
                      f"pass --{key} on the command line")


def _shared_problem(config: ConfigFile, key: str, owners: Sequence[str],
                    problems: Mapping[str, ConfigError],
                    failing: Collection[str] = ()) -> ConfigError:
    """A top-level value some commands refuse: the first refusal, and when other commands
    take the value, which command's table it belongs in. ``failing``: every command that
    does not take it (by default those of ``problems``), so a table that would refuse the
    value too (``sandbox = "weak"`` under ``[mcp]``) is never the one named."""
    first, error = next(iter(problems.items()))
    fine = [name for name in owners if name not in problems and name not in failing]
    if not fine:
        return error
    table = _join(config.section, fine[0])
    return ConfigError(f"{error} for `{first}`; an option of one command goes in its own "
                       f"table, here [{table}]")


def _convert(config: ConfigFile, where: str, key: str, value: Any,
             option: Option) -> tuple[str | None, Any]:
    """(dest, value) as the option would store it, or (None, None) when the environment
    decides instead. Raises :class:`ConfigError` naming the file, table, key and what is
    allowed."""

    def fail(problem: str) -> ConfigError:
        return ConfigError(f"{_where(config, where)}{key} = {show(value)}: "
                           f"{clipped(problem, 200)}")

    reach = option.reach
    allowed = option.project_values
    if not config.user and not reach.project_may_set and allowed is None:
        _refuse(config, where, key, value, option)  # whatever the value
    env = ENVIRONMENT_FIRST.get(key)
    if env and os.environ.get(env):
        return None, None
    dest, converted = _typed(config, key, value, option, fail)
    if config.user or reach is Reach.ANALYSIS:
        return dest, converted
    if allowed is not None and allowed(converted):
        return dest, converted
    if reach is Reach.PROJECT_FILE:
        return dest, _inside_project(config, where, key, value, converted)
    _refuse(config, where, key, value, option)
    raise AssertionError("unreachable")  # _refuse raises


def _inside_project(config: ConfigFile, where: str, key: str, value: Any,
                    converted: Any) -> Any:
    """A file a project's ``config`` names to be read: its real path, when it lies inside
    the project (the configuration file's folder, symlinks followed) and is a regular file
    or does not exist (the command then says so). Raises :class:`RefusedKey` otherwise."""
    path = Path(str(converted)).expanduser()
    if not path.is_absolute():
        path = config.path.parent / path
    real = Path(os.path.realpath(path))
    top = Path(os.path.realpath(config.path.parent))
    problem = ""
    if not real.is_relative_to(top):
        problem = f"{Reach.PROJECT_FILE.refusal} ({clipped(str(real), 120)})"
    elif real.exists() and not real.is_file():
        problem = f"cannot name anything but a regular file ({clipped(str(real), 120)})"
    if problem:
        raise RefusedKey(f"{_where(config, where)}{key} = {show(value)}: ignored: a "
                         f"project's configuration file {problem}; set it in your own "
                         f"{display_path(user_config_path())}, or pass --{key}")
    return real if isinstance(converted, Path) else str(real)


def _typed(config: ConfigFile, key: str, value: Any, option: Option,
           fail: Callable[[str], ConfigError]) -> tuple[str, Any]:
    """(dest, value) as the option would store it, checked as the command line would."""
    dest = option.attribute
    if option.kind in ("flag", "off", "either"):
        if not isinstance(value, bool):
            raise fail("expected true or false")
        negated = option.kind == "off" or (option.kind == "either" and key.startswith("no-"))
        return dest, not value if negated else value
    if option.kind == "count":
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise fail("expected a whole number of at least 0")
        return dest, value
    if option.kind != "value":
        raise fail("cannot be set in a configuration file")
    converted = _convert_value(option, value, fail)
    if isinstance(converted, Path) and not converted.is_absolute():
        converted = config.path.parent / converted.expanduser()
    if option.choices is not None and converted not in option.choices:
        raise fail(f"expected one of {', '.join(str(c) for c in option.choices)}")
    allowed = option.values
    if isinstance(allowed, tuple) and converted not in allowed:
        raise fail(f"expected one of {', '.join(allowed)}")
    if callable(allowed):
        try:
            allowed(str(converted))
        except (UserError, ValueError) as exc:
            raise fail(str(exc)) from None
    return dest, converted


def _convert_value(option: Option, value: Any,
                   fail: Callable[[str], ConfigError]) -> Any:
    """The value through the option's type, as the command line would convert it."""
    kind = option.type
    if kind is None or kind is str or kind is Path:
        if not isinstance(value, str):
            raise fail("expected a string")
        return Path(value) if kind is Path else value
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise fail("expected a whole number" if kind is int else "expected a number"
                   if kind is float else f"expected a value like {_metavar(option)}")
    try:
        return kind(str(value))
    except argparse.ArgumentTypeError as exc:
        raise fail(str(exc)) from None
    except (TypeError, ValueError):
        raise fail("expected a whole number" if kind is int else "expected a number"
                   if kind is float else f"expected a value like {_metavar(option)}") from None


def _metavar(option: Option) -> str:
    return option.metavar or option.attribute.upper()


def _refuse(config: ConfigFile, where: str, key: str, value: Any,
            option: Option) -> None:
    """A key only the user's own configuration may set, found in a project's file: one
    line naming the file, the key, why, and where the user sets it. Raises
    :class:`RefusedKey`."""
    reason = option.reach.refusal
    env = ENVIRONMENT_FIRST.get(key)
    with_value = option.project_values is not None
    flag = f"--{key} {clipped(str(value), 60)}" if with_value else f"--{key}"
    if isinstance(value, bool):  # the flag that means the same
        name = key.removeprefix("no-")
        flag = f"--{name}" if value != key.startswith("no-") else f"--no-{name}"
    elsewhere = f"{display_path(user_config_path())}" + (f" or ${env}" if env else "")
    own = (f" (your own file is read as a project's: {config.demoted})" if config.demoted
           else "")
    raise RefusedKey(f"{_where(config, where)}{key} = {show(value)}: ignored: a project's "
                     f"configuration file {reason}; set it in your own {elsewhere}, or "
                     f"pass {flag}{own}")


# ----------------------------------------------------------------------------- messages


def display_path(path: Path) -> str:
    """``path`` relative to the current folder when inside it, else as it is."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def show(value: Any, limit: int = 60) -> str:
    """A value as TOML writes it (``true``, ``"loud"``, ``2``), shortened."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (str, int, float)):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, dict):
        text = "{...}"
    elif isinstance(value, list):
        text = "[...]"
    else:
        text = str(value)
    return clipped(text, limit)


def clipped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters (the last one ``…``): what a repository wrote
    is quoted in a message only so far."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _join(section: str, key: str) -> str:
    return f"{section}.{key}" if section else key


def _where(config: ConfigFile, table: str) -> str:
    """``pyproject.toml: [tool.codequorum.check] `` or ``codequorum.toml: ``."""
    return f"{display_path(config.path)}: " + (f"[{table}] " if table else "")


def _unknown_key(config: ConfigFile, table: str, key: str,
                 options: Mapping[str, Option], command: str | None) -> str:
    """One line: the unknown key, a close match, and where the allowed keys are listed."""
    name = key.replace("_", "-")
    close = ([f"no-{name}"] if f"no-{name}" in options
             else difflib.get_close_matches(name, list(options), n=1))
    hint = f"; did you mean {close[0]}?" if close else ""
    which = (f"the long options of `codequorum {command} --help`" if command else
             "the long options of the commands (`codequorum COMMAND --help`), or a "
             "command's table")
    return f"{_where(config, table)}unknown key {show(key)}{hint} (keys are {which})"


def _unknown_table(config: ConfigFile, key: str) -> str:
    """One line: a table that is not named after a command."""
    close = difflib.get_close_matches(key.lower(), COMMANDS, n=1)
    hint = f"; did you mean [{_join(config.section, close[0])}]?" if close else ""
    return (f"{_where(config, config.section)}unknown table {show(key)}: expected one of "
            f"the commands {', '.join(sorted(COMMANDS))}, or an option = value{hint}")


# ----------------------------------------------------------------------------- editor

#: Language-server settings read from one command's view of the files:
#: (command, option attribute) -> setting (the declared settings that mirror an option).
EDITOR_SETTINGS: dict[tuple[str, str], str] = editor_settings()


def workspace_defaults(root: str | Path, refused: list[str] | None = None) -> dict[str, Any]:
    """The language server's settings (``analysis.metrics``, ``provider.model``, ...) that the
    configuration files give a workspace: ``check``'s view for the analysis and the store,
    ``sample``'s for the endpoint, ``score``'s for the sandbox. Only keys a file sets are
    returned (paths made absolute); the editor's own settings go over them. The same rule
    as on the command line holds: a key only the user may set, in the project's file, is
    one line in ``refused`` and left out (raised without ``refused``). Raises
    :class:`ConfigError` for any other mistake."""
    files = config_files(Path(root))
    views = {command: command_defaults(files, command, refused)
             for command in sorted({command for command, _ in EDITOR_SETTINGS})}
    if refused is not None:
        refused[:] = by_file(refused)
    out: dict[str, Any] = {}
    for (command, dest), setting in EDITOR_SETTINGS.items():
        if dest in views.get(command, {}):
            value = views[command][dest]
            out[setting] = (str(value) if isinstance(value, Path) else
                            list(value) if isinstance(value, tuple) else value)
    return out


def not_read(exc: ConfigError) -> str:
    """The warning of a server that starts without a broken file's values."""
    return f"{exc} (the file is not read: the server starts with the defaults)"


def by_file(lines: Sequence[str]) -> list[str]:
    """``lines`` (each naming its file first, ``path: ...``) as one message per file, so an
    editor shows each file once: a first line that names the keys left out and where the
    user sets them, then the lines themselves (one file's single line stays as it is)."""
    groups: dict[str, list[str]] = {}
    for line in lines:
        groups.setdefault(line.split(": ", 1)[0], []).append(line)
    out = []
    for path, group in groups.items():
        if len(group) == 1:
            out.append(group[0])
            continue
        keys = ", ".join(dict.fromkeys(_key_of(line) for line in group))
        why = (f"only you may set them, in your own {display_path(user_config_path())} or "
               "with a flag" if all(": ignored: " in line for line in group) else
               "each line says why")
        out.append("\n".join([f"{path}: {len(group)} keys ignored ({keys}): {why}", *group]))
    return out


def _key_of(line: str) -> str:
    """The table and key a refusal line names (``path: [table] key = value: ...``)."""
    return line.split(": ", 1)[-1].split(" = ", 1)[0].split(":", 1)[0]
