"""Measurements the papers report, computed from golden runs."""
