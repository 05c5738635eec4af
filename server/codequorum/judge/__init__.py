"""Verdicts and picks over figures: recommendation, risk, calibration, overall."""
