"""Command-line renderers: stability reports -> rich table, JSON document, CSV rows.

Renderers only lay out what the reports already hold; they never compute a metric.
"""

from __future__ import annotations

from codequorum.render.csv_out import CSV_COLUMNS, csv_columns, write_csv
from codequorum.render.json_out import report_document, write_json
from codequorum.render.table import build_table, print_table

OUTPUT_FORMATS: tuple[str, ...] = ("table", "json", "jsonl", "csv", "html")

__all__ = [
    "CSV_COLUMNS",
    "OUTPUT_FORMATS",
    "build_table",
    "csv_columns",
    "print_table",
    "report_document",
    "write_csv",
    "write_json",
]
