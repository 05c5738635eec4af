"""What the editor tests share: the configuration blocks of docs/editors.md as written, and
the function the tests open (HumanEval/0's prompt with a body unlike its versions)."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "editors.md"

#: The body of the opened function: far from every stored version (an ``outlier-current``).
CURRENT_BODY = (
    "    ordered = sorted(numbers)\n"
    "    return any(b - a < threshold for a, b in zip(ordered, ordered[1:]))\n"
)


def doc_block(heading: str, language: str) -> str:
    """The first ```<language> block after ``heading`` in docs/editors.md, as written."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    match = re.compile(rf"```{re.escape(language)}\n(.*?)```", re.S).search(text, start)
    assert match is not None, f"no {language} block after {heading!r}"
    return match.group(1)
