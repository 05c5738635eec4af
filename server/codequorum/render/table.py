"""The terminal table: one row per sample set, pair means over ordered pairs, the verdict.

Colours only help reading (green at or above the report's stability threshold, red well
below it); every figure is printed as a number too. The table fits the console's width:
task ids are never wrapped or cut; columns that do not fit are left out in
:data:`DROP_ORDER` and a line under the table says which. Every text that comes from the
input (task ids, messages, notes) goes through :func:`~codequorum.core.safe_text.safe_text` and
into :class:`rich.text.Text`, so it is never read as an escape sequence or as rich markup.

The table is drawn from :class:`TableRow` values, a few per set, so a long run holds its
rows, never its reports; every function also takes the reports themselves.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len
from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

from codequorum.core.report import StabilityReport, severity_rank
from codequorum.core.safe_text import safe_text
from codequorum.core.words import count, plural
from codequorum.judge.verdicts import INSUFFICIENT, STABLE, column_codes, style_of
from codequorum.metrics.registry import FIGURES, PAIR_METRICS, SCALAR_FIGURES, shown
from codequorum.pipeline.session import RAN_WITHOUT_MODULE

#: (column title, summary key) of the pair-mean columns, in order (the registry's ``table``).
COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (m.label, m.key) for m in shown(PAIR_METRICS, "table"))
#: (column title, summary key) of scalar columns shown when a report has them (dynamic).
SCALAR_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (f.label, f.key) for f in shown(SCALAR_FIGURES, "table"))
COUNTS = "verdict counts"
#: Where the table's own columns fall in :data:`DROP_ORDER` (the figures' places are the
#: registry's ``drop``).
_OWN_DROP: dict[str, int] = {"Why": 0, "n": 8, "Shape": 9, "Risk": 10, COUNTS: 11, "Keep": 13,
                             "Verdict": 14}
#: Columns left out, first to last, while the table is wider than the console. ``Task`` is
#: always kept; the reasons of ``Why`` move under the table, one line per task, and so do
#: the ``verdict counts`` of the last row (``mean of N``).
DROP_ORDER: tuple[str, ...] = tuple(title for _, title in sorted(
    [*((rank, title) for title, rank in _OWN_DROP.items()),
     *((f.show.drop, f.label) for f in FIGURES
       if f.show.drop is not None)]))
#: What docs/cli.md says of a column left out beyond its title (the scalar columns: that
#: they come with ``--dynamic``).
_DROP_WORDS: dict[str, str] = {
    "Why": "`Why` (`--reasons`): the reasons move under the table, one line per task",
    COUNTS: "the verdict counts of the last row (`mean of N`), which move under the table",
}
#: The markers of the generated list in docs/cli.md (``scripts/generate`` writes it).
DROP_BEGIN = "<!-- columns left out: written by `scripts/generate` from render/table.py -->"
DROP_END = "<!-- end of columns left out -->"


def drop_order_docs() -> str:
    """The numbered list of docs/cli.md that says in which order columns are left out."""
    dynamic = {title for title, _ in SCALAR_COLUMNS}
    items = [_DROP_WORDS.get(title, f"`{title}`" + (" (with `--dynamic`)" if title in dynamic
                                                     else ""))
             for title in DROP_ORDER]
    lines = [f"{k}. {item}{'.' if k == len(items) else ';'}"
             for k, item in enumerate(items, start=1)]
    return "\n".join([DROP_BEGIN, *lines, DROP_END]) + "\n"


def with_drop_order(text: str) -> str:
    """``text`` (docs/cli.md) with the generated list of columns left out replaced."""
    pattern = re.compile(re.escape(DROP_BEGIN) + r".*?" + re.escape(DROP_END) + r"\n", re.S)
    if not pattern.search(text):
        raise ValueError("docs/cli.md has no generated list of the columns left out")
    return pattern.sub(lambda _m: drop_order_docs(), text, count=1)


#: The ``Why`` column wraps its text, but is not made narrower than this.
WHY_MIN_WIDTH = 24
#: Task ids longer than this (in characters) are cut, with the length said.
TASK_ID_LIMIT = 120

#: Notes under the table (empty versions, sets too small to score) before they are counted.
MAX_NOTE_LINES = 8


def task_text(task_id: object, style: str = "") -> Text:
    """A task id as shown: control characters escaped, bounded, never markup."""
    return Text(safe_text(task_id, limit=TASK_ID_LIMIT), style=style)


def _cell(value: float | None, good: float | None = None) -> Text:
    """A figure with three decimals, coloured against ``good`` when given; a dash if none."""
    if value is None or value != value:
        return Text("—", style="dim")
    style = ""
    if good is not None:
        style = "green" if value >= good else ("red" if value < good - 0.15 else "yellow")
    text = f"{value:.3f}" if abs(value) < 1000 else f"{value:.2g}"
    return Text(text, style=style)


def _risk_cell(r: TableRow) -> Text:
    """The risk, or ``not run`` where a version is kept but nothing ran (from shape alone
    no probability holds)."""
    return _cell(r.risk) if r.ran else Text("not run", style="dim")


def _scalar(value: Any) -> Text:
    """A scalar summary figure (dynamic analysis) as a cell."""
    return _cell(float(value) if isinstance(value, int | float) else None)


@dataclass(frozen=True, slots=True)
class TableRow:
    """What the table shows of one set, and nothing else: the row's values and the notes
    under the table."""

    task_id: str
    n: int
    ok: bool
    message: str
    pairs: dict[str, float | None] = field(default_factory=dict)
    scalars: dict[str, Any] = field(default_factory=dict)
    stable_jsd: Any = None
    largest: int = 0
    recommended: int | None = None
    recommended_by: str | None = None
    risk: float | None = None
    ran: bool = True
    codes: tuple[str, ...] = ()
    reason: str | None = None
    empty: int = 0
    empty_notes: str = ""
    unparsed: int = 0
    module_note: str = ""


def table_row(r: StabilityReport) -> TableRow:
    """The values of ``r`` the table shows."""
    return TableRow(
        task_id=r.task_id, n=r.n, ok=r.status == "ok", message=r.message or "",
        pairs={key: r.pair(key) for _, key in COLUMNS},
        scalars={key: r.summary[key] for _, key in SCALAR_COLUMNS if key in r.summary},
        stable_jsd=r.options.get("stable_jsd") if r.options else None,
        largest=len(r.clusters[0]) if r.clusters else 0,
        recommended=r.recommended, recommended_by=r.recommended_by, risk=r.risk,
        ran=r.risk is not None or r.recommended is None,
        codes=tuple(verdict_codes(r)), reason=r.verdict.message if r.verdict else None,
        empty=len(r.empty), empty_notes="; ".join(version_notes(r)),
        unparsed=sum(1 for e in r.syntax_errors if e) + len(r.skipped),
        module_note="; ".join(n for n in r.notes if n.startswith(RAN_WITHOUT_MODULE)))


def version_notes(r: StabilityReport) -> list[str]:
    """What the report says about versions that are not plain code: empty ones, ones with
    syntax errors (scored as parsed), and any left out (``skipped``, with the reason)."""
    notes = [n for n in r.notes if " empty" in n or "syntax error" in n]
    notes += [f"version {s.index + 1} left out: {s.reason}" for s in r.skipped]
    return notes


Rows = Sequence[StabilityReport | TableRow]


def _rows(items: Rows) -> list[TableRow]:
    """``items`` as table rows (reports turned into theirs)."""
    return [table_row(r) if isinstance(r, StabilityReport) else r for r in items]


@dataclass(frozen=True)
class _Column:
    """A table column: its title, how to lay it out, its cell for a row and for the
    overall row."""

    title: str
    cell: Callable[[TableRow], Text]
    total: Callable[[Mapping[str, Any]], Text]
    justify: JustifyMethod = "right"


def verdict_codes(r: StabilityReport) -> list[str]:
    """Every verdict code of a report once, most severe first (report order within one
    severity), without a shape's ``stable`` beside diverging outputs or nothing run
    (:func:`~codequorum.judge.verdicts.column_codes`)."""
    ranked = sorted(r.verdicts, key=lambda v: severity_rank(v.severity))
    return column_codes(list(dict.fromkeys(v.code for v in ranked)))


def _verdict_cell(r: TableRow) -> Text:
    """Every verdict, one a line, most severe first (the column stays as narrow as its
    longest code)."""
    if not r.ok:
        return Text(INSUFFICIENT, style=style_of(INSUFFICIENT).table)
    return Text("\n").join(Text(code, style=style_of(code).table) for code in r.codes)


def _why_cell(r: TableRow) -> Text:
    if not r.ok:
        return Text(safe_text(r.message), style="dim")
    return Text(safe_text(r.reason or ""))


def _shape_cell(r: TableRow) -> Text:
    if not r.ok:
        return Text("—", style="dim")
    return Text(f"{r.largest}/{r.n}")


def _keep_cell(r: TableRow) -> Text:
    """``v3 outputs`` (chosen by agreeing outputs) or ``v3 shape`` (by typicality)."""
    if r.recommended is None:
        return Text("—", style="dim")
    how = "outputs" if r.recommended_by == "behaviour" else "shape"
    return Text(f"v{r.recommended + 1} {how}")


def as_shown(overall: Mapping[str, Any] | None,
             rows: Sequence[TableRow]) -> Mapping[str, Any] | None:
    """``overall`` with its verdict counts taken from the Verdict column of ``rows``, so the
    last row counts what the rows above it show (no ``stable`` for a set whose column
    leaves it out beside diverging outputs or nothing run; the JSON keeps both)."""
    if overall is None:
        return None
    shown: dict[str, int] = {}
    for row in rows:
        for code in row.codes if row.ok else ():
            shown[code] = shown.get(code, 0) + 1
    return {**overall, "verdicts": shown}


def _counts(overall: Mapping[str, Any]) -> list[str]:
    """``12 stable``, ``8 unstable-structure``: the verdict counts, most frequent first."""
    counts = sorted(overall.get("verdicts", {}).items(), key=lambda kv: -kv[1])
    return [f"{n} {code}" for code, n in counts]


def _verdict_counts(overall: Mapping[str, Any]) -> Text:
    """The verdict counts one per line (the column stays narrow)."""
    return Text("\n".join(_counts(overall)))


def _blank(_overall: Mapping[str, Any]) -> Text:
    """An empty cell of the overall row."""
    return Text("")


def _pair_column(title: str, key: str) -> _Column:
    def cell(r: TableRow) -> Text:
        good = r.stable_jsd
        return _cell(r.pairs.get(key), float(good) if key.startswith("jsd") and good else None)

    def total(overall: Mapping[str, Any]) -> Text:
        value = overall.get("summary", {}).get(key)
        return _cell(value.get("ordered") if isinstance(value, dict) else None)

    return _Column(title, cell, total)


def _scalar_column(title: str, key: str) -> _Column:
    return _Column(title, lambda r: _scalar(r.scalars.get(key)),
                   lambda overall: _scalar(overall.get("summary", {}).get(key)))


def _columns(reports: Sequence[TableRow], reasons: bool,
             counts: bool = True) -> list[_Column]:
    """Every column these rows have, in display order."""
    blank = _blank
    columns = [
        _Column("Task", lambda r: task_text(r.task_id),
                lambda overall: Text(f"mean of {overall.get('scored', 0)}"), "left"),
        _Column("n", lambda r: Text(str(r.n)), blank),
    ]
    columns += [_pair_column(t, k) for t, k in COLUMNS
                if any(r.pairs.get(k) is not None for r in reports)]
    columns += [_scalar_column(t, k) for t, k in SCALAR_COLUMNS
                if any(k in r.scalars for r in reports)]
    columns.append(_Column("Shape", _shape_cell, blank))
    columns.append(_Column("Keep", _keep_cell, blank, "left"))
    columns.append(_Column("Risk", _risk_cell, blank))
    columns.append(_Column("Verdict", _verdict_cell, _verdict_counts if counts else blank,
                           "left"))
    if reasons:
        columns.append(_Column("Why", _why_cell, blank, "left"))
    return columns


def build_table(items: Rows, title: str | None = None,
                reasons: bool = False, overall: Mapping[str, Any] | None = None,
                drop: Collection[str] = ()) -> Table:
    """A rich table of the reports (or their rows). ``reasons`` adds the verdict message as
    a last column; ``overall`` (:mod:`codequorum.judge.overall`) adds a last row with the means over
    the sets and the verdict counts; columns titled in ``drop`` are left out (and the
    counts, when ``drop`` holds :data:`COUNTS`)."""
    reports = _rows(items)
    overall = as_shown(overall, reports)
    columns = [c for c in _columns(reports, reasons, COUNTS not in drop)
               if c.title not in drop]
    table = Table(title=title, header_style="bold", show_lines=False, expand=False,
                  title_justify="left")
    for column in columns:
        if column.title == "Why":
            table.add_column("Why", overflow="fold", min_width=WHY_MIN_WIDTH)
        else:
            table.add_column(column.title, justify=column.justify,
                             no_wrap=True)
    for r in reports:
        table.add_row(*(c.cell(r) for c in columns))
    if overall is not None and len(reports) > 1:
        table.add_section()
        table.add_row(*(c.total(overall) for c in columns), style="bold")
    return table


def natural_width(table: Table) -> int:
    """Columns the table takes when nothing limits it (its widest line, title aside)."""
    saved, table.title = table.title, None
    try:
        probe = Console(file=io.StringIO(), width=100_000, color_system=None)
        with probe.capture() as capture:
            probe.print(table)
    finally:
        table.title = saved
    return max((cell_len(line) for line in capture.get().splitlines()), default=0)


def fit_columns(items: Rows, width: int, reasons: bool = False,
                overall: Mapping[str, Any] | None = None) -> list[str]:
    """The columns to leave out (titles, in :data:`DROP_ORDER`) so the table fits in
    ``width`` columns; when even the task ids alone do not fit, everything droppable."""
    reports = _rows(items)
    present = {c.title for c in _columns(reports, reasons)}
    if overall is not None and len(reports) > 1:
        present.add(COUNTS)
    dropped: list[str] = []
    candidates = [t for t in DROP_ORDER if t in present]
    while True:
        table = build_table(reports, reasons=reasons, overall=overall,
                            drop=[*dropped, "Why"])
        need = natural_width(table)
        if "Why" in present and "Why" not in dropped:
            need += WHY_MIN_WIDTH + 3  # the reasons wrap; padding and a rule
        if need <= width or not candidates:
            return dropped
        dropped.append(candidates.pop(0))


def print_table(items: Rows, console: Console, title: str | None = None,
                reasons: bool = False, overall: Mapping[str, Any] | None = None,
                explain_shape: bool = True) -> None:
    """Print the table fitted to the console's width, then one line per set note-worthy
    for the reader (skipped or insufficient sets, reasons that did not fit) and, with
    ``explain_shape``, what ``stable`` means where nothing ran (:data:`SHAPE_ONLY`; the
    demo explains it in its own words)."""
    reports = _rows(items)
    width = console.width
    dropped = fit_columns(reports, width, reasons, overall)
    table = build_table(reports, title=title, reasons=reasons, overall=overall, drop=dropped)
    why_in_table = reasons and "Why" not in dropped
    show_reasons = reasons and not why_in_table
    try:
        if not why_in_table:  # ids are never cut: when even they do not fit, lines grow
            console.width = max(width, natural_width(table))
        console.print(table)
    finally:
        console.width = width
    lines = _notes(reports, why_in_table, show_reasons)
    if len(lines) > MAX_NOTE_LINES and not show_reasons:
        empty = sum(r.empty for r in reports)
        more = len(lines) - MAX_NOTE_LINES + 1
        lines = [*lines[: MAX_NOTE_LINES - 1],
                 Text(f"... and {more} more {plural(more, 'set')} with notes "
                      f"({count(empty, 'empty version')} in all; --format json "
                      "lists them)", style="dim")]
    shape_only = shape_only_note(reports) if explain_shape else None
    for line in [*lines, *([shape_only] if shape_only is not None else [])]:
        console.print(line)
    for line in model_lines(overall or {}):
        console.print(line)
    counted = as_shown(overall, reports)
    if COUNTS in dropped and counted is not None:
        console.print(Text(f"verdicts: {', '.join(_counts(counted))}", style="bold"))
    shown = [t for t in dropped if t not in ("Why", COUNTS)]
    if shown:
        console.print(Text(f"left out to fit {width} columns: {', '.join(shown)} "
                           "(--format csv or json has every figure)", style="dim"))


def model_lines(overall: Mapping[str, Any]) -> list[Text]:
    """Per model of a run that holds several (``overall["by_model"]``): its sets and, where
    graded tests tell, how often its kept versions were wrong against the mean risk, with
    AUROC and ECE; then, where the run set the risk level, what each model's sets implied
    (``overall["risk_levels"]``)."""
    lines: list[Text] = []
    for name, m in (overall.get("by_model") or {}).items():
        line = Text(f"{safe_text(name, 80)}: ", style="bold")
        words = f"{count(m['sets'], 'set')}"
        if m.get("graded"):
            auroc = "n/a" if m.get("auroc") is None else f"{m['auroc']:.3f}"
            words += (f"; kept version wrong in {round(100 * m['kept_wrong'])} % of the "
                      f"{count(m['graded'], 'set')} with graded tests, mean risk "
                      f"{round(100 * m['mean_risk'])} %; AUROC {auroc}, ECE {m['ece']:.3f}")
        elif m.get("with_risk"):
            words += f"; {m['with_risk']:,} with a risk, none with graded tests"
        line.append(words)
        lines.append(line)
    for m in (overall.get("risk_levels") or {}).values():  # where the run set the level
        lines.append(Text(safe_text(m.get("note"), 300), style="dim"))
    return lines


def _notes(reports: Sequence[TableRow], why_in_table: bool, show_reasons: bool) -> list[Text]:
    """The lines under the table: insufficient sets (when ``Why`` is not a column), the
    reasons (``show_reasons``), empty versions, versions with syntax errors, versions that
    ran without their module."""
    lines: list[Text] = []
    for r in reports:
        if not r.ok:
            if not why_in_table:
                lines.append(_note(r.task_id, r.message))
            continue
        if show_reasons and r.reason is not None:
            lines.append(_note(r.task_id, r.reason))
        if r.empty or r.unparsed:
            lines.append(_note(r.task_id, r.empty_notes))
        if r.module_note:
            lines.append(_note(r.task_id, r.module_note))
    return lines


#: Under a table where a set is called ``stable`` though none of its versions ran.
SHAPE_ONLY = ("stable: the versions agree in shape; where Risk says `not run` they were not "
              "run, so nothing here says they behave alike (--dynamic runs them)")


def shape_only_note(reports: Sequence[TableRow]) -> Text | None:
    """:data:`SHAPE_ONLY` when some row shows ``stable`` for versions that never ran."""
    if any(r.ok and STABLE.code in r.codes and not r.ran for r in reports):
        return Text(SHAPE_ONLY, style="dim")
    return None


def _note(task_id: str, message: str) -> Text:
    """``task: message`` under the table, dimmed, the message made safe."""
    text = task_text(task_id, style="dim")
    text.append(f": {safe_text(message)}", style="dim")
    return text

