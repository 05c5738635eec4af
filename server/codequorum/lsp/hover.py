"""The hover: a compact markdown summary of one function's versions.

Reads the report (summary, clusters, medoid, typicality, verdicts) and the versions'
text; the only thing it makes is a short unified diff for display. Every piece of text that
is not our own wording (names, messages, labels, code) goes through :mod:`markdown`, so it
shows as written and cannot add links, images, HTML or close a code fence.
"""

from __future__ import annotations

import difflib

from codequorum.findings import (
    compared_text,
    consensus,
    current_standing,
    recommendation_lines,
)
from codequorum.lsp.documents import FunctionEntry
from codequorum.lsp.engine import FunctionAnalysis
from codequorum.lsp.markdown import md_block, md_code, md_text
from codequorum.lsp.settings import Settings

#: (summary key, label) of the pairwise figures shown, in order.
PAIR_FIGURES: tuple[tuple[str, str], ...] = (
    ("jsd_struct", "JSD"),
    ("sce_struct", "SCE"),
    ("tsed", "TSED"),
)
#: (summary key, label) of the dynamic figures shown when a sandboxed run exists.
DYNAMIC_FIGURES: tuple[tuple[str, str], ...] = (
    ("sctd_jsd", "SCTD"),
    ("dctd_jsd", "DCTD"),
    ("bef_jsd", "BEF"),
    ("oer", "OER"),
)


#: What a hover says while the versions are still being compared.
COMPUTING = "comparing the versions…"


def render_computing(entry: FunctionEntry, n_stored: int) -> str:
    """The hover of a function whose analysis is under way."""
    count = f"{n_stored} sample{'s' if n_stored != 1 else ''}"
    return f"**codequorum** · {md_code(entry.name)} · {count} · {COMPUTING}"


def _fmt(value: object) -> str | None:
    if isinstance(value, dict):
        value = value.get("ordered")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value:  # NaN
        return None
    return f"{value:.2f}" if abs(value) < 1000 else f"{value:.3g}"


def short_diff(a: str, b: str, a_name: str, b_name: str, max_lines: int) -> str:
    """At most ``max_lines`` lines of a unified diff of ``a`` against ``b``."""
    if max_lines <= 0:
        return ""
    lines = list(
        difflib.unified_diff(
            a.splitlines(), b.splitlines(), fromfile=a_name, tofile=b_name, lineterm="", n=1
        )
    )
    if not lines:
        return ""
    head, body = lines[:2], lines[2:]
    if len(body) > max_lines:
        body = [*body[:max_lines], f"... {len(body) - max_lines} more lines"]
    return "\n".join(head + body)


def render_hover(entry: FunctionEntry, analysis: FunctionAnalysis, settings: Settings) -> str:
    """Markdown for the hover over ``entry``."""
    report = analysis.report
    n = analysis.n_stored
    parts: list[str] = []
    title = f"**codequorum** · {md_code(entry.qualified_name)} · {n} sample{'s' if n != 1 else ''}"
    if report.status != "ok":
        parts.append(title)
        parts.append(md_text(report.message or "not enough versions to compare"))
        return "\n\n".join(parts)
    clusters = report.clusters
    title += f" · {len(clusters)} cluster{'s' if len(clusters) != 1 else ''}"
    parts.append(title)

    headline = report.verdict
    if headline is not None:
        mark = "⚠️" if headline.severity in ("error", "warning") else "✓"
        parts.append(f"{mark} {md_code(headline.code)} — {md_text(headline.message)}")
    for verdict in report.verdicts:
        if verdict is not headline and verdict.severity in ("error", "warning"):
            parts.append(f"⚠️ {md_code(verdict.code)} — {md_text(verdict.message)}")

    figures = []
    for key, label in PAIR_FIGURES + DYNAMIC_FIGURES:
        text = _fmt(report.summary.get(key))
        if text is not None:
            figures.append(f"{label} {text}")
    if figures:
        parts.append(" · ".join(figures))

    recommended = recommendation_lines(analysis)
    if recommended:
        parts.append("\n".join(f"- {md_text(line)}" for line in recommended))

    lines: list[str] = []
    agreed = consensus(analysis)
    if agreed is not None:
        group = next(g for g in clusters if agreed in g)
        lines.append(
            f"- consensus: **{md_text(analysis.label(agreed))}** (its cluster holds "
            f"{len(group)} of the {report.n} compared: {compared_text(analysis)})"
        )
    elif report.medoid is not None:
        typical = md_text(analysis.label(report.medoid))
        lines.append(
            f"- no consensus: the most typical version, **{typical}**, shares its shape "
            "with no other"
        )
    current = analysis.current_index
    where = current_standing(analysis)
    if current is not None and where is not None:
        pos = report.indices.index(current)
        typ = report.typicality[pos] if pos < len(report.typicality) else None
        typ_text = f", typicality {_fmt(typ)}" if _fmt(typ) is not None else ""
        lines.append(f"- current code: {where}{typ_text}")
    if analysis.fastest is not None:
        lines.append(f"- fastest: {md_text(analysis.label(analysis.fastest))}")
    if lines:
        parts.append("\n".join(lines))

    other = analysis.most_different
    anchor = current if current is not None else report.medoid
    if other is not None and anchor is not None:
        diff = short_diff(
            analysis.code(anchor),
            analysis.code(other),
            analysis.label(anchor),
            analysis.label(other),
            settings.hover.diff_lines,
        )
        if diff:
            label = md_text(analysis.label(other))
            parts.append(f"Most different: {label}\n{md_block(diff, 'diff')}")
    return "\n\n".join(parts)
