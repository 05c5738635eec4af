"""What the registries of output formats share (``score``'s sinks, ``check``'s findings):
a format found by its name, and the words of ``--format``'s help."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from codequorum.core.errors import UnknownFormatError


class Named(Protocol):
    """A registry entry with a name and its words in ``--format``'s help."""

    @property
    def name(self) -> str: ...

    @property
    def help(self) -> str: ...


F = TypeVar("F", bound=Named)


def by_name(formats: Sequence[F], name: str) -> F:
    """The format named ``name``, or :class:`UnknownFormatError` (exit status 2)."""
    for fmt in formats:
        if fmt.name == name:
            return fmt
    names = ", ".join(f.name for f in formats)
    raise UnknownFormatError(f"unknown output format {name!r} (choose {names})")


def help_words(formats: Sequence[Named]) -> str:
    """Every format's words, ``a, b or c``."""
    words = [f.help for f in formats]
    return f"{', '.join(words[:-1])} or {words[-1]}"
