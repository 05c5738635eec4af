"""A child process that draws strings matching patterns, so that a pattern whose matching
backtracks for ever (``(?:a|aa|aaa){64}``: Hypothesis checks each string it draws against
the pattern) stalls a child the parent kills, never the language server or the CLI.

Run as ``python -I -B -m codequorum.behaviour.pattern_draw`` (isolated: nothing of the
working folder, a workspace, is importable). Reads ``{"patterns": [[text, flags], ...],
"count": n}`` as JSON on standard input and writes, per pattern, up to ``n`` distinct
strings matching it whole (printable ASCII, from the fixed seed), ``[]`` where Hypothesis
cannot draw one, as a JSON list on standard output.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any


def draw(text: str, flags: int, count: int) -> list[str]:
    """Up to ``count`` distinct strings matching ``text`` whole, in the order drawn."""
    from hypothesis import strategies as st
    from hypothesis.errors import HypothesisException

    from codequorum.behaviour.seeded_draws import distinct_draws

    try:
        pattern = re.compile(text, flags)
        printable = st.characters(min_codepoint=32, max_codepoint=126)
        strategy = st.from_regex(pattern, fullmatch=True, alphabet=printable)
        return [str(s) for s in distinct_draws(strategy, count)]
    except (HypothesisException, re.error, ValueError, OverflowError, RecursionError):
        return []  # nothing printable matches it, or Hypothesis cannot read it


def main() -> int:
    asked: dict[str, Any] = json.loads(sys.stdin.read())
    count = int(asked["count"])
    out = [draw(str(text), int(flags), count) for text, flags in asked["patterns"]]
    sys.stdout.write(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
