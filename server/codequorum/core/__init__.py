"""Plain data, errors, parsing, bounds, safe text and paths: what every layer uses."""
