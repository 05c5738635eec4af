"""Who may set an option: a project's configuration, or only the user.

A repository carries configuration (``codequorum.toml``, ``[tool.codequorum]`` in
``pyproject.toml``, a file named by ``--config``, a workspace folder's editor settings) that
nobody reviewed. What such a file may set is decided by what the option can do, declared
once, next to the option, as a :class:`Reach`:

- ``Option("max-depth", ..., Reach.ANALYSIS, ...)`` for an option of a command
  (:mod:`codequorum.options.declarations`; the parser built from it carries the reach as an
  attribute of each argparse action, :func:`declare`);
- ``Setting("store.path", ..., reach=Reach.STORE)`` for an editor setting (declared in the
  same module; the language server's settings and ``"x-codequorum-reach": "store"`` in
  ``shared/settings.schema.json`` are read from it).

Only :attr:`Reach.ANALYSIS` (what is computed and how it is shown) and
:attr:`Reach.PROJECT_FILE` (a file read, named inside the project) may come from a project.
Everything else is the user's alone: the command line, the user's own configuration file,
the environment, the editor's user settings. An option nobody declared is refused too, and
a test lists every option of every command and every setting and fails on an undeclared
one, so a new option cannot slip through.
"""

from __future__ import annotations

import argparse
import enum
from collections.abc import Callable, Iterable, Mapping

from codequorum.core.os_features import usable_cores

#: Values a project may still give a user-only option (the safe ones: ``sandbox =
#: "strict"``, ``propose-inputs = false``), as a test of the value.
ProjectValues = Callable[[object], bool]

_REACH_ATTR = "codequorum_reach"
_VALUES_ATTR = "codequorum_project_values"


class Reach(enum.Enum):
    """What an option can do; the member decides who may set it, and its value says why a
    project may not (the end of "a project's configuration file ...")."""

    #: What is computed and how it is shown: metrics, depth, thresholds, formats,
    #: languages, ``fail-on``, how many versions to ask for. A project may set it.
    ANALYSIS = ""
    #: A file that is only read (problems, a report to compare with). A project may name one
    #: inside its own folder (a regular file, no symlink out), never one outside.
    PROJECT_FILE = "cannot name a file outside the project"
    #: Names a program codequorum starts.
    PROGRAM = "cannot name a program for codequorum to run"
    #: Names an interpreter codequorum starts (even only to compile bytecode).
    INTERPRETER = "cannot name an interpreter for codequorum to run"
    #: Chooses a file codequorum writes (``-o``, a log file) or how it is written.
    OUTPUT = "cannot choose a file codequorum writes"
    #: Chooses the version store codequorum reads, runs versions from and writes.
    STORE = "cannot choose the version store codequorum reads and writes"
    #: Chooses the workspace, and with it where the store is kept.
    WORKSPACE = "cannot choose the workspace (where the version store is kept)"
    #: Chooses where the user's API key is sent.
    ENDPOINT = "cannot choose where the API key is sent"
    #: Chooses which of the user's secrets is sent as the API key.
    KEY_VARIABLE = "cannot choose which API key is sent"
    #: Has the user's endpoint asked, spending the user's key.
    SPENDS_KEY = "cannot have your endpoint asked with your API key"
    #: Decides how hard the user's endpoint is asked (requests at once).
    ENDPOINT_LOAD = "cannot choose how hard your endpoint is asked"
    #: Decides how many tokens one answer may cost the user's key.
    TOKEN_SPEND = "cannot choose how many tokens your API key pays for"
    MODEL = "cannot choose which model your API key pays for"
    #: Sends work to a cluster and reads its answers back into this process.
    CLUSTER = ("cannot choose a remote cluster to send the samples to, nor more local "
               "workers than this machine has cores")
    #: Weakens or lengthens the sandbox's protection.
    SANDBOX = "cannot weaken the sandbox"
    #: Makes codequorum run versions at all.
    RUNS_CODE = "cannot make codequorum run the versions"
    #: Decides how many processes codequorum starts at once (worker processes, sandboxed
    #: versions); a project may ask for up to :func:`machine_cores`.
    PROCESSES = "cannot start more processes at once than this machine has cores"
    #: Hides findings or turns one of codequorum's views off (diagnostics, hovers, lenses,
    #: the status bar, a least severity above the lowest); a project may only show more.
    VISIBILITY = "cannot hide findings or turn codequorum's views off"
    #: Opens a network port.
    NETWORK = "cannot open a network port"
    #: Picks the configuration files themselves: no file sets it, the user's included.
    CONFIGURATION = "cannot be set in a configuration file"

    @property
    def project_may_set(self) -> bool:
        """True when a project's file (or a workspace's settings) may give a value."""
        return self in (Reach.ANALYSIS, Reach.PROJECT_FILE)

    @property
    def refusal(self) -> str:
        """Why a project's file may not set it ("cannot ..."); "" when it may."""
        return self.value


def machine_cores() -> int:
    """The processes a project may have codequorum start at once: the cores this process
    may use, at least 2."""
    return max(2, usable_cores())


def within_cores(value: object) -> bool:
    """Whether a project's process count ``value`` is at most :func:`machine_cores`."""
    return isinstance(value, int) and not isinstance(value, bool) and value <= machine_cores()


def declare(action: argparse.Action, reach: Reach, *,
            project_values: ProjectValues | None = None) -> argparse.Action:
    """Say what ``action`` (an option just added to a parser) can do; ``project_values``: the
    values a project may still give a user-only option. Returns ``action``."""
    setattr(action, _REACH_ATTR, reach)
    if project_values is not None:
        setattr(action, _VALUES_ATTR, project_values)
    return action


def reach_of(action: argparse.Action) -> Reach | None:
    """What ``action`` was declared to do (None: not declared, so refused to projects)."""
    reach = getattr(action, _REACH_ATTR, None)
    return reach if isinstance(reach, Reach) else None


def project_values(action: argparse.Action) -> ProjectValues | None:
    """The test of the values a project may still give a user-only ``action`` (or name
    without a file, for :attr:`Reach.PROJECT_FILE`), if it has one."""
    allowed = getattr(action, _VALUES_ATTR, None)
    return allowed if callable(allowed) else None


def _needs_declaration(action: argparse.Action) -> bool:
    """Every option with a flag does, but ``--help`` and ``--version`` (they set nothing)."""
    return bool(action.option_strings) and not isinstance(
        action, argparse._HelpAction | argparse._VersionAction)


def undeclared(parsers: Mapping[str, argparse.ArgumentParser]) -> list[str]:
    """``"COMMAND --option"`` for every option of every command that declares no reach."""
    return [f"{name} {_longest(action.option_strings)}"
            for name, parser in parsers.items()
            for action in parser._actions
            if _needs_declaration(action) and reach_of(action) is None]


def _longest(flags: Iterable[str]) -> str:
    return max(flags, key=len)
