"""Where the benchmarks find their data: the repository's ``tests/fixtures/`` (real CodeGen
versions, gzipped, and the published implementations' values), and the smoke mode's exit.

``--smoke`` on every benchmark shrinks its input to seconds and asserts nothing about time;
``tests/test_bench_smoke.py`` runs each one that way.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NoReturn

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
DATA = FIXTURES / "data" / "humaneval_codegen16b_t0.8.jsonl.gz"
REFERENCE = FIXTURES / "reference"
STRUCTURAL_SAMPLES = REFERENCE / "structural_samples"


def open_text(path: Path) -> IO[str]:
    """A JSONL file for reading, decompressed when its name ends in ``.gz``."""
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def rows(path: Path = DATA) -> Iterator[dict[str, Any]]:
    """Each line of a JSONL file (``.gz`` or plain) as a dict."""
    with open_text(path) as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def skipped(reason: str) -> NoReturn:
    """End a smoke run that cannot run here, saying why (exit 0)."""
    print(f"skipped: {reason}")
    raise SystemExit(0)


def smoke_flag(argv: list[str] | None = None) -> bool:
    """Whether ``--smoke`` is among the arguments (for scripts without argparse)."""
    return "--smoke" in (sys.argv[1:] if argv is None else argv)
