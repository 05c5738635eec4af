"""The ``--format html`` report: one self-contained page to look at, not read.

:func:`render_html` turns a report document (the ``--format json`` shape, optionally with a
``jsd_struct`` matrix per set) into one HTML string: inline CSS and JS (allowed by a strict
Content-Security-Policy through their hashes), no network at view time. The data travels as
compact JSON in a ``<script type="application/json">`` tag with ``<``, ``>`` and ``&``
written as ``\\u003c`` escapes, so no text can close the tag; the page puts every string
into the document as text, never as markup. Per set only what the detail pane shows is
embedded: the heatmap (similarities to 2 digits, one byte each, the upper triangle when the
matrix is symmetric) and a full-context line diff
of the most different version against the recommended one (which holds both versions).

:class:`HtmlPage` builds the page a set at a time: each set's compact record (its row
values, its detail pane) goes to a temporary file as the set is scored, and the page is
written from that file at the end, so a run of any length holds one report at a time.
:func:`render_html` of a whole document goes the same way, so both give the same bytes.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import html
import io
import json
import logging
import math
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, TextIO

import numpy as np

from codequorum import __version__
from codequorum.core.errors import UserError
from codequorum.core.limits import json_depth_problem
from codequorum.core.model import VersionSet
from codequorum.core.report import FloatMatrix, StabilityReport, headline
from codequorum.core.safe_paths import UnreadableFile, read_regular
from codequorum.core.safe_text import safe_text
from codequorum.ingest.version_files import ReadError
from codequorum.metrics.registry import FIGURES, STRUCTURE, shown
from codequorum.render.html_assets import PAGE_CSS, PAGE_JS
from codequorum.render.json_out import report_document, safe_values

#: Summary figures shown as columns and histograms, in this order, when present (the
#: registry's ``html``).
METRICS: tuple[str, ...] = tuple(
    f.key for f in shown(FIGURES, "html"))
log = logging.getLogger(__name__)

#: The matrix drawn as the heatmap.
HEATMAP_METRIC = STRUCTURE
#: Longest version embedded (characters); longer ones are cut with a note.
CODE_LIMIT = 20_000
DIGITS = 4
_NULL_CELL = 255


def _round(x: Any) -> float | None:
    """``x`` rounded to 4 digits; None for missing or non-finite values."""
    if x is None or isinstance(x, bool):
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return round(f, DIGITS) if math.isfinite(f) else None


def summary_value(summary: Mapping[str, Any], key: str) -> float | None:
    """A summary figure as one number: the ordered mean of a pair metric, else the scalar."""
    value = summary.get(key)
    if isinstance(value, Mapping):
        value = value.get("ordered")
    return _round(value)


def _headline(verdicts: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The headline of verdicts in their JSON form (:func:`~codequorum.core.report.headline`)."""
    return headline(verdicts, lambda v: v.get("severity"))


def _code_text(code: str) -> str:
    """A version made safe to show: tabs expanded, control characters written out, cut."""
    return safe_text(code.expandtabs(4), CODE_LIMIT, keep_newlines=True)


def line_diff(old: str, new: str) -> str:
    """Full-context line diff of ``new`` against ``old``: each line prefixed by ``" "``
    (both), ``"-"`` (only ``old``) or ``"+"`` (only ``new``), joined by newlines."""
    a, b = old.split("\n"), new.split("\n")
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(" " + line for line in a[i1:i2])
            continue
        out.extend("-" + line for line in a[i1:i2])
        out.extend("+" + line for line in b[j1:j2])
    return "\n".join(out)


def _matrix(matrix: Any) -> FloatMatrix | None:
    """A square float matrix (missing values as NaN), or None when there is none."""
    if matrix is None or len(matrix) == 0:
        return None
    m = np.asarray(matrix, dtype=np.float64)
    return m if m.ndim == 2 and m.shape[0] == m.shape[1] else None


