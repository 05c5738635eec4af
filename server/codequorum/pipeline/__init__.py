"""Wiring the layers below: analyse one set, score many, the session, the watch."""
