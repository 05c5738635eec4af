"""ANSI colours for line-oriented output (``check``'s findings), on only when asked.

Lines stay one per finding, unwrapped, so they can be grepped and parsed with colour off.
"""

from __future__ import annotations

RESET = "\x1b[0m"
#: SGR codes of the styles used.
STYLES: dict[str, str] = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "yellow": "33",
    "blue": "34",
    "cyan": "36",
}
#: Severity -> style of the severity and code, as linters colour them.
SEVERITY_STYLE: dict[str, tuple[str, ...]] = {
    "error": ("bold", "red"),
    "warning": ("bold", "yellow"),
    "information": ("bold", "blue"),
    "hint": ("dim",),
}


def paint(text: str, *styles: str, enabled: bool = True) -> str:
    """``text`` wrapped in the styles' escape codes (unchanged when not ``enabled`` or no
    style is given). ``text`` must already be safe: it is not escaped here."""
    if not enabled or not styles or not text:
        return text
    codes = ";".join(STYLES[s] for s in styles)
    return f"\x1b[{codes}m{text}{RESET}"
