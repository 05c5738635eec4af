"""Command-line renderers: stability reports -> rich table, JSON document, CSV rows.

Renderers only lay out what the reports already hold; they never compute a metric. The
output formats of ``score`` are :data:`codequorum.render.sinks.OUTPUT_FORMATS`.
"""

from __future__ import annotations

from codequorum.render.csv_out import CSV_COLUMNS, csv_columns, write_csv
from codequorum.render.json_out import report_document, write_json
from codequorum.render.table import build_table, print_table

__all__ = [
    "CSV_COLUMNS",
    "build_table",
    "csv_columns",
    "print_table",
    "report_document",
    "write_csv",
    "write_json",
]
