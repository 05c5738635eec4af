"""The hover's rules: its title, which verdicts it lists, its figures, which versions it diffs."""

from __future__ import annotations

from codequorum.core.report import Verdict
from codequorum.lsp.hover import (
    diff_pair,
    figures_text,
    hover_title,
    sandbox_note,
    verdict_lines,
)
from codequorum.lsp.rendering import Line, to_markdown, to_plain


def md(line: Line) -> str:
    return to_markdown(((line,),))


def plain(line: Line) -> str:
    return to_plain(((line,),))


def test_title_counts_versions_and_clusters_once_compared() -> None:
    assert md(hover_title("Shape.area", "1 version", None)) == (
        "**codequorum** · `Shape.area` · 1 version")
    assert md(hover_title("f", "3 versions + your code", 2)) == (
        "**codequorum** · `f` · 3 versions + your code · 2 clusters")
    assert md(hover_title("f", "0 versions", 1)) == (
        "**codequorum** · `f` · 0 versions · 1 cluster")
    assert plain(hover_title("Shape.area", "1 version", None)) == (
        "codequorum · Shape.area · 1 version")


def test_verdicts_headline_marked_then_the_other_warnings_only() -> None:
    stable = Verdict("stable", "information", "versions agree")
    hint = Verdict("redundant-alternatives", "hint", "two are the same")
    error = Verdict("divergent-outputs", "error", "outputs differ")
    warning = Verdict("unstable-structure", "warning", "shapes differ")
    assert [md(line) for line in verdict_lines(stable, [stable, hint, error])] == [
        "✓ `stable` — versions agree",
        "⚠️ `divergent-outputs` — outputs differ",
    ]
    assert [md(line) for line in verdict_lines(warning, [hint, warning])] == [
        "⚠️ `unstable-structure` — shapes differ"
    ]
    assert [plain(line) for line in verdict_lines(warning, [hint, warning])] == [
        "⚠️ unstable-structure — shapes differ"
    ]
    assert verdict_lines(None, [hint]) == []


def test_figures_in_fixed_order_without_missing_or_non_numbers() -> None:
    summary = {
        "oer": 0.5,
        "tsed": {"ordered": 0.55, "unordered": 0.5},
        "jsd_struct": {"ordered": 0.62},
        "sce_struct": {"ordered": float("nan")},
        "sctd_jsd": True,
        "dctd_jsd": 12345.0,
    }
    assert figures_text(summary) == "JSD 0.62 · TSED 0.55 · DCTD 1.23e+04 · OER 0.50"
    assert figures_text({}) == ""


def test_diff_pair_prefers_the_current_code_then_the_most_typical_version() -> None:
    assert diff_pair(3, 0, 2) == (3, 2)
    assert diff_pair(None, 0, 2) == (0, 2)
    assert diff_pair(None, None, 2) is None
    assert diff_pair(3, 0, None) is None


def test_the_hover_says_which_sandbox_ran_when_it_was_not_the_strict_one() -> None:
    from types import SimpleNamespace

    from codequorum.behaviour.sandbox.isolation import PORTABLE_NOTE, WEAK_WARNING

    why = ("the strict sandbox is not available here (this machine has no bubblewrap): "
           "versions run in the portable sandbox")
    assert sandbox_note(SimpleNamespace(notes=[why, PORTABLE_NOTE])) == why
    assert sandbox_note(SimpleNamespace(notes=[PORTABLE_NOTE])) == PORTABLE_NOTE
    assert sandbox_note(SimpleNamespace(notes=[WEAK_WARNING])) == WEAK_WARNING
    assert sandbox_note(SimpleNamespace(notes=["no inputs to run"])) is None
    assert sandbox_note(None) is None
