"""A small module of ordinary code whose functions need it: standard-library imports, a
relative import of a constant, a helper called by a method of a class, doctests, and a
``__main__`` block that must not run. Used to run versions in their module end to end."""

from __future__ import annotations

UNITS_SOURCE = 'UNITS = {"h": 3600, "m": 60, "s": 1}\n'

DURATION_APP = '''import re
from bisect import insort

from .units import UNITS


def parse_duration(text):
    """Seconds in a duration such as 1h30m.

    >>> parse_duration('1h30m')
    5400
    >>> parse_duration('45s')
    45
    """
    total = 0
    for amount, unit in re.findall(r"(\\d+)([hms])", text):
        total += int(amount) * UNITS[unit]
    return total


class Timer:
    """Durations added up."""

    def __init__(self, start):
        self.parts = []
        insort(self.parts, start)

    def add(self, text):
        """Add a duration; the sorted parts.

        >>> Timer(5).add('1m')
        [5, 60]
        """
        insort(self.parts, parse_duration(text))
        return self.parts


if __name__ == "__main__":
    raise SystemExit("the main block ran")
'''

#: Correct versions of the module's functions, as an assistant would write them: they use
#: the module's imports, its constant, its helper and their class.
DURATION_VERSIONS = {
    "parse_duration": [
        "def parse_duration(text):\n    return sum(int(a) * UNITS[u]"
        " for a, u in re.findall(r'(\\d+)([hms])', text))\n",
        "def parse_duration(text):\n    parts = []\n"
        "    for m in re.finditer(r'(\\d+)([hms])', text):\n"
        "        insort(parts, int(m.group(1)) * UNITS[m.group(2)])\n    return sum(parts)\n",
        "def parse_duration(text):\n    total = 0\n"
        "    for amount, unit in re.findall(r'(\\d+)([hms])', text):\n"
        "        total += int(amount) * UNITS[unit]\n    return total\n",
    ],
    "Timer.add": [
        "def add(self, text):\n    insort(self.parts, parse_duration(text))\n"
        "    return self.parts\n",
        "def add(self, text):\n    self.parts = sorted([*self.parts, parse_duration(text)])\n"
        "    return list(self.parts)\n",
    ],
}


def standalone(app: str = DURATION_APP) -> str:
    """The module outside a package: its constant defined in it."""
    return app.replace("from .units import UNITS\n", UNITS_SOURCE)
