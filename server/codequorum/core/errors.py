"""Errors a user can cause: each carries a one-line message fit to show as is."""

#: The exit status of a run cut short by Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130


class UserError(Exception):
    """A problem with the user's input or configuration, not a bug in codequorum."""

    exit_code = 1


class UnknownLanguageError(UserError, ValueError):
    """A language name or file extension codequorum does not know."""

    exit_code = 2


class UnknownFormatError(UserError, ValueError):
    """An input or output format codequorum does not know."""

    exit_code = 2


class SandboxUnavailableError(UserError):
    """The strict sandbox cannot run here; candidates are not run without an opt-in."""

    exit_code = 3
