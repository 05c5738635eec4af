"""What Compare and Show Report show: every version against the current code, the most
different first; the report with every version's code."""

from __future__ import annotations

from codequorum.lsp.rendering import to_markdown, to_plain
from codequorum.lsp.reports import compared_order, comparison_doc, report_doc

from .test_renderers import CURRENT, V1, V2, V3, Fixed, fixed  # noqa: F401


def test_the_most_different_comes_first_and_the_anchor_not_at_all() -> None:
    assert compared_order(3, 1, 4) == [1, 0, 2]
    assert compared_order(0, None, 3) == [1, 2]
    assert compared_order(0, 0, 2) == [1]


def test_comparison_every_version_against_the_current_code(fixed: Fixed) -> None:  # noqa: F811
    _, entry, analysis = fixed
    text = to_plain(comparison_doc(entry, analysis, 400))
    lines = text.split("\n")
    assert lines[0] == "codequorum · Shape.area · 3 versions + your code · 2 clusters"
    heads = [line for line in lines if line and not line.startswith("    ")]
    most = analysis.most_different
    assert most is not None
    assert heads[1:] == [
        f"Most different: {analysis.label(most)} against current",
        *[f"{analysis.label(i)} against current" for i in (0, 1, 2) if i != most],
    ]
    assert "    -    return h * w" in lines
    assert "`" not in text and "**" not in text
    only = to_markdown(comparison_doc(entry, analysis, 400, every=False))
    assert only.count("```diff") == 1 and "Most different: " in only


def test_report_has_the_hover_then_every_version(fixed: Fixed) -> None:  # noqa: F811
    _, entry, analysis = fixed
    text = to_plain(report_doc(entry, analysis))
    head, _, versions = text.partition("\n\nThe versions\n\n")
    assert head.startswith(
        "codequorum · Shape.area · 3 versions + your code · 2 clusters\n\n⚠️ unstable-structure"
    )
    for code in (V1, V2, V3, CURRENT):
        indented = "\n".join("    " + line for line in code.rstrip("\n").split("\n"))
        assert indented in versions
    assert versions.startswith(f"{analysis.label(0)} · relayed\n")
