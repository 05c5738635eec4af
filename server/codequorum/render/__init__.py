"""Command-line renderers: stability reports -> rich table, JSON document, CSV rows.

Renderers only lay out what the reports already hold; they never compute a metric. The
output formats of ``score`` are :data:`codequorum.render.sinks.OUTPUT_FORMATS`. Each
renderer is imported from its own module (``render.table``, ``render.json_out``,
``render.csv_out``, ...): the package imports none of them.
"""
