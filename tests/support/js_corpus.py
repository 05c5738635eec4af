"""The hand-written JavaScript and TypeScript sets of ``tests/fixtures/js_real/``, read
into sample-set rows (the JSONL objects ``codequorum score`` reads).

A file is one set: header lines ``// @task``, ``// @language``, ``// @entry`` (optional),
then sections opened by ``// ==== prompt``, ``// ==== version`` (one per version),
``// ==== completions`` (the versions are bodies joined to the prompt) and
``// ==== tests`` (a harness, as MultiPL-E writes it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.fixtures import FIXTURES

CORPUS = FIXTURES / "js_real"
_MARK = "// ==== "


def read_set(path: Path) -> dict[str, Any]:
    """One corpus file -> its sample-set row."""
    row: dict[str, Any] = {"versions": []}
    section, completions = "", False
    lines: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("// @") and not section:
            key, _, value = line[4:].strip().partition(" ")
            row[{"task": "task_id", "entry": "entry_point"}.get(key, key)] = value.strip()
        elif line.startswith(_MARK):
            sections.append((section, lines))
            section, lines = line[len(_MARK):].strip(), []
        else:
            lines.append(line)
    sections.append((section, lines))
    for name, body in sections:
        text = "".join(body)
        if name == "prompt" and text.strip():
            row["prompt"] = text
        elif name == "version":
            row["versions"].append(text)
        elif name == "tests":
            row["tests"] = text
        completions = completions or name == "completions"
    if completions:
        row["sample_format"] = "completion"
    return row


def corpus_rows(*names: str) -> list[dict[str, Any]]:
    """The rows of the named files (every file when none is named), sorted by name."""
    paths = [CORPUS / n for n in names] if names else sorted(CORPUS.glob("*.[jt]s"))
    return [read_set(p) for p in paths]


def write_jsonl(rows: list[dict[str, Any]], path: Path) -> Path:
    """The rows as a JSONL file ``codequorum score`` reads."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
