"""The reference data the tests and benchmarks read, kept in ``tests/fixtures/``.

``tests/fixtures/data/humaneval_codegen16b_t0.8.jsonl.gz`` holds the real CodeGen versions
(see ``tests/fixtures/data/NOTICE.md`` for origin and license); ``tests/fixtures/reference/``
holds the values of the published implementations (see ``tests/fixtures/README.md``).
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REFERENCE = FIXTURES / "reference"
CODEGEN_NAME = "humaneval_codegen16b_t0.8.jsonl"
CODEGEN_GZ = FIXTURES / "data" / f"{CODEGEN_NAME}.gz"


def unpack_codegen(target: Path) -> Path:
    """Write the CodeGen versions, decompressed, to ``target`` (once) and return it: the
    readers under test take a plain JSONL path."""
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        with gzip.open(CODEGEN_GZ, "rb") as src, partial.open("wb") as dst:
            shutil.copyfileobj(src, dst)
        partial.replace(target)
    return target


def unpack_reference_data(root: Path) -> Path:
    """Lay the fixtures out under ``root`` as ``data/<codegen>.jsonl`` and
    ``fixtures/reference/`` (a link), the layout the tests' paths name; return ``root``."""
    unpack_codegen(root / "data" / CODEGEN_NAME)
    link = root / "fixtures" / "reference"
    if not link.exists():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(REFERENCE, target_is_directory=True)
    return root