def heat_cells(matrix: Any) -> tuple[str | None, bool]:
    """The matrix as base64 bytes, ``round(100 x)`` each and 255 for a missing value, and
    whether only its upper triangle (diagonal included, row by row) is stored: when it is
    symmetric to 2 digits."""
    m = _matrix(matrix)
    if m is None:
        return None, False
    finite = np.isfinite(m)
    cells = np.where(finite, np.clip(np.rint(np.where(finite, m, 0.0) * 100), 0, 100),
                     _NULL_CELL).astype(np.uint8)
    symmetric = bool((cells == cells.T).all())
    flat = cells[np.triu_indices(len(cells))] if symmetric else cells.ravel()
    return base64.b64encode(flat.tobytes()).decode("ascii"), symmetric


def most_different(s: Mapping[str, Any], matrix: Any) -> tuple[int | None, float | None]:
    """The version least like the recommended one (its position in the set) and their mean
    similarity both ways; without a matrix, the least typical version."""
    indices: list[int] = list(s.get("indices") or [])
    rec = s.get("recommended")
    if rec is None or rec not in indices or len(indices) < 2:
        return None, None
    r = indices.index(rec)
    m = _matrix(matrix)
    if m is not None and len(m) == len(indices):
        both = (m[r, :] + m[:, r]) / 2
        both[r] = np.nan
        if not np.isnan(both).all():
            j = int(np.nanargmin(both))
            return indices[j], _round(both[j])
    typ = [(_round(t), j) for j, t in enumerate(s.get("typicality") or []) if j != r]
    known = [(t, j) for t, j in typ if t is not None]
    return (indices[min(known)[1]], None) if known else (None, None)


def set_detail(s: Mapping[str, Any], codes: Sequence[str] | None) -> dict[str, Any]:
    """What the detail pane of one set needs: clusters, heatmap, recommendation, diff."""
    matrix = (s.get("matrices") or {}).get(HEATMAP_METRIC)
    far, far_sim = most_different(s, matrix)
    head = _headline(s.get("verdicts") or [])
    heat, symmetric = heat_cells(matrix)
    detail: dict[str, Any] = {
        "msg": safe_text(head["message"]) if head else safe_text(s.get("message") or ""),
        "rc": s.get("recommendation"),
        "tr": safe_text(s.get("trust") or ""),
        "rb": s.get("recommended_by"),
        "ix": list(s.get("indices") or []),
        "cl": [list(c) for c in s.get("clusters") or []],
        "med": s.get("medoid"),
        "ty": [_round(t) for t in s.get("typicality") or []],
        "h": heat,
        "hs": symmetric,
        "far": far,
        "fs": far_sim,
        "notes": [safe_text(n) for n in (s.get("notes") or [])[:5]],
        "syn": sum(1 for e in s.get("syntax_errors") or [] if e),
        "sk": len(s.get("skipped") or []),
    }
    rec = s.get("recommended")
    if codes is not None and rec is not None and 0 <= rec < len(codes):
        rec_code = _code_text(codes[rec])
        if far is not None and 0 <= far < len(codes):
            detail["diff"] = line_diff(rec_code, _code_text(codes[far]))
        else:
            detail["code"] = rec_code
    return detail


def _row(s: Mapping[str, Any], metrics: Sequence[str]) -> list[Any]:
    """One table row: task, n, verdict, risk, percentile, kept version (1-based), figures."""
    head = _headline(s.get("verdicts") or [])
    verdict = head["code"] if head else ("insufficient" if s.get("status") != "ok" else "")
    rec = s.get("recommended")
    summary = s.get("summary") or {}
    return [safe_text(s.get("task_id", "")), s.get("n"), safe_text(verdict),
            _round(s.get("risk")), _round(s.get("stability_percentile")),
            None if rec is None else rec + 1, *(summary_value(summary, m) for m in metrics)]


def _metrics(*docs: Mapping[str, Any] | None) -> list[str]:
    """The figures of :data:`METRICS` that some set of some document has a value of."""
    found = {k for d in docs if d for s in d.get("sets") or []
             for k in s.get("summary") or {} if summary_value(s["summary"], k) is not None}
    return [m for m in METRICS if m in found]


