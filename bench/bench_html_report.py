"""How fast a 1,640-set HTML report opens in a real browser (headless chromium).

Scores the first ``--base`` HumanEval tasks of
``tests/fixtures/data/humaneval_codegen16b_t0.8.jsonl.gz`` (``--samples`` versions each, no
TSED), repeats the sets under new task ids up to ``--sets`` (10× HumanEval: 1,640), renders
the page with ``codequorum.render.html_report`` and opens it ``--runs`` times with
``chromium --headless --dump-dom``. Reported per open:

- ``painted``: milliseconds from navigation start until the frame after the page's script
  drew the plots and the first page of the table (``data-painted-ms``: styles, layout and
  paint included; ``ready``, ``data-ready-ms``, is when the script ended); with ``#set=K``
  the detail pane of set K is drawn too (``detail``: its own milliseconds);
- ``wall``: the whole ``chromium --dump-dom`` process, and the same for an empty page.

Target: ``painted`` under 3 s. Exits 1 when over it (or when chromium is missing: 2).

    .venv/bin/python bench/bench_html_report.py --runs 3
    .venv/bin/python bench/bench_html_report.py --samples 100 --runs 3
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from codequorum.ingest.version_files import ReadError, ReadOptions, read_version_sets
from codequorum.pipeline.analyze import analyze
from codequorum.pipeline.config import AnalysisConfig
from codequorum.render.html_report import html_document, render_html
from reference_data import DATA, skipped

TARGET_MS = 3000.0
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]


def build_page(data: Path, base: int, versions: int, sets: int) -> tuple[str, float]:
    """The page for ``sets`` sets (``base`` scored ones repeated) and the seconds scoring
    and rendering took."""
    start = time.perf_counter()
    read = [s for s in read_version_sets(str(data), ReadOptions(max_versions=versions, limit=base))
            if not isinstance(s, ReadError)][:base]
    reports = [analyze(s, AnalysisConfig(metrics=("textual",))) for s in read]
    doc = html_document(reports, total=sets)
    entries: list[dict[str, Any]] = []
    codes: list[list[str] | None] = []
    for k in range(sets):
        entry = dict(doc["sets"][k % len(read)])
        entry["task_id"] = f"{entry['task_id']}#{k // len(read)}"
        entries.append(entry)
        codes.append(read[k % len(read)].codes)
    doc["sets"] = entries
    page = render_html(doc, codes=codes, title=f"{sets:,} sets × {versions} versions")
    return page, time.perf_counter() - start


def _attr(dom: str, name: str) -> float | None:
    """A number the page wrote on ``<body>``."""
    found = re.search(rf'{name}="(\d+)"', dom)
    return float(found.group(1)) if found else None


def open_page(chromium: str, url: str, profile: Path) -> tuple[float, str]:
    """``(wall seconds, dumped DOM)`` of one headless open."""
    start = time.perf_counter()
    dom = subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    return time.perf_counter() - start, dom


def main() -> int:
    """Build the report, open it ``--runs`` times, print the times."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--base", type=int, default=164, help="sets scored (default 164)")
    parser.add_argument("--sets", type=int, default=1640, help="sets in the page (1640)")
    parser.add_argument("--samples", type=int, default=10, help="versions per set (10)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="write the page here too")
    parser.add_argument("--smoke", action="store_true",
                        help="2 sets of 3 versions, 10 rows, one open")
    args = parser.parse_args()
    if args.smoke:
        args.base, args.sets, args.samples, args.runs = 2, 10, 3, 1
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None and args.smoke:
        skipped("chromium not found (apt-get install chromium)")
    if chromium is None:
        print("chromium not found: apt-get install chromium", file=sys.stderr)
        return 2
    page, build_s = build_page(args.data, args.base, args.samples, args.sets)
    with tempfile.TemporaryDirectory() as tmp:
        path, blank = Path(tmp) / "report.html", Path(tmp) / "blank.html"
        path.write_text(page, encoding="utf-8")
        blank.write_text("<!DOCTYPE html><title>blank</title>", encoding="utf-8")
        if args.keep:
            args.keep.write_text(page, encoding="utf-8")
        print(f"page: {args.sets:,} sets × {args.samples} versions, "
              f"{len(page.encode()) / 1e6:.2f} MB, built in {build_s:.1f} s")
        open_page(chromium, blank.as_uri(), Path(tmp) / "p0")  # warm the disk cache
        blanks, walls, painted = [], [], []
        for run in range(args.runs):
            blanks.append(open_page(chromium, blank.as_uri(), Path(tmp) / f"b{run}")[0])
            wall, dom = open_page(chromium, f"{path.as_uri()}#set={args.sets - 1}",
                                  Path(tmp) / f"r{run}")
            rows = dom.split('<table id="sets">', 1)[-1].count("<tr") - 1
            ready, paint = _attr(dom, "data-ready-ms"), _attr(dom, "data-painted-ms")
            if ready is None or rows <= 0:
                print("the page did not finish drawing", file=sys.stderr)
                return 1
            walls.append(wall)
            painted.append(paint if paint is not None else ready)
            print(f"run {run + 1}: painted {painted[-1]:.0f} ms (script done {ready:.0f} ms, "
                  f"detail pane {_attr(dom, 'data-detail-ms') or 0:.0f} ms), {rows} table "
                  f"rows; chromium --dump-dom {wall:.2f} s, empty page {blanks[-1]:.2f} s")
    median = statistics.median(painted)
    print(f"median: painted {median:.0f} ms (target < {TARGET_MS:.0f}); chromium --dump-dom "
          f"{statistics.median(walls):.2f} s vs {statistics.median(blanks):.2f} s for an "
          "empty page")
    return 0 if args.smoke or median < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