def compare_runs(current: Mapping[str, Any], other: Mapping[str, Any],
                 metrics: Sequence[str]) -> dict[str, Any]:
    """Per task in both runs: each figure (and the risk) in both and the change (this run
    minus the other), largest change of the first figure first; the sets only one run has.
    The page re-sorts by the figure the reader picks."""
    def by_task(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
        out: dict[str, Mapping[str, Any]] = {}
        for s in doc.get("sets") or []:
            out.setdefault(str(s.get("task_id")), s)
        return out

    a, b = by_task(current), by_task(other)
    rows: list[tuple[float, list[Any]]] = []
    for task, sa in a.items():
        sb = b.get(task)
        if sb is None:
            continue
        cells: list[Any] = [safe_text(task)]
        first: float | None = None
        for m in (*metrics, "risk"):
            va = _round(sa.get("risk")) if m == "risk" else summary_value(sa["summary"] or {}, m)
            vb = _round(sb.get("risk")) if m == "risk" else summary_value(sb["summary"] or {}, m)
            delta = _round(va - vb) if va is not None and vb is not None else None
            if metrics and m == metrics[0] and delta is not None:
                first = abs(delta)
            cells.extend([va, vb, delta])
        va_v, vb_v = _headline(sa.get("verdicts") or []), _headline(sb.get("verdicts") or [])
        cells.extend([safe_text(va_v["code"]) if va_v else "",
                      safe_text(vb_v["code"]) if vb_v else ""])
        rows.append((-1.0 if first is None else first, cells))
    rows.sort(key=lambda r: -r[0])
    return {
        "metrics": [*metrics, "risk"],
        "rows": [cells for _, cells in rows],
        "only_a": [safe_text(t) for t in a if t not in b],
        "only_b": [safe_text(t) for t in b if t not in a],
        "overall": [[m, _overall(current, m), _overall(other, m)] for m in metrics],
    }


def _overall(doc: Mapping[str, Any], metric: str) -> float | None:
    """The document's overall figure (mean over scored sets)."""
    return summary_value((doc.get("overall") or {}).get("summary") or {}, metric)


def page_data(document: Mapping[str, Any], *, codes: Sequence[Sequence[str] | None] | None = None,
              compare: Mapping[str, Any] | None = None, title: str = "codequorum report",
              compare_name: str = "other run") -> dict[str, Any]:
    """The compact data the page draws: table rows, details, overall counts, comparison.
    ``codes[k]`` are the versions of set ``k`` (None: no code is shown)."""
    with _page_of(document, codes, title) as page:
        return page.data(_ending(document, compare, compare_name))


def script_json(value: Any) -> str:
    """JSON that cannot end a ``<script>`` element: ``<``, ``>``, ``&`` as ``\\u`` escapes."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _hash(text: str) -> str:
    """A CSP source naming ``text`` by its SHA-256."""
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return f"'sha256-{digest}'"


def render_html(document: Mapping[str, Any], *,
                codes: Sequence[Sequence[str] | None] | None = None,
                compare: Mapping[str, Any] | None = None, title: str = "codequorum report",
                compare_name: str = "other run") -> str:
    """The whole page for a report document (``sets`` may carry ``matrices.jsd_struct``);
    ``compare`` is another run's document shown side by side."""
    out = io.StringIO()
    with _page_of(document, codes, title) as page:
        page.write(out, _ending(document, compare, compare_name))
    return out.getvalue()


def _page_of(document: Mapping[str, Any], codes: Sequence[Sequence[str] | None] | None,
             title: str) -> HtmlPage:
    """An :class:`HtmlPage` holding the sets of ``document``."""
    page = HtmlPage(title=title, version=document.get("codequorum", ""))
    for k, s in enumerate(document.get("sets") or []):
        page.add_set(s, codes[k] if codes is not None and k < len(codes) else None)
    return page


def _ending(document: Mapping[str, Any], compare: Mapping[str, Any] | None,
            compare_name: str) -> PageEnd:
    """What a page needs of ``document`` besides its sets."""
    return PageEnd(total=document.get("total", len(document.get("sets") or [])),
                   interrupted=bool(document.get("interrupted")),
                   overall=document.get("overall"), errors=document.get("errors") or [],
                   compare=compare, compare_name=compare_name)


def html_document(reports: Sequence[StabilityReport], errors: Sequence[ReadError] = (), *,
                  interrupted: bool = False, total: int | None = None,
                  overall: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON report document with only the heatmap's matrix per set (a rounded array,
    not a JSON value: the page turns it into bytes)."""
    doc = report_document(reports, errors, interrupted=interrupted, total=total,
                          overall=overall)
    for entry, report in zip(doc["sets"], reports, strict=True):
        matrix = report.matrices.get(HEATMAP_METRIC)
        if matrix is not None:
            entry["matrices"] = {HEATMAP_METRIC: np.round(matrix, DIGITS)}
    return doc


#: The largest report ``--compare`` reads (a project's file may name it).
MAX_COMPARE_BYTES = 256 * 1024 * 1024


def load_compare(path: str) -> dict[str, Any]:
    """Another run's ``--format json`` report, loosely checked (:class:`UserError` in one
    line when it is not one)."""
    try:
        data = read_regular(path, MAX_COMPARE_BYTES)
        problem = json_depth_problem(data)
        if problem:
            raise UserError(f"--compare {path}: not read: {problem}")
        doc = json.loads(data.decode("utf-8"))
    except UnreadableFile as exc:
        raise UserError(f"--compare {exc}") from None
    except OSError as exc:
        raise UserError(f"--compare {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise UserError(f"--compare {path}: not a JSON file ({str(exc).splitlines()[0]})"
                        ) from None
    sets = doc.get("sets") if isinstance(doc, dict) else None
    good = [s for s in sets if _comparable(s)] if isinstance(sets, list) else []
    if not good and sets != []:
        raise UserError(f"--compare {path}: not a codequorum report (expected the output of "
                        "`codequorum score --format json`: an object whose `sets` each have "
                        "`task_id` and `summary`)")
    if isinstance(sets, list) and len(good) < len(sets):  # one bad set costs that set
        log.warning("--compare %s: %d of its %d sets are not a report's (no `task_id` and "
                    "`summary`); compared without them", path, len(sets) - len(good),
                    len(sets))
    result: dict[str, Any] = {**doc, "sets": good}
    return result


def _comparable(entry: Any) -> bool:
    """A set of a report ``--compare`` can show: a task id and a summary of figures."""
    return (isinstance(entry, dict) and isinstance(entry.get("task_id"), str)
            and isinstance(entry.get("summary"), dict))


def match_codes(reports: Sequence[StabilityReport], version_sets: Sequence[VersionSet]
                ) -> list[list[str] | None]:
    """The versions of each report, from the input sets in order (reports are the scored
    subsequence of the inputs, in input order); None where no set matches."""
    out: list[list[str] | None] = []
    k = 0
    for report in reports:
        found: list[str] | None = None
        for j in range(k, len(version_sets)):
            s = version_sets[j]
            if s.task_id == report.task_id and len(s.versions) == report.n_total:
                found, k = s.codes, j + 1
                break
        out.append(found)
    return out


def html_set(report: StabilityReport) -> dict[str, Any]:
    """One set of :func:`html_document`: the report's JSON entry with only the heatmap's
    matrix (rounded)."""
    entry: dict[str, Any] = safe_values(report.to_dict())
    matrix = report.matrices.get(HEATMAP_METRIC)
    if matrix is not None:
        entry["matrices"] = {HEATMAP_METRIC: np.round(matrix, DIGITS)}
    return entry


def write_html(stream: TextIO, reports: Sequence[StabilityReport],
               errors: Sequence[ReadError] = (), *, interrupted: bool = False,
               total: int | None = None, overall: dict[str, Any] | None = None,
               codes: Sequence[Sequence[str] | None] | None = None,
               compare: tuple[str, Mapping[str, Any]] | None = None,
               title: str = "codequorum report") -> None:
    """Write the page for a run (``codes[k]``: the versions of ``reports[k]``);
    ``compare`` is ``(name, JSON report)`` of another run."""
    with HtmlPage(title=title) as page:
        for k, report in enumerate(reports):
            page.add(report, codes[k] if codes is not None and k < len(codes) else None)
        page.write(stream, page_end(errors, interrupted=interrupted,
                                    total=len(reports) if total is None else total,
                                    overall=overall, compare=compare))


def page_end(errors: Sequence[ReadError], *, interrupted: bool, total: int,
             overall: Mapping[str, Any] | None,
             compare: tuple[str, Mapping[str, Any]] | None = None) -> PageEnd:
    """What a run's page needs besides its sets: the counts, the errors as the JSON
    document has them, the other run."""
    return PageEnd(total=total, interrupted=interrupted, overall=overall,
                   errors=[safe_values(e.to_dict()) for e in errors],
                   compare=compare[1] if compare else None,
                   compare_name=compare[0] if compare else "other run")


# ----------------------------------------------------------------------------- a set at a time


@dataclass(frozen=True)
class PageEnd:
    """What the page needs of a run besides its sets, known at its end."""

    total: int
    interrupted: bool
    overall: Mapping[str, Any] | None
    errors: Sequence[Mapping[str, Any]]
    compare: Mapping[str, Any] | None = None
    compare_name: str = "other run"


def _record(s: Mapping[str, Any], codes: Sequence[str] | None) -> dict[str, Any]:
    """What the page keeps of one set: its row without the figures (``r``), every figure
    of :data:`METRICS` (``v``), the detail pane (``d``), and for a comparison the task id
    (``t``) and the headline verdict (``h``)."""
    head = _headline(s.get("verdicts") or [])
    summary = s.get("summary") or {}
    return {"r": _row(s, ()), "v": {m: summary_value(summary, m) for m in METRICS},
            "d": set_detail(s, codes), "t": str(s.get("task_id")),
            "h": head["code"] if head else None}


class HtmlPage:
    """The page built a set at a time: :meth:`add` files one set's compact record in a
    temporary file, :meth:`write` writes the page from it. Close it (or use it as a context
    manager) to remove the file."""

    def __init__(self, *, title: str = "codequorum report", version: str | None = None
                 ) -> None:
        self.title = title
        self.version = safe_text(__version__) if version is None else version
        self.count = 0
        self._spool: IO[str] = tempfile.TemporaryFile(  # noqa: SIM115 - closed by close()
            "w+", encoding="utf-8")
        self._found: set[str] = set()
        self._heads: dict[str, int] = {}

    def __enter__(self) -> HtmlPage:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the temporary file."""
        self._spool.close()

    def add(self, report: StabilityReport, codes: Sequence[str] | None) -> None:
        """File one scored set (in input order); ``codes`` are its versions."""
        self.add_set(html_set(report), codes)

    def add_set(self, s: Mapping[str, Any], codes: Sequence[str] | None) -> None:
        """File one set of a report document."""
        record = _record(s, codes)
        self._found.update(m for m, v in record["v"].items() if v is not None)
        if s.get("status") == "ok" and record["h"] is not None:
            self._heads[record["h"]] = self._heads.get(record["h"], 0) + 1
        self._spool.write(json.dumps(record, allow_nan=False) + "\n")
        self.count += 1

    def _records(self) -> Iterator[dict[str, Any]]:
        """The filed records, in order, read back one at a time."""
        self._spool.seek(0)
        for line in self._spool:
            record: dict[str, Any] = json.loads(line)
            yield record

    def _each(self, pick: Any) -> Iterator[str]:
        """``pick(record)`` of every record as page JSON, comma separated."""
        for k, record in enumerate(self._records()):
            yield ("," if k else "") + script_json(pick(record))

    def _chunks(self, end: PageEnd) -> Iterator[str]:
        """The page's data as :func:`script_json` of :func:`page_data` would write it,
        a piece at a time."""
        found = self._found.union(_metrics(end.compare))
        metrics = [m for m in METRICS if m in found]
        head = {"title": safe_text(self.title), "version": safe_text(self.version),
                "total": end.total, "interrupted": end.interrupted, "metrics": metrics}
        yield script_json(head)[:-1] + ',"rows":['
        yield from self._each(lambda r: [*r["r"], *(r["v"][m] for m in metrics)])
        yield '],"details":['
        yield from self._each(lambda r: r["d"])
        yield "]," + script_json(self._tail(end, metrics))[1:]

    def _tail(self, end: PageEnd, metrics: list[str]) -> dict[str, Any]:
        """The data after the sets: verdict counts, overall figures, errors, comparison."""
        current: dict[str, Any] = {"overall": end.overall}
        tail: dict[str, Any] = {
            "verdicts": dict((end.overall or {}).get("verdicts") or self._heads),
            "overall": {m: _overall(current, m) for m in metrics},
            "errors": [safe_text(f"{e.get('source')}:{e.get('line') or ''}: "
                                 f"{e.get('message')}") for e in end.errors[:50]],
            "n_errors": len(end.errors),
        }
        calibration = calibration_data(end.overall)
        if calibration:
            tail["calibration"] = calibration
        levels = (end.overall or {}).get("risk_levels") or {}
        if levels:
            tail["risk_levels"] = [safe_text(m.get("note"), 300) for m in levels.values()]
        if end.compare is not None:
            current["sets"] = [_compare_set(r) for r in self._records()]
            tail["compare"] = compare_runs(current, end.compare, metrics)
            tail["compare"]["name"] = safe_text(end.compare_name)
        return tail

    def data(self, end: PageEnd) -> dict[str, Any]:
        """The page's whole data (for tests and tools: a run's page is :meth:`write`-n)."""
        result: dict[str, Any] = json.loads("".join(self._chunks(end)))
        return result

    def write(self, stream: TextIO, end: PageEnd) -> None:
        """Write the page."""
        title = html.escape(safe_text(self.title))
        csp = (f"default-src 'none'; style-src {_hash(PAGE_CSS)}; script-src {_hash(PAGE_JS)}; "
               "img-src data:; base-uri 'none'; form-action 'none'")
        stream.write(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{title}</title>\n<style>{PAGE_CSS}</style>\n</head>\n<body>\n"
            f"<header><h1>{title}</h1><p id=\"meta\"></p></header>\n"
            "<main id=\"app\"><noscript>This report draws its plots and tables with "
            "JavaScript.</noscript></main>\n"
            "<script type=\"application/json\" id=\"cq-data\">")
        for chunk in self._chunks(end):
            stream.write(chunk)
        stream.write(f"</script>\n<script>{PAGE_JS}</script>\n</body>\n</html>\n")


def calibration_data(overall: Mapping[str, Any] | None) -> list[list[Any]]:
    """Per model of a run that holds several and has graded tests for it: ``[name, sets
    with graded tests, share of kept versions wrong, mean risk, AUROC, ECE, reliability
    rows]``, what the page's calibration plot draws."""
    out: list[list[Any]] = []
    for name, m in ((overall or {}).get("by_model") or {}).items():
        if m.get("graded"):
            rows = [[_round(a), _round(b), int(c)] for a, b, c in m.get("reliability") or []]
            out.append([safe_text(name, 80), m["graded"], _round(m.get("kept_wrong")),
                        _round(m.get("mean_risk")), _round(m.get("auroc")),
                        _round(m.get("ece")), rows])
    return out


def _compare_set(record: Mapping[str, Any]) -> dict[str, Any]:
    """A filed set as much as :func:`compare_runs` reads of it."""
    return {"task_id": record["t"], "summary": record["v"], "risk": record["r"][3],
            "verdicts": [] if record["h"] is None else [{"code": record["h"]}]}
